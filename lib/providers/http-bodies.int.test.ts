import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importCatalog } from "../catalog/import";
import { manifestFromOpenApi } from "../catalog/openapi/convert";
import { invalidateToolCache } from "../catalog/get-tool";
import { executions } from "../db/schema";
import type { Database } from "../db/types";
import { createTestDatabase } from "../testing/database";
import { callApi, seedAccount } from "../testing/fixtures";
import { formDataOf, startByteReceiver, type ByteReceiver } from "../testing/byte-receiver";
import { startTestServer, type TestServer } from "../testing/server";

/**
 * The receiver answers a create of a pet with 201, a Location and no body, a PATCH with 204 (writes
 * that return nothing), anything else with a small JSON echo.
 */
function startReceiver() {
  return startByteReceiver((req, res) => {
    if (req.method === "PATCH") {
      res.writeHead(204);
      res.end();
      return true;
    }
    if (req.method === "POST" && req.path === "/v1/pets") {
      res.writeHead(201, { location: "/v1/pets/42" });
      res.end();
      return true;
    }
    return false;
  });
}

/**
 * A small API as publishers write them: bearer by default; a form body with a nested object
 * (deepObject) under basic auth; a multipart upload with a file and a JSON part, on its own server,
 * authenticated by a cookie key; a JSON create answering 201 without content, under a header key;
 * a note offered as JSON or a form; a JSON patch answering 204; an open health check
 * (`security: []`); and an operation whose scheme's variable is never set.
 */
function uploadShopDocument(receiver: string) {
  const json = (schema: object) => ({ content: { "application/json": { schema } } });
  const ok = { "200": { description: "OK", ...json({ type: "object" }) } };
  return {
    openapi: "3.0.3",
    info: { title: "Upload Shop", version: "1.0" },
    servers: [{ url: `${receiver}/v1` }],
    security: [{ bearerAuth: [] }],
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer" },
        basicAuth: { type: "http", scheme: "basic" },
        sessionKey: { type: "apiKey", in: "cookie", name: "session" },
        headerKey: { type: "apiKey", in: "header", name: "X-Api-Key" },
        adminToken: { type: "apiKey", in: "header", name: "X-Admin" },
      },
    },
    paths: {
      "/items": {
        post: {
          operationId: "createItem",
          summary: "Create an item",
          requestBody: { required: true, ...json({ type: "object", required: ["name"], properties: { name: { type: "string" }, tags: { type: "array", items: { type: "string" } } } }) },
          responses: ok,
        },
      },
      "/messages": {
        post: {
          operationId: "postMessage",
          summary: "Post a message to a channel",
          security: [{ basicAuth: [] }],
          requestBody: {
            required: true,
            content: {
              "application/x-www-form-urlencoded": {
                schema: {
                  type: "object",
                  required: ["channel", "text"],
                  properties: {
                    channel: { type: "string" },
                    text: { type: "string" },
                    metadata: { type: "object", properties: { event_type: { type: "string" }, payload: { type: "object", properties: { id: { type: "integer" }, tag: { type: "string" } } } } },
                    mentions: { type: "array", items: { type: "string" } },
                  },
                },
                encoding: { metadata: { style: "deepObject", explode: true } },
              },
            },
          },
          responses: ok,
        },
      },
      "/files": {
        servers: [{ url: `${receiver}/upload` }],
        post: {
          operationId: "uploadFile",
          summary: "Upload a file",
          security: [{ sessionKey: [] }],
          requestBody: {
            required: true,
            content: {
              "multipart/form-data": {
                schema: {
                  type: "object",
                  required: ["file", "attributes"],
                  properties: {
                    file: { type: "string", format: "binary" },
                    attributes: { type: "object", properties: { name: { type: "string" }, parent: { type: "object", properties: { id: { type: "string" } } } } },
                    purpose: { type: "string" },
                  },
                },
                encoding: { file: { contentType: "image/png" } },
              },
            },
          },
          responses: ok,
        },
      },
      "/pets": {
        post: {
          operationId: "createPet",
          summary: "Create a pet",
          security: [{ headerKey: [] }],
          requestBody: { required: true, ...json({ type: "object", required: ["name"], properties: { name: { type: "string" } } }) },
          responses: { "201": { description: "Created", headers: { Location: { schema: { type: "string" } } } } },
        },
      },
      "/notes": {
        post: {
          operationId: "createNote",
          summary: "Create a note",
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: { type: "object", required: ["title"], properties: { title: { type: "string" }, labels: { type: "array", items: { type: "string" } } } } },
              "application/x-www-form-urlencoded": { schema: { type: "object", required: ["title"], properties: { title: { type: "string" }, labels: { type: "array", items: { type: "string" } } } } },
            },
          },
          responses: ok,
        },
      },
      "/notes/{id}": {
        patch: {
          operationId: "patchNote",
          summary: "Patch a note",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          requestBody: { required: true, content: { "application/json-patch+json": { schema: { type: "array", items: { type: "object" } } } } },
          responses: { "204": { description: "Patched" } },
        },
      },
      "/health": { get: { operationId: "health", summary: "Check health", security: [], responses: ok } },
      "/admin/purge": { post: { operationId: "purge", summary: "Purge the cache", security: [{ adminToken: [] }], responses: ok } },
    },
  };
}

