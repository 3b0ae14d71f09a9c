import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { runCommand } from "../../cli/commands";
import { tools } from "../../db/schema";
import type { Database } from "../../db/types";
import { createTestDatabase } from "../../testing/database";
import { callApi, seedAccount } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/server";
import { invalidateToolCache } from "../get-tool";

/** What the API received: method, raw path and query, headers and the JSON body. */
interface Received {
  method: string;
  path: string;
  query: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** A pet shop API on 127.0.0.1 that serves its own OpenAPI document and records every request to it. */
async function startPetShop(): Promise<{ url: string; received: Received[]; setDocument(doc: object): void; close(): Promise<void> }> {
  const received: Received[] = [];
  let document: object = {};
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const [pathname, query = ""] = (req.url ?? "/").split("?");
      const text = Buffer.concat(chunks).toString("utf8");
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (pathname === "/openapi.json") return answer(200, document);
      const body = text ? (JSON.parse(text) as unknown) : undefined;
      received.push({ method: req.method ?? "", path: pathname, query, headers: req.headers, body });
      if (req.headers["x-api-key"] !== "s3cret") return answer(401, { error: "no key" });
      if (req.method === "GET" && pathname.startsWith("/v1/pets/")) return answer(200, { id: decodeURIComponent(pathname.slice(9)), name: "Rex" });
      if (req.method === "POST" && pathname === "/v1/pets") return answer(201, { created: body });
      if (req.method === "PUT" && pathname === "/v1/albums") return answer(200, { saved: true });
      answer(404, { error: "no route" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    setDocument: (doc) => void (document = doc),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The pet shop's document: a relative server, an API key header, a nested body, a name both in the query and the body. */
function petShopDocument() {
  return {
    openapi: "3.0.3",
    info: { title: "Pet Shop", version: "1.0", description: "Pets and <b>albums</b>." },
    servers: [{ url: "/v1" }],
    security: [{ key: [] }],
    components: {
      securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Api-Key" } },
      schemas: {
        Owner: {
          type: "object",
          required: ["name", "address"],
          properties: {
            name: { type: "string", minLength: 1 },
            address: { type: "object", required: ["zip"], properties: { zip: { type: "string", pattern: "^[0-9]{5}$" }, city: { type: "string" } } },
          },
        },
      },
    },
    paths: {
      "/pets/{petId}": {
        parameters: [{ name: "petId", in: "path", required: true, schema: { type: "string" } }],
        get: {
          operationId: "getPet",
          summary: "Get a pet",
          parameters: [
            { name: "tags", in: "query", schema: { type: "array", items: { type: "string" } } },
            { name: "X-Trace", in: "header", schema: { type: "string" } },
          ],
          responses: { "200": { description: "The pet", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
      "/pets": {
        post: {
          operationId: "createPet",
          summary: "Create a pet",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: { type: "object", required: ["name", "owner"], properties: { name: { type: "string" }, owner: { $ref: "#/components/schemas/Owner" }, tags: { type: "array", items: { type: "string" } } } },
              },
            },
          },
          responses: { "201": { description: "Created" } },
        },
      },
      "/albums": {
        put: {
          operationId: "saveAlbums",
          summary: "Save albums",
          parameters: [{ name: "ids", in: "query", required: true, schema: { type: "string" } }],
          requestBody: { content: { "application/json": { schema: { type: "object", properties: { ids: { type: "array", items: { type: "string" } } } } } } },
          responses: { "200": { description: "Saved" } },
        },
      },
    },
  };
}

let database: Database;
let server: TestServer;
let shop: Awaited<ReturnType<typeof startPetShop>>;
let priceFile: string;
let documentUrl: string;

const importArgs = (...extra: string[]) => ["providers", "import", "--openapi", documentUrl, "--auth-env", "PETSHOP_KEY", "--source", "petshop", ...extra];
const withPrices = (prices: Record<string, number>) => {
  fs.writeFileSync(priceFile, JSON.stringify(prices));
  return ["--price-per-operation", priceFile];
};
const PRICES = { getPet: 1, createPet: 2, "pet-shop:saveAlbums": 0.5 };
const call = (apiKey: string, toolId: string, parameters: Record<string, unknown>) => callApi(server.url, "POST", "/tools/execute", apiKey, { tool_id: toolId, parameters });

beforeAll(async () => {
  database = await createTestDatabase();
  shop = await startPetShop();
  shop.setDocument(petShopDocument());
  documentUrl = `${shop.url}/openapi.json`;
  priceFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-openapi-")), "prices.json");
  process.env.PETSHOP_KEY = "s3cret";
  server = await startTestServer(database);
});

afterAll(async () => {
  await shop?.close();
  delete process.env.PETSHOP_KEY;
  if (priceFile) fs.rmSync(path.dirname(priceFile), { recursive: true, force: true });
});

describe("providers import --openapi URL", () => {
  it("fetches the document through the outbound address guard: a loopback URL needs --allow-private-network", async () => {
    await expect(runCommand(database.db, importArgs(...withPrices(PRICES)))).rejects.toThrow(/127\.0\.0\.1 is not a public address.*--allow-private-network/);
    expect(await database.db.select().from(tools)).toEqual([]);
  });

  it("imports every operation, resolving the relative server against the document's URL, and reports what it did", async () => {
    const result = await runCommand(database.db, importArgs("--allow-private-network", ...withPrices(PRICES)));
    expect(result).toMatchObject({ provider: "pet-shop", base_url: `${shop.url}/v1`, operations: 3, tools: 3, added: 3, changed: 0, retired: 0, skipped: [], warnings: [] });
    const rows = await database.db.select({ id: tools.id, source: tools.source, billingRule: tools.billingRule }).from(tools).orderBy(tools.id);
    expect(rows).toEqual([
      { id: "pet-shop:createPet", source: "petshop", billingRule: { unit: "call", amount_credits: 2 } },
      { id: "pet-shop:getPet", source: "petshop", billingRule: { unit: "call", amount_credits: 1 } },
      { id: "pet-shop:saveAlbums", source: "petshop", billingRule: { unit: "call", amount_credits: 0.5 } },
    ]);
  });
});

describe("Calls of imported operations send exactly what the document says, through the real API", () => {
  let apiKey: string;
  beforeAll(async () => {
    ({ apiKey } = await seedAccount(database.db, { credits: "10" }));
  });

  it("a GET with a path parameter (URL-encoded), an array in the query (form, exploded) and a header, with the API key header", async () => {
    const { status, body } = await call(apiKey, "pet-shop:getPet", { petId: "a b/1", tags: ["x", "y"], "X-Trace": "t-1" });
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, cost: 1, remaining_credits: 9, result: { data: { id: "a b/1", name: "Rex" } } });
    const sent = shop.received.at(-1)!;
    expect(sent).toMatchObject({ method: "GET", path: "/v1/pets/a%20b%2F1", query: "tags=x&tags=y", body: undefined });
    expect(sent.headers).toMatchObject({ "x-api-key": "s3cret", "x-trace": "t-1" });
  });

  it("a POST with a nested JSON body, sent as given", async () => {
    const pet = { name: "Rex", owner: { name: "Ann", address: { zip: "12345", city: "Oslo" } }, tags: ["good"] };
    const { body } = await call(apiKey, "pet-shop:createPet", pet);
    expect(body).toMatchObject({ success: true, cost: 2, remaining_credits: 7, result: { data: { created: pet } } });
    expect(shop.received.at(-1)).toMatchObject({ method: "POST", path: "/v1/pets", query: "", body: pet, headers: { "content-type": "application/json", "x-api-key": "s3cret" } });
  });

  it("a name both in the query and the body: the query one keeps it, the body one is body_<name>, each sent where it belongs", async () => {
    const { body } = await call(apiKey, "pet-shop:saveAlbums", { ids: "a,b", body_ids: ["c"] });
    expect(body).toMatchObject({ success: true, cost: 0.5, remaining_credits: 6.5 });
    expect(shop.received.at(-1)).toMatchObject({ method: "PUT", path: "/v1/albums", query: "ids=a%2Cb", body: { ids: ["c"] } });
  });

  it("Inspect shows the flat params, and beside them the nested schema Call validates", async () => {
    const { status, body } = await callApi(server.url, "POST", "/tools/by-ids", apiKey, { tool_ids: ["pet-shop:createPet"] });
    expect(status).toBe(200);
    const owner = body.results[0].params.find((p: { name: string }) => p.name === "owner");
    expect(owner).toMatchObject({ name: "owner", type: "object", required: true, properties: ["name", "address"] });
    expect(owner.json_schema).toMatchObject({ type: "object", required: ["name", "address"], properties: { address: { properties: { zip: { pattern: "^[0-9]{5}$" } } } } });
  });

  it("a bad nested body is refused by validation (422, not charged) before reaching the API", async () => {
    const before = shop.received.length;
    const { status, body } = await call(apiKey, "pet-shop:createPet", { name: "Rex", owner: { name: "Ann", address: { zip: "12" } } });
    expect(status).toBe(422);
    expect(body).toMatchObject({ success: false, cost: 0, remaining_credits: 6.5 });
    expect(body.details).toContainEqual(expect.objectContaining({ loc: ["body", "parameters", "owner", "address", "zip"], msg: '"owner.address.zip" must match pattern "^[0-9]{5}$"' }));
    expect(shop.received.length).toBe(before);
  });
});

describe("the outbound address guard", () => {
  it("keeps applying to imported tools: without --allow-private-network a Call to a loopback base URL is refused, unpaid", async () => {
    const file = path.join(path.dirname(priceFile), "pet-shop.json");
    fs.writeFileSync(file, JSON.stringify(petShopDocument()));
    await runCommand(database.db, ["providers", "import", "--openapi", file, "--id", "pet-shop-guarded", "--base-url", `${shop.url}/v1`, "--auth-env", "PETSHOP_KEY", "--price", "1"]);
    invalidateToolCache(database.db);
    const before = shop.received.length;
    const { apiKey } = await seedAccount(database.db, { credits: "2" });
    const { body } = await call(apiKey, "pet-shop-guarded:getPet", { petId: "1" });
    expect(body).toMatchObject({ success: false, cost: 0, remaining_credits: 2, execution_outcome: { reason_code: "transport.execution_failed" } });
    expect(body.error_message).toMatch(/non-public address 127\.0\.0\.1/);
    expect(shop.received.length).toBe(before);
  });
});

describe("re-importing the document", () => {
  const rowsOf = () => database.db.select().from(tools).where(eq(tools.providerId, "pet-shop")).orderBy(tools.id);

  it("updates changed operations in place, retires removed ones (a Call answers tool_unavailable), and counts both", async () => {
    const changed = petShopDocument();
    changed.paths["/pets/{petId}"].get.summary = "Fetch one pet";
    delete (changed.paths as Record<string, unknown>)["/albums"];
    shop.setDocument(changed);
    // The price map names operations of this document only: saveAlbums is gone from it.
    const result = await runCommand(database.db, importArgs("--allow-private-network", ...withPrices({ getPet: 1, createPet: 2 })));
    expect(result).toMatchObject({ operations: 2, tools: 2, added: 0, changed: 1, unchanged: 1, retired: 1 });
    const rows = await rowsOf();
    expect(rows.map((r) => [r.id, r.name, r.status])).toEqual([
      ["pet-shop:createPet", "Create a pet", "active"],
      ["pet-shop:getPet", "Fetch one pet", "active"],
      ["pet-shop:saveAlbums", "Save albums", "retired"],
    ]);
    invalidateToolCache(database.db);
    const { apiKey } = await seedAccount(database.db, { credits: "5" });
    const retired = await call(apiKey, "pet-shop:saveAlbums", { ids: "a" });
    expect(retired.status).toBe(404);
    expect(retired.body).toMatchObject({ success: false, cost: 0, execution_outcome: { reason_code: "tool_unavailable", charge_outcome: "failed_not_charged" } });
  });

  it("brings a retired operation back when the document has it again", async () => {
    shop.setDocument(petShopDocument());
    const result = await runCommand(database.db, importArgs("--allow-private-network", ...withPrices(PRICES)));
    expect(result).toMatchObject({ added: 0, changed: 2, unchanged: 1, retired: 0 });
    expect((await rowsOf()).every((r) => r.status === "active")).toBe(true);
  });

  it("a broken document fails with its URL, the JSON Pointers and the problems, and changes nothing", async () => {
    const before = await rowsOf();
    const broken = petShopDocument();
    const paths: Record<string, unknown> = broken.paths;
    paths["/pets"] = { post: { ...broken.paths["/pets"].post, requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } } } };
    paths["/owners/{ownerId}"] = { get: { operationId: "getOwner", responses: {} } };
    shop.setDocument(broken);
    const error = await runCommand(database.db, importArgs("--allow-private-network", ...withPrices(PRICES))).then(
      () => undefined,
      (err: Error) => err.message,
    );
    expect(error).toContain(`Cannot import OpenAPI document ${documentUrl} (1 issue)`);
    expect(error).toContain('/paths/~1pets/post/requestBody/content/application~1json/schema: Missing $ref pointer "#/components/schemas/Pet"');
    // An undeclared path parameter refuses only its operation: it is not what fails the document.
    expect(error).not.toContain("ownerId");
    expect(await rowsOf()).toEqual(before);
  });
});

describe("a real OpenAPI 3.1 document in YAML: Tollgate's own API, imported from its URL", () => {
  it("imports the JSON and the form-encoded operations, and a Call through the import reaches the API with the key", async () => {
    const { apiKey, accountId } = await seedAccount(database.db, { credits: "3" });
    process.env.TOLLGATE_SELF_KEY = apiKey;
    try {
      const result = (await runCommand(database.db, ["providers", "import", "--openapi", `${server.url}/api/v1/openapi.yaml`, "--id", "tollgate-self", "--auth-env", "TOLLGATE_SELF_KEY", "--allow-private-network"])) as {
        base_url: string;
        operations: number;
        tools: number;
        skipped: { operation: string; reason: string }[];
      };
      expect(result.base_url).toBe(`${server.url}/api/v1`);
      expect(result.tools).toBe(result.operations - result.skipped.length);
      expect(result.skipped.map((s) => s.operation)).not.toContain("POST /oauth/token");
      invalidateToolCache(database.db);
      const { body } = await call(apiKey, "tollgate-self:getAuthCredits", {});
      expect(body).toMatchObject({ success: true, cost: 0, result: { data: { data: { account_id: accountId, total_credits: 3 } } } });
    } finally {
      delete process.env.TOLLGATE_SELF_KEY;
    }
  });
});
