import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type HttpExecution, ManifestError, type ToolManifest, parameterIssues } from "../manifest";
import { manifestFromOpenApi } from "./convert";
import { restPathId, toolAlpacaFunctionName } from "./ids";
import { parseApiText } from "./read";
import type { OpenApiImportOptions } from "./types";

const CATALOG = path.resolve("../shared/catalog");
const OPENAPI = path.join(CATALOG, "openapi");
const FIXTURES = path.resolve("lib/catalog/openapi/fixtures");

const document = (file: string) => parseApiText(fs.readFileSync(file, "utf8"), file);
const convert = (file: string, options: Partial<OpenApiImportOptions> = {}) => manifestFromOpenApi(document(file), { origin: file, ...options });
const execution = (tool: ToolManifest) => tool.execution as HttpExecution;
const byOperation = (tools: ToolManifest[], operationId: string) => tools.find((t) => execution(t).operation_id === operationId)!;

/** Tool ids of one source in the public catalog (the ids its queries' gold names). */
function catalogIds(source: string): string[] {
  return fs
    .readFileSync(path.join(CATALOG, "tools.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; source: string })
    .filter((t) => t.source === source)
    .map((t) => t.id);
}

/** Rejects with a ManifestError; returns its message. */
async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(ManifestError);
  return (error as ManifestError).message;
}

describe("the RestBench documents", () => {
  it.each([
    ["restbench-tmdb", 54],
    ["restbench-spotify", 40],
  ])("%s: every operation is a tool, and its method and path give the public catalog's id", async (source, operations) => {
    const started = Date.now();
    const result = await convert(path.join(OPENAPI, `${source}.json`), { providerId: source, source, authEnv: "API_TOKEN" });
    const tools = result.manifest.providers[0].tools;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.operations).toBe(operations);
    expect(result.skipped).toEqual([]);
    expect(tools).toHaveLength(operations);
    // The provider's source is every tool's (importCatalog copies it).
    expect(result.manifest.providers[0].source).toBe(source);
    expect(tools.every((t) => t.id.startsWith(`${source}:`))).toBe(true);
    const goldIds = tools.map((t) => `${source}:${restPathId(execution(t).method, execution(t).path)}`);
    expect(goldIds.sort()).toEqual(catalogIds(source).sort());
  });

  it("TMDB: the apiKey in the query is the provider's credential, not a parameter of each tool", async () => {
    const { manifest } = await convert(path.join(OPENAPI, "restbench-tmdb.json"), { providerId: "tmdb", authEnv: "TMDB_KEY" });
    const provider = manifest.providers[0];
    expect(provider).toMatchObject({ transport: "http", base_url: "https://api.themoviedb.org/3", auth: { type: "query", query: "api_key", env: "TMDB_KEY" } });
    const credits = provider.tools.find((t) => execution(t).path === "/movie/{movie_id}/credits")!;
    expect(credits).toMatchObject({ id: "tmdb:GET_movie-movie_id-credits", name: "Get Credits", description: "Get Credits\n\nGet the cast and crew for a movie." });
    expect(credits.params).toEqual([{ name: "movie_id", type: "integer", required: true, description: "" }]);
    expect(provider.tools.some((t) => t.params.some((p) => p.name === "api_key"))).toBe(false);
    // Markdown tables and links become text.
    const person = provider.tools.find((t) => execution(t).path === "/person/{person_id}")!;
    expect(person.description).toContain("Recent Changes");
    expect(person.description).not.toMatch(/\*\*|\]\(|\| -/);
  });

  it("Spotify: oauth2 is a bearer token, HTML is plain text, a name in both the query and the body is kept twice", async () => {
    const { manifest } = await convert(path.join(OPENAPI, "restbench-spotify.json"), { providerId: "spotify", authEnv: "SPOTIFY_TOKEN" });
    const provider = manifest.providers[0];
    expect(provider.auth).toEqual({ type: "bearer", env: "SPOTIFY_TOKEN" });
    const texts = provider.tools.flatMap((t) => [t.description, ...t.params.map((p) => p.description)]);
    expect(texts.join("\n")).not.toMatch(/<br|<\/?[a-z]+>|\]\(\/documentation|&amp;/);
    const save = byOperation(provider.tools, "save-albums-user");
    expect(save.params.map((p) => [p.name, p.type, p.required])).toEqual([
      ["ids", "string", true],
      ["body_ids", "array", false],
    ]);
    expect(execution(save)).toMatchObject({ method: "PUT", path: "/me/albums", query: ["ids"], body: "json", wire_names: { body_ids: "ids" } });
    // A nested body field keeps its schema: Probe and Call check inside it.
    const remove = byOperation(provider.tools, "remove-tracks-playlist");
    const tracks = remove.params.find((p) => p.name === "tracks")!;
    expect(tracks.json_schema).toMatchObject({ type: "array", items: { type: "object", properties: { uri: { type: "string" } } } });
    expect(parameterIssues(remove.params, undefined, { playlist_id: "p1", tracks: [{ uri: "spotify:track:1" }] })).toEqual([]);
    expect(parameterIssues(remove.params, undefined, { playlist_id: "p1", tracks: [{ uri: 7 }] })).toEqual([{ message: '"tracks[0].uri" must be string', path: ["tracks", 0, "uri"], type: "value_error" }]);
  });
});