const SECRETS = { UPLOAD_SHOP_TOKEN: "tok-bearer-1", UPLOAD_SHOP_BASIC: "ann:pw-basic-1", UPLOAD_SHOP_SESSION: "sess-cookie-1", UPLOAD_SHOP_KEY: "key-header-1" };
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a5a90000000049454e44ae426082", "hex");

let database: Database;
let server: TestServer;
let receiver: ByteReceiver;
let apiKey: string;
let accessToken: string;
let imported: Awaited<ReturnType<typeof manifestFromOpenApi>>;

const call = (toolId: string, parameters: Record<string, unknown>) => callApi(server.url, "POST", "/tools/execute", apiKey, { tool_id: toolId, parameters });
const lastSent = () => receiver.received.at(-1)!;

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startReceiver();
  Object.assign(process.env, SECRETS);
  delete process.env.UPLOAD_SHOP_ADMIN;
  imported = await manifestFromOpenApi(uploadShopDocument(receiver.url), {
    origin: "upload-shop.json",
    allowPrivateNetwork: true,
    schemeEnv: { bearerAuth: "UPLOAD_SHOP_TOKEN", basicAuth: "UPLOAD_SHOP_BASIC", sessionKey: "UPLOAD_SHOP_SESSION", headerKey: "UPLOAD_SHOP_KEY", adminToken: "UPLOAD_SHOP_ADMIN" },
    pricePerOperation: { createItem: 1, postMessage: 1, uploadFile: 1, createPet: 2, health: 0.5, purge: 1, createNote: 1, patchNote: 1 },
  });
  await importCatalog(database.db, imported.manifest, { retireMissing: true });
  server = await startTestServer(database);
  invalidateToolCache(database.db);
  ({ apiKey, accessToken } = await seedAccount(database.db, { credits: "20" }));
});

afterAll(async () => {
  await receiver?.close();
  for (const name of Object.keys(SECRETS)) delete process.env[name];
});

describe("an OpenAPI document with form, multipart and JSON bodies, imported through the converter", () => {
  it("imports every operation, none skipped", () => {
    expect(imported.skipped).toEqual([]);
    expect(imported.manifest.providers[0].tools.map((t) => t.id).sort()).toEqual(
      ["createItem", "createNote", "createPet", "health", "patchNote", "postMessage", "purge", "uploadFile"].map((op) => `upload-shop:${op}`),
    );
  });
});

