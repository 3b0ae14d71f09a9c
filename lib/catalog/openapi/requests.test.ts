import { describe, expect, it } from "vitest";
import { authEnvOptions } from "../../cli/openapi-import-command";
import { type HttpExecution, ManifestError, type ToolManifest } from "../manifest";
import { manifestFromOpenApi } from "./convert";
import { OpenApiOptionError } from "./types";

// What a request carries, as each operation declares it: bodies of every kind, its own server, its
// credentials, the answers it gives without content, its name; and what one broken operation costs.

const doc = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  openapi: "3.0.3",
  info: { title: "Shop", version: "1" },
  servers: [{ url: "https://api.shop.example/v1" }],
  paths,
  ...extra,
});
const convert = (document: unknown, options: Record<string, unknown> = {}) => manifestFromOpenApi(document, { origin: "shop.json", ...options });
const only = async (document: unknown, options: Record<string, unknown> = {}) => {
  const result = await convert(document, options);
  const [tool] = result.manifest.providers[0].tools;
  return { result, tool, execution: tool.execution as HttpExecution };
};
const params = (tool: ToolManifest) => tool.params.map((p) => [p.name, p.type, p.required]);
const body = (content: Record<string, unknown>, required = true) => ({ requestBody: { required, content }, responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } } });

describe("request bodies", () => {
  it("a form body: an object's fields are params (a nested object too), sent with the encoding the document declares (deepObject)", async () => {
    const { tool, execution } = await only(
      doc({
        "/messages": {
          post: body({
            "application/x-www-form-urlencoded": {
              schema: {
                type: "object",
                required: ["To", "Body"],
                properties: { To: { type: "string" }, Body: { type: "string" }, Metadata: { type: "object", properties: { tag: { type: "string" }, priority: { type: "integer" } } }, MediaUrl: { type: "array", items: { type: "string" } } },
              },
              encoding: { Metadata: { style: "deepObject", explode: true }, MediaUrl: { explode: false } },
            },
          }),
        },
      }),
    );
    expect(params(tool)).toEqual([
      ["To", "string", true],
      ["Body", "string", true],
      ["Metadata", "object", false],
      ["MediaUrl", "array", false],
    ]);
    expect(execution).toMatchObject({ body: "form", body_types: [{ media_type: "application/x-www-form-urlencoded", kind: "form" }], encoding: { Metadata: { style: "deepObject", explode: true }, MediaUrl: { explode: false } } });
    expect(execution.content_type_param).toBeUndefined();
  });

  it("an optional form body is imported with all its fields optional, never dropped", async () => {
    const { result, tool, execution } = await only(doc({ "/calls/{sid}": { post: { parameters: [{ name: "sid", in: "path", required: true, schema: { type: "string" } }], ...body({ "application/x-www-form-urlencoded": { schema: { type: "object", required: ["Status"], properties: { Status: { type: "string", enum: ["canceled", "completed"] } } } } }, false) } } }));
    expect(execution.body).toBe("form");
    expect(params(tool)).toEqual([
      ["sid", "string", true],
      ["Status", "string", false],
    ]);
    expect(result.warnings).toEqual([]);
  });

  it("a form whose schema is a union of objects (a token request per grant type) takes every branch's fields, each allowing any branch's value", async () => {
    const grant = (type: string, fields: Record<string, unknown>, required: string[]) => ({ type: "object", required: ["grant_type", ...required], properties: { grant_type: { type: "string", const: type }, ...fields } });
    const { tool, execution } = await only(
      doc({
        "/oauth/token": {
          post: body({
            "application/x-www-form-urlencoded": { schema: { oneOf: [grant("authorization_code", { code: { type: "string" }, code_verifier: { type: "string" } }, ["code"]), grant("refresh_token", { refresh_token: { type: "string" } }, ["refresh_token"])] } },
          }),
        },
      }),
    );
    expect(execution.body).toBe("form");
    expect(params(tool)).toEqual([
      ["grant_type", "string", true],
      ["code", "string", false],
      ["code_verifier", "string", false],
      ["refresh_token", "string", false],
    ]);
    expect(tool.params[0].json_schema).toEqual({ anyOf: [{ type: "string", const: "authorization_code" }, { type: "string", const: "refresh_token" }] });
  });

  it("multipart: a binary part and an array of files are file params (base64, data: URI or URL), a part's contentType is kept", async () => {
    const { tool, execution } = await only(
      doc({
        "/uploads": {
          post: body({
            "multipart/form-data": {
              schema: {
                type: "object",
                required: ["file", "purpose"],
                properties: {
                  file: { type: "string", format: "binary", description: "The file to upload." },
                  attachments: { type: "array", items: { type: "string", format: "binary" } },
                  purpose: { type: "string", enum: ["assistants", "batch"] },
                  meta: { type: "object", properties: { note: { type: "string" } } },
                },
              },
              encoding: { meta: { contentType: "application/json" }, file: { contentType: "image/png, image/jpeg" } },
            },
          }),
        },
      }),
    );
    expect(execution).toMatchObject({ body: "multipart", body_types: [{ media_type: "multipart/form-data", kind: "multipart" }], files: ["file", "attachments"], encoding: { meta: { content_type: "application/json" }, file: { content_type: "image/png, image/jpeg" } } });
    const [file, attachments] = tool.params;
    expect(file).toEqual({ name: "file", type: "string", required: true, description: "The file to upload. File content: base64, a data: URI (data:<type>;base64,...), or an https URL where the operator allows it.", json_schema: { type: "string", format: "binary" } });
    expect(attachments).toMatchObject({ name: "attachments", type: "array", items: { type: "string" }, required: false, json_schema: { type: "array", items: { type: "string", format: "binary" } } });
  });

  it("a 3.1 file part by contentMediaType is a file too", async () => {
    const { execution } = await only({ ...doc({ "/audio": { post: body({ "multipart/form-data": { schema: { type: "object", properties: { audio: { type: "string", contentMediaType: "audio/mpeg" } } } } }) } }), openapi: "3.1.0" });
    expect(execution.files).toEqual(["audio"]);
  });

  it("a text body is one raw string param; a binary one is a file", async () => {
    const text = await only(doc({ "/notes": { put: body({ "text/plain": { schema: { type: "string" } } }) } }));
    expect(text.execution).toMatchObject({ body: "raw", body_types: [{ media_type: "text/plain", kind: "raw" }], body_param: "body" });
    expect(text.execution.files).toBeUndefined();
    expect(text.tool.params).toEqual([{ name: "body", type: "string", required: true, description: "The request body (text/plain)." }]);
    const bytes = await only(doc({ "/blobs": { post: body({ "application/octet-stream": { schema: { type: "string", format: "binary" } } }) } }));
    expect(bytes.execution).toMatchObject({ body: "raw", body_param: "body", files: ["body"] });
  });

  it("JSON beside a form: both are offered, JSON first, and a content_type param (named apart from a field that has the name) chooses", async () => {
    const schema = { type: "object", required: ["name"], properties: { name: { type: "string" }, content_type: { type: "string" } } };
    const { tool, execution } = await only(doc({ "/items": { post: body({ "application/x-www-form-urlencoded": { schema }, "application/json": { schema } }) } }));
    expect(execution).toMatchObject({
      body: "json",
      body_types: [
        { media_type: "application/json", kind: "json" },
        { media_type: "application/x-www-form-urlencoded", kind: "form" },
      ],
      content_type_param: "request_content_type",
    });
    expect(tool.params.at(-1)).toEqual({
      name: "request_content_type",
      type: "string",
      required: false,
      description: expect.stringContaining("The media type the request body is sent as"),
      enum: ["application/json", "application/x-www-form-urlencoded"],
      default: "application/json",
    });
    expect(params(tool).slice(0, 2)).toEqual([
      ["name", "string", true],
      ["content_type", "string", false],
    ]);
  });

  it("a JSON body alone keeps today's mapping: no body_types for application/json, fields as params", async () => {
    const { execution } = await only(doc({ "/items": { post: body({ "application/json": { schema: { type: "object", properties: { a: { type: "string" } } } } }) } }));
    expect(execution).toEqual({ method: "POST", path: "/items", body: "json" });
    // `*/*` beside it is sent as application/json too: nothing more to choose.
    const wildcard = await only(doc({ "/items": { post: body({ "application/json": { schema: { type: "object", properties: { a: { type: "string" } } } }, "*/*": { schema: { type: "object" } } }) } }));
    expect(wildcard.execution).toEqual({ method: "POST", path: "/items", body: "json" });
  });
});