describe("the ToolAlpaca documents", () => {
  const files = fs.readdirSync(path.join(OPENAPI, "toolalpaca")).sort();

  it("all 21 import, and every ToolAlpaca tool of the public catalog names one imported operation", async () => {
    expect(files).toHaveLength(21);
    const functions = new Map<string, Set<string>>();
    for (const file of files) {
      const api = file.replace(/\.json$/, "");
      const result = await convert(path.join(OPENAPI, "toolalpaca", file), { providerId: api, source: "toolalpaca" });
      expect(result.manifest.providers[0].tools.length, api).toBe(result.operations - result.skipped.length);
      functions.set(api, new Set(result.manifest.providers[0].tools.map((t) => toolAlpacaFunctionName(execution(t)))));
    }
    const gold = catalogIds("toolalpaca");
    expect(gold).toHaveLength(94);
    const missing = gold.filter((id) => {
      const [, api, fn] = /^toolalpaca:([^.]+)\.(.+)$/.exec(id)!;
      return !functions.get(api)?.has(fn);
    });
    expect(missing).toEqual([]);
  });

  it("what is odd in them is read and reported, not fatal", async () => {
    const aviation = await convert(path.join(OPENAPI, "toolalpaca", "aviationapi.json"));
    // Its error schema is nested under paths, so the responses' $refs resolve to nothing: the import does not read responses.
    expect(aviation.warnings.filter((w) => /Missing \$ref pointer.*does not read/.test(w.message)).length).toBeGreaterThan(0);
    expect(aviation.warnings.map((w) => w.pointer)).toContain("/paths/~1preferred-routes/~1weather~1taf");
    const fruit = await convert(path.join(OPENAPI, "toolalpaca", "fruityvice.json"));
    expect(execution(byOperation(fruit.manifest.providers[0].tools, "getFruitByName")).path).toBe("/api/fruit/{name}");
    expect(fruit.warnings).toContainEqual({ pointer: "/paths/api~1fruit~1{name}", message: 'path "api/fruit/{name}" does not start with /: read as "/api/fruit/{name}"' });
    const cats = await convert(path.join(OPENAPI, "toolalpaca", "cataas.json"));
    expect(cats.manifest.providers[0].tools).toHaveLength(7);
    expect(cats.warnings).toContainEqual({ pointer: "/paths/~1cat~1{tag}/get", message: "GET /cat/{tag} has the same URL shape as GET /cat/{id}: the API cannot tell them apart" });
    const chuck = await convert(path.join(OPENAPI, "toolalpaca", "chucknorris-io.json"));
    const random = chuck.manifest.providers[0].tools.find((t) => execution(t).path === "/jokes/random/{category}")!;
    expect(random.params[0]).toMatchObject({ name: "category", required: true });
  });
});