describe("Calls arrive as the document declares them, with each operation's credentials", () => {
  it("a JSON body, with the default scheme's bearer token", async () => {
    const { body } = await call("upload-shop:createItem", { name: "lamp", tags: ["a", "b"] });
    expect(body).toMatchObject({ success: true, cost: 1, execution_outcome: { reason_code: "result.valid", charge_outcome: "charged" } });
    const sent = lastSent();
    expect(sent).toMatchObject({ method: "POST", path: "/v1/items", query: "" });
    expect(sent.headers["content-type"]).toBe("application/json");
    expect(sent.headers.authorization).toBe("Bearer tok-bearer-1");
    expect(JSON.parse(sent.body.toString("utf8"))).toEqual({ name: "lamp", tags: ["a", "b"] });
  });

  it("a form body with a nested object (deepObject) and an exploded array, with the operation's basic credential", async () => {
    const { body } = await call("upload-shop:postMessage", { channel: "C1", text: "hello world & co", metadata: { event_type: "greeting", payload: { id: 7, tag: "a b" } }, mentions: ["U1", "U2"] });
    expect(body).toMatchObject({ success: true, cost: 1 });
    const sent = lastSent();
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(sent.headers.authorization).toBe(`Basic ${Buffer.from("ann:pw-basic-1").toString("base64")}`);
    expect(sent.body.toString("utf8")).toBe(
      "channel=C1&text=hello+world+%26+co&metadata%5Bevent_type%5D=greeting&metadata%5Bpayload%5D%5Bid%5D=7&metadata%5Bpayload%5D%5Btag%5D=a+b&mentions=U1&mentions=U2",
    );
  });

  it("a multipart upload on the operation's own server: the file's bytes and part headers exactly, a JSON part, the cookie credential", async () => {
    const attributes = { name: "pixel.png", parent: { id: "0" } };
    const { body } = await call("upload-shop:uploadFile", { file: `data:image/png;base64,${PNG.toString("base64")}`, attributes, purpose: "avatar" });
    expect(body).toMatchObject({ success: true, cost: 1 });
    const sent = lastSent();
    expect(sent.path).toBe("/upload/files");
    expect(sent.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=\S+$/);
    expect(sent.headers.cookie).toBe("session=sess-cookie-1");
    expect(sent.headers.authorization).toBeUndefined();
    const raw = sent.body.toString("latin1");
    expect(raw).toContain(`Content-Disposition: form-data; name="file"; filename="file.png"\r\nContent-Type: image/png\r\n\r\n${PNG.toString("latin1")}\r\n`);
    expect(raw).toContain(`Content-Disposition: form-data; name="attributes"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(attributes)}\r\n`);
    const form = await formDataOf(sent);
    const file = form.get("file") as File;
    expect({ name: file.name, type: file.type }).toEqual({ name: "file.png", type: "image/png" });
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG);
    // A typed part without a filename is a field to the parser, not an upload.
    expect(JSON.parse(form.get("attributes") as string)).toEqual(attributes);
    expect(form.get("purpose")).toBe("avatar");
    // The execution keeps the file's size and digest, never its bytes.
    const [row] = await database.db.select({ parameters: executions.parameters }).from(executions).where(eq(executions.id, body.execution_id));
    expect(row.parameters).toEqual({ file: { file: true, bytes: PNG.length, sha256: createHash("sha256").update(PNG).digest("hex"), type: "image/png" }, attributes, purpose: "avatar" });
  });

  it("the Call picks the body's media type among those declared (JSON by default); the choosing parameter is never sent", async () => {
    await call("upload-shop:createNote", { title: "a note", labels: ["x", "y"] });
    expect(lastSent().headers["content-type"]).toBe("application/json");
    expect(JSON.parse(lastSent().body.toString("utf8"))).toEqual({ title: "a note", labels: ["x", "y"] });
    const { body } = await call("upload-shop:createNote", { title: "a note", labels: ["x", "y"], content_type: "application/x-www-form-urlencoded" });
    expect(body).toMatchObject({ success: true, cost: 1 });
    expect(lastSent().headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(lastSent().body.toString("utf8")).toBe("title=a+note&labels=x&labels=y");
  });

  it("a JSON media type of its own (json-patch) is sent as declared; its declared 204 without content is a success", async () => {
    const ops = [{ op: "replace", path: "/title", value: "renamed" }];
    const { body } = await call("upload-shop:patchNote", { id: "n1", body: ops });
    expect(body).toMatchObject({ success: true, cost: 1, result: { data: { status: 204 } }, execution_outcome: { reason_code: "result.valid", charge_outcome: "charged", http_status: 204 } });
    const sent = lastSent();
    expect(sent).toMatchObject({ method: "PATCH", path: "/v1/notes/n1" });
    expect(sent.headers["content-type"]).toBe("application/json-patch+json");
    expect(JSON.parse(sent.body.toString("utf8"))).toEqual(ops);
  });

  it("security: [] sends no credential at all", async () => {
    const { body } = await call("upload-shop:health", {});
    expect(body).toMatchObject({ success: true });
    const sent = lastSent();
    expect(sent.path).toBe("/v1/health");
    expect([sent.headers.authorization, sent.headers.cookie, sent.headers["x-api-key"]]).toEqual([undefined, undefined, undefined]);
  });

  it("a scheme whose variable is unset: provider.error naming it, not charged, nothing reaches the receiver", async () => {
    const before = receiver.received.length;
    const { status, body } = await call("upload-shop:purge", {});
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: false, cost: 0, execution_outcome: { reason_code: "provider.error", charge_outcome: "failed_not_charged" } });
    expect(body.error_message).toContain('UPLOAD_SHOP_ADMIN (scheme "adminToken", header)');
    expect(receiver.received.length).toBe(before);
    for (const secret of Object.values(SECRETS)) expect(JSON.stringify(body)).not.toContain(secret);
  });

  it("a file that does not decode is refused by validation before reserving (422, not charged, nothing sent); Probe says the same", async () => {
    const before = receiver.received.length;
    const { status, body } = await call("upload-shop:uploadFile", { file: "not base64 at all!", attributes: {} });
    expect(status).toBe(422);
    expect(body).toMatchObject({ success: false, cost: 0, details: [{ type: "file_invalid", loc: ["body", "parameters", "file"] }] });
    const probe = await callApi(server.url, "POST", "/tools/probe?tool_id=upload-shop:uploadFile", apiKey, { parameters: { file: "https://files.example/a.png", attributes: {} }, checks: ["schema"] });
    expect(probe.body).toMatchObject({ executed: false, schema: { valid: false, details: [{ type: "file_url_not_allowed", loc: ["body", "parameters", "file"] }] } });
    expect(receiver.received.length).toBe(before);
  });
});

describe("a write that answers 201 without content", () => {
  it("is a success, charged per its rule, its usage event and ledger row linked as for any Call", async () => {
    const { body } = await call("upload-shop:createPet", { name: "Rex" });
    expect(body).toMatchObject({
      success: true,
      cost: 2,
      result: { data: { status: 201, location: "/v1/pets/42" } },
      execution_outcome: { reason_code: "result.valid", charge_outcome: "charged", http_status: 201 },
    });
    expect(lastSent().headers["x-api-key"]).toBe("key-header-1");
    const executionId: string = body.execution_id;
    const usage = await callApi(server.url, "GET", `/auth/usage/history/v2?execution_id=${executionId}&include_details=true`, accessToken);
    const [event] = usage.body.data.items;
    expect(event).toMatchObject({ execution_id: executionId, charge_outcome: "charged", credits_ledger_entry_id: expect.stringMatching(/^led_/) });
    const ledger = await callApi(server.url, "GET", `/auth/credits/ledger/${event.credits_ledger_entry_id}`, accessToken);
    expect(ledger.body.data).toMatchObject({ execution_id: executionId, amount_credits: -2 });
  });
});