describe("servers, cookies and credentials", () => {
  const secured = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    doc(paths, {
      security: [{ bearerAuth: [] }],
      components: {
        securitySchemes: {
          bearerAuth: { type: "http", scheme: "bearer" },
          basicAuth: { type: "http", scheme: "basic" },
          digestAuth: { type: "http", scheme: "digest" },
          session: { type: "apiKey", in: "cookie", name: "sid" },
          keyAuth: { type: "apiKey", in: "query", name: "key" },
        },
      },
      ...extra,
    });
  const ok = { responses: { "204": { description: "done" } } };

  it("an operation's or its path's own server, variables at their defaults, is its base_url; --base-url overrides every server", async () => {
    const document = doc({
      "/files": {
        servers: [{ url: "https://{host}/api/{version}", variables: { host: { default: "upload.shop.example" }, version: { default: "2.0", enum: ["2.0"] } } }],
        post: ok,
        get: { servers: [{ url: "/download" }], ...ok },
      },
      "/items": { get: { servers: [{ url: "https://api.shop.example/v1" }], ...ok } },
      "/broken": { get: { servers: [{ url: "https://{region}.shop.example" }], ...ok } },
    });
    const result = await convert(document);
    const urls = Object.fromEntries(result.manifest.providers[0].tools.map((t) => [`${(t.execution as HttpExecution).method} ${(t.execution as HttpExecution).path}`, (t.execution as HttpExecution).base_url]));
    expect(urls).toEqual({ "POST /files": "https://upload.shop.example/api/2.0", "GET /files": "https://api.shop.example/download", "GET /items": undefined });
    expect(result.skipped).toEqual([{ operation: "GET /broken", pointer: "/paths/~1broken/get", reason: "server variable {region} has no default (/paths/~1broken/get/servers/0/variables/region)" }]);
    const overridden = await convert(document, { baseUrl: "http://127.0.0.1:9999/mock" });
    expect(overridden.manifest.providers[0].tools.every((t) => (t.execution as HttpExecution).base_url === undefined)).toBe(true);
    expect(overridden.skipped).toEqual([]);
  });

  it("security alternatives: each requirement one alternative, `security: []` sends nothing, `{}` allows nothing, an unsendable scheme's alternatives are dropped", async () => {
    const result = await convert(
      secured({
        "/a": { get: ok },
        "/b": { get: { security: [], ...ok } },
        "/c": { get: { security: [{ bearerAuth: [], keyAuth: [] }, { basicAuth: [] }, {}], ...ok } },
        "/d": { get: { security: [{ digestAuth: [] }, { basicAuth: [] }], ...ok } },
        "/e": { get: { security: [{ digestAuth: [] }], ...ok } },
        "/f": { get: { security: [{ undeclared: [] }], ...ok } },
      }),
      { schemeEnv: { bearerAuth: "SHOP_TOKEN", basicAuth: "SHOP_BASIC", keyAuth: "SHOP_KEY" } },
    );
    const security = Object.fromEntries(result.manifest.providers[0].tools.map((t) => [(t.execution as HttpExecution).path, (t.execution as HttpExecution).security]));
    const bearer = { scheme: "bearerAuth", type: "bearer", env: "SHOP_TOKEN" };
    const basic = { scheme: "basicAuth", type: "basic", env: "SHOP_BASIC" };
    expect(security).toEqual({
      "/a": [[bearer]],
      "/b": [],
      "/c": [[bearer, { scheme: "keyAuth", type: "query", name: "key", env: "SHOP_KEY" }], [basic], []],
      "/d": [[basic]],
    });
    expect(result.skipped).toEqual([
      { operation: "GET /e", pointer: "/paths/~1e/get/security", reason: 'it requires credentials Tollgate cannot send: "digestAuth" (http scheme "digest" is not one Tollgate can send (bearer, basic))' },
      { operation: "GET /f", pointer: "/paths/~1f/get/security", reason: 'it requires credentials Tollgate cannot send: "undeclared" (it is not declared in components.securitySchemes)' },
    ]);
    expect(result.warnings.filter((w) => /digestAuth/.test(w.message))).toHaveLength(1);
    expect(result.credentials).toEqual([
      { ...bearer, operations: 2 },
      { scheme: "keyAuth", type: "query", env: "SHOP_KEY", operations: 1 },
      { ...basic, operations: 2 },
    ]);
  });

  it("an apiKey in a cookie is a cookie credential, and the same cookie declared as a parameter is not the caller's; other cookies are params", async () => {
    const { tool, execution, result } = await only(
      secured({
        "/cart": {
          get: {
            security: [{ session: [] }],
            parameters: [
              { name: "sid", in: "cookie", required: true, schema: { type: "string" } },
              { name: "locale", in: "cookie", schema: { type: "string" } },
            ],
            ...ok,
          },
        },
      }),
      { authEnv: "SHOP_SESSION" },
    );
    expect(execution).toMatchObject({ cookies: ["locale"], security: [[{ scheme: "session", type: "cookie", name: "sid" }]] });
    expect(params(tool)).toEqual([["locale", "string", false]]);
    // --auth-env VAR names the chosen scheme's variable (bearerAuth here), not the cookie's: a warning says so once.
    expect(result.warnings).toContainEqual({ pointer: "/components/securitySchemes/session", message: 'no variable named for security scheme "session" (--auth-env session=VAR, or --connection session for each caller\'s own): Calls send nothing for it' });
  });

  it("--auth-env VAR is the chosen scheme's variable (the provider's auth as before); the document declaring no requirement leaves tools without security", async () => {
    const declared = await only(secured({ "/a": { get: ok } }), { authEnv: "SHOP_TOKEN" });
    expect(declared.result.manifest.providers[0].auth).toEqual({ type: "bearer", env: "SHOP_TOKEN" });
    expect(declared.execution.security).toEqual([[{ scheme: "bearerAuth", type: "bearer", env: "SHOP_TOKEN" }]]);
    const undeclared = await only(doc({ "/a": { get: { parameters: [{ name: "key", in: "query", schema: { type: "string" } }], ...ok } } }, { components: { securitySchemes: { keyAuth: { type: "apiKey", in: "query", name: "key" } } } }), { authEnv: "SHOP_KEY" });
    expect(undeclared.result.manifest.providers[0].auth).toEqual({ type: "query", query: "key", env: "SHOP_KEY" });
    expect(undeclared.execution.security).toBeUndefined();
    expect(undeclared.tool.params).toEqual([]);
    expect(undeclared.result.credentials).toEqual([{ scheme: "keyAuth", type: "query", env: "SHOP_KEY", operations: 1 }]);
  });

  it("repeated --auth-env SCHEME=VAR pairs name each scheme's variable; an unknown scheme is the caller's mistake, naming the declared ones", async () => {
    expect(authEnvOptions(["bearerAuth=SLACK_TOKEN", "basicAuth=TWILIO_BASIC"])).toEqual({ schemeEnv: { bearerAuth: "SLACK_TOKEN", basicAuth: "TWILIO_BASIC" } });
    expect(authEnvOptions(["API_TOKEN", "basicAuth=TWILIO_BASIC"])).toEqual({ authEnv: "API_TOKEN", schemeEnv: { basicAuth: "TWILIO_BASIC" } });
    expect(() => authEnvOptions(["A", "B"])).toThrow(/given once/);
    expect(() => authEnvOptions(["bearerAuth=lower-case"])).toThrow(/must name an environment variable/);
    expect(() => authEnvOptions(["x=A", "x=B"])).toThrow(/names scheme "x" twice/);
    const error = await convert(secured({ "/a": { get: ok } }), { schemeEnv: { bearer: "SHOP_TOKEN" } }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenApiOptionError);
    expect((error as Error).message).toBe('--auth-env names a security scheme the document does not declare: "bearer" (it declares "bearerAuth", "basicAuth", "digestAuth", "session", "keyAuth")');
  });
});