describe("Swagger 2.0 (the Swagger Petstore)", () => {
  it("is converted: host and basePath give the base URL, body parameters the body fields, form data a form or multipart body", async () => {
    const result = await convert(path.join(FIXTURES, "petstore-swagger2.json"), { authEnv: "PETSTORE_TOKEN", priceCredits: 0.25 });
    const provider = result.manifest.providers[0];
    expect(provider).toMatchObject({ id: "swagger-petstore", name: "Swagger Petstore", base_url: "https://petstore.swagger.io/v2", auth: { type: "bearer", env: "PETSTORE_TOKEN" } });
    expect(result.skipped).toEqual([]);
    const upload = byOperation(provider.tools, "uploadFile");
    expect(execution(upload)).toMatchObject({ body: "multipart", body_types: [{ media_type: "multipart/form-data", kind: "multipart" }], files: ["file"] });
    // Swagger 2.0 form fields are required one by one: the converted body is optional, its fields still required.
    expect(upload.params.map((p) => [p.name, p.type, p.required])).toEqual([
      ["petId", "integer", true],
      ["additionalMetadata", "string", false],
      ["file", "string", true],
    ]);
    const form = byOperation(provider.tools, "updatePetWithForm");
    expect(execution(form)).toMatchObject({ body: "form", body_types: [{ media_type: "application/x-www-form-urlencoded", kind: "form" }] });
    expect(form.params.map((p) => p.name)).toEqual(["petId", "name", "status"]);
    const addPet = byOperation(provider.tools, "addPet");
    expect(addPet.params.filter((p) => p.required).map((p) => p.name)).toEqual(["name", "photoUrls"]);
    expect(addPet.billing_rule).toEqual({ unit: "call", amount_credits: 0.25 });
    expect(execution(byOperation(provider.tools, "createUsersWithArrayInput"))).toMatchObject({ body: "json", body_param: "body" });
    expect(byOperation(provider.tools, "getOrderById").params[0]).toMatchObject({ name: "orderId", minimum: 1, maximum: 10 });
  });
});

describe("an OpenAPI 3.1 YAML document with a circular schema", () => {
  const file = path.join(FIXTURES, "category-tree.openapi.yaml");

  it("unrolls the recursion a bounded number of times and still validates inside it", async () => {
    const { manifest } = await convert(file);
    const create = byOperation(manifest.providers[0].tools, "createCategory");
    expect(create.params.map((p) => p.name)).toEqual(["name", "parent", "children"]);
    const size = JSON.stringify(create.params).length;
    expect(size).toBeLessThan(20_000);
    const deep = { name: "a", children: [{ name: "b", children: [{ name: "" }] }] };
    expect(parameterIssues(create.params, undefined, deep)).toEqual([{ message: '"children[0].children[0].name" must NOT have fewer than 1 characters', path: ["children", 0, "children", 0, "name"], type: "value_error" }]);
    expect(parameterIssues(create.params, undefined, { name: "root", parent: null })).toEqual([]);
  });

  it("maps servers, basic auth, styles and headers, and reports what it leaves out", async () => {
    const result = await convert(file, { authEnv: "TREE_CREDENTIALS" });
    const provider = result.manifest.providers[0];
    expect(provider).toMatchObject({ base_url: "https://eu.tree.example/v2", auth: { type: "basic", env: "TREE_CREDENTIALS" }, categories: ["categories"] });
    expect(provider.description).toBe("Manages a tree of categories.\nEach category may hold children; see the guide.");
    expect(execution(byOperation(provider.tools, "listCategories"))).toEqual({
      method: "GET",
      path: "/categories",
      query: ["filter", "ids"],
      headers: ["X-Request-Id"],
      cookies: ["session"],
      body: "none",
      styles: { filter: { style: "deepObject", explode: true }, ids: { style: "pipeDelimited", explode: false } },
      security: [[{ scheme: "basicAuth", type: "basic", env: "TREE_CREDENTIALS" }]],
      operation_id: "listCategories",
    });
    // A binary body is one file param sent raw with its media type.
    expect(execution(byOperation(provider.tools, "uploadCategoryIcon"))).toMatchObject({ body: "raw", body_types: [{ media_type: "image/png", kind: "raw" }], body_param: "body", files: ["body"], empty_success: ["204"] });
    expect(result.skipped.map((s) => [s.operation, s.reason])).toEqual([["HEAD /categories/{id}", "HEAD is not a method Tollgate calls (GET, POST, PUT, PATCH, DELETE)"]]);
    expect(result.warnings.map((w) => w.pointer)).toEqual(["/paths/~1categories/post/callbacks", "/webhooks"]);
    expect(result.credentials).toEqual([{ scheme: "basicAuth", type: "basic", env: "TREE_CREDENTIALS", operations: 4 }]);
  });
});

describe("a document without servers of its own", () => {
  it("takes the server its operations declare most often, and operations declaring another keep theirs", async () => {
    const fax = { servers: [{ url: "https://fax.example.com" }] };
    const doc = {
      openapi: "3.0.1",
      info: { title: "Faxes", version: "1" },
      paths: {
        "/v1/Faxes": { ...fax, get: { operationId: "ListFax", responses: { 200: { description: "OK" } } }, post: { operationId: "CreateFax", responses: { 201: { description: "Created" } } } },
        "/v1/Faxes/{Sid}": { ...fax, delete: { operationId: "DeleteFax", parameters: [{ in: "path", name: "Sid", required: true, schema: { type: "string" } }], responses: { 204: { description: "Deleted" } } } },
        "/v1/Media": { get: { operationId: "ListMedia", servers: [{ url: "https://media.example.com" }], responses: { 200: { description: "OK" } } } },
      },
    };
    const result = await manifestFromOpenApi(doc, { origin: "fax.json" });
    const provider = result.manifest.providers[0];
    expect(provider.base_url).toBe("https://fax.example.com");
    expect(result.skipped).toEqual([]);
    expect(result.warnings).toContainEqual({ pointer: "/servers", message: expect.stringContaining("the one its operations declare most often (https://fax.example.com, 3 of 4)") });
    expect(execution(byOperation(provider.tools, "ListFax")).base_url).toBeUndefined();
    expect(execution(byOperation(provider.tools, "ListMedia")).base_url).toBe("https://media.example.com");
    expect(execution(byOperation(provider.tools, "DeleteFax")).empty_success).toEqual(["204"]);
  });
});

describe("documents that cannot be imported", () => {
  const minimal = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ openapi: "3.0.3", info: { title: "Broken", version: "1" }, servers: [{ url: "https://api.example" }], paths, ...extra });

  it("name the file and the JSON Pointer of every problem: an unresolvable $ref where the import reads", async () => {
    const broken = minimal({
      "/pets": { post: { requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } }, responses: {} } },
      "/toys": { post: { requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Toy" } } } }, responses: {} } },
    });
    const message = await failure(manifestFromOpenApi(broken, { origin: "broken.json" }));
    expect(message).toContain("Cannot import OpenAPI document broken.json (2 issues)");
    expect(message).toContain('/paths/~1pets/post/requestBody/content/application~1json/schema: Missing $ref pointer "#/components/schemas/Pet"');
    expect(message).toContain('/paths/~1toys/post/requestBody/content/application~1json/schema: Missing $ref pointer "#/components/schemas/Toy"');
  });

  it("refuse external $refs, a relative server without a base URL, unknown versions and unknown price keys", async () => {
    const external = minimal({ "/a": { get: { parameters: [{ $ref: "common.yaml#/parameters/Page" }], responses: {} } } });
    expect(await failure(manifestFromOpenApi(external, { origin: "x.json" }))).toContain("/paths/~1a/get/parameters/0/$ref: external $ref");
    const relative = minimal({ "/a": { get: { responses: {} } } }, { servers: [{ url: "/v1" }] });
    expect(await failure(manifestFromOpenApi(relative, { origin: "x.json" }))).toContain('/servers/0/url: the server URL "/v1" is relative: give --base-url');
    const fromUrl = await manifestFromOpenApi(relative, { origin: "u", documentUrl: "https://docs.example/api/openapi.json" });
    expect(fromUrl.manifest.providers[0].base_url).toBe("https://docs.example/v1");
    expect(await failure(manifestFromOpenApi({ swagger: "1.2" }, { origin: "old.json" }))).toContain('/swagger: not an OpenAPI 3.0/3.1 or Swagger 2.0 document (version "1.2")');
    const priced = minimal({ "/a": { get: { operationId: "getA", responses: {} } } });
    expect(await failure(manifestFromOpenApi(priced, { origin: "x.json", pricePerOperation: { getB: 1 } }))).toContain("(--price-per-operation) getB: names no imported operation");
    const rules = await manifestFromOpenApi(priced, { origin: "x.json", pricePerOperation: { getA: { unit: "per_unit", amount_credits: 0.5, quantity_from: "result_items", max_units: 4 } } });
    expect(rules.manifest.providers[0].tools[0].billing_rule).toEqual({ unit: "per_unit", amount_credits: 0.5, quantity_from: "result_items", max_units: 4 });
    const measuring = manifestFromOpenApi(priced, { origin: "x.json", pricePerOperation: { getA: { unit: "per_unit", amount_credits: 0.5, quantity_from: "param_length", quantity_param: "text" } } });
    expect(await failure(measuring)).toContain('(--price-per-operation) getA: quantity_param names unknown parameter "text"');
  });
});