describe("answers and names", () => {
  it("the 2XX statuses declared without content are empty successes (201, 204, 2XX); a 200 with content is not", async () => {
    const { execution } = await only(
      doc({
        "/pets": {
          post: {
            responses: {
              "200": { description: "Existing", content: { "application/json": { schema: { type: "object" } } } },
              "201": { description: "Created", headers: { Location: { schema: { type: "string" } } } },
              "204": { description: "Nothing", content: {} },
              "2XX": { description: "Other" },
              "400": { description: "Bad" },
            },
          },
        },
      }),
    );
    expect(execution.empty_success).toEqual(["201", "204", "2XX"]);
  });

  it("Swagger 2.0 responses without a schema are without content", async () => {
    const { execution } = await only({ swagger: "2.0", info: { title: "S", version: "1" }, host: "api.s.example", paths: { "/x": { delete: { responses: { "204": { description: "gone" }, "200": { description: "ok", schema: { type: "object" } } } } } } });
    expect(execution.empty_success).toEqual(["204"]);
  });

  it("a short summary is the name; a long one starts the description and the operationId (made readable) names the tool", async () => {
    const long = "Starting a new project? We recommend trying Responses to take advantage of the latest features.";
    const result = await convert(
      doc({
        "/chat": { post: { operationId: "createChatCompletion", summary: long, description: "Creates a model response.", ...body({ "application/json": { schema: { type: "object", properties: { model: { type: "string" } } } } }) } },
        "/slack": { post: { operationId: "chat.postMessage", summary: "Sends a message to a channel, with many options, threads and attachments", ...body({ "application/json": { schema: { type: "object", properties: { text: { type: "string" } } } } }) } },
        "/snake": { get: { operationId: "list_all_users", responses: {} } },
        "/short": { get: { operationId: "x", summary: "List things", responses: {} } },
        "/multi": { get: { summary: "First paragraph.\n\nSecond paragraph.", responses: {} } },
        "/bare": { get: { responses: {} } },
      }),
    );
    const names = result.manifest.providers[0].tools.map((t) => [t.name, t.description]);
    expect(names).toEqual([
      ["Create chat completion", `${long}\n\nCreates a model response.`],
      ["Chat post message", "Sends a message to a channel, with many options, threads and attachments"],
      ["List all users", ""],
      ["List things", "List things"],
      ["GET /multi", "First paragraph. Second paragraph."],
      ["GET /bare", ""],
    ]);
  });
});

describe("one broken operation costs only that operation", () => {
  it("an undeclared path parameter refuses its operation, with a pointer into the document; the others import", async () => {
    const result = await convert(doc({ "/pets/{petId}": { get: { responses: {} }, delete: { parameters: [{ name: "petId", in: "path", required: true, schema: { type: "string" } }], responses: {} } }, "/pets": { get: { responses: {} } } }));
    expect(result.skipped).toEqual([{ operation: "GET /pets/{petId}", pointer: "/paths/~1pets~1{petId}/get/parameters", reason: "path parameter {petId} of /pets/{petId} is not declared in the operation's or its path's parameters" }]);
    expect(result.manifest.providers[0].tools.map((t) => t.name)).toEqual(["DELETE /pets/{petId}", "GET /pets"]);
  });

  it("a schema the manifest refuses refuses its operation, the message pointing at the parameter in the document, never into the manifest", async () => {
    const result = await convert(doc({ "/a": { get: { parameters: [{ name: "q", in: "query", schema: { type: "string", minLength: -1 } }], responses: {} } }, "/b": { get: { responses: {} } } }));
    expect(result.skipped).toHaveLength(1);
    expect(result.skipped[0]).toMatchObject({ operation: "GET /a", pointer: "/paths/~1a/get/parameters/0", reason: expect.stringMatching(/^parameter "q" is not one Tollgate can use: json_schema is not a valid JSON Schema/) });
    expect(result.skipped[0].reason).not.toMatch(/tools\[|params\[/);
    expect(result.manifest.providers[0].tools).toHaveLength(1);
  });

  it("an empty enum is dropped with a warning pointing at it", async () => {
    const { tool, result } = await only(doc({ "/a": { get: { parameters: [{ name: "kind", in: "query", schema: { type: "string", enum: [] } }], responses: {} } } }));
    expect(tool.params).toEqual([{ name: "kind", type: "string", required: false, description: "" }]);
    expect(result.warnings).toEqual([{ pointer: "/paths/~1a/get/parameters/0/schema/enum", message: "an empty enum allows no value: ignored" }]);
  });

  it("a webhooks-only 3.1 document (no paths) imports a provider without tools, with a warning; a 3.0 one without paths is refused", async () => {
    const hooks = { openapi: "3.1.0", info: { title: "Hooks", version: "1" }, servers: [{ url: "https://hooks.example" }], webhooks: { ping: { post: { responses: { "200": { description: "ok" } } } } } };
    const result = await convert(hooks);
    expect(result.operations).toBe(0);
    expect(result.manifest.providers[0].tools).toEqual([]);
    expect(result.warnings.map((w) => w.pointer)).toEqual(["/paths", "/webhooks"]);
    const error = await convert({ ...hooks, openapi: "3.0.3" }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ManifestError);
    expect((error as Error).message).toContain("/paths: the document has no paths object");
  });

  it("HEAD, OPTIONS and TRACE stay skipped, each with its reason", async () => {
    const result = await convert(doc({ "/a": { head: { responses: {} }, options: { responses: {} }, trace: { responses: {} }, get: { responses: {} } } }));
    expect(result.skipped.map((s) => s.operation)).toEqual(["OPTIONS /a", "HEAD /a", "TRACE /a"]);
    expect(result.manifest.providers[0].tools).toHaveLength(1);
  });
});
