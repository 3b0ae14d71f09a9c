import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { bearer, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog } from "../../testing/catalog";
import type { Database } from "../../db/types";
import { sql } from "drizzle-orm";
import { rows } from "../../db/row-sql";
import { grantAt, writePastEvents } from "../../audit/testing-history";

const HOUR = 3_600_000;

// Calls may store large results under DATA_DIR: keep them out of the working tree.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-keys-test-"));
process.env.DATA_DIR = dataDir;

let database: Database;
let server: TestServer;
let owner: Awaited<ReturnType<typeof seedAccount>>;
let other: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
  owner = await seedAccount(database.db, { credits: "100" });
  other = await seedAccount(database.db, { credits: "100" });
});

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

interface KeyItem {
  api_key_id: string;
  name: string;
  prefix: string;
  last_used_at: string | null;
  revoked_at: string | null;
  created_at: string;
  created_by: string | null;
  credits_spent: number;
  usage_event_count: number;
}

function api(method: string, p: string, token: string | null, body?: unknown) {
  return fetch(`${server.url}/api/v1${p}`, {
    method,
    headers: { ...(token ? bearer(token) : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function listKeys(token: string): Promise<KeyItem[]> {
  const res = await api("GET", "/auth/api-keys", token);
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(body).toMatchObject({ status: "success", status_code: 0 });
  return body.data.items as KeyItem[];
}

async function createKey(token: string, name: string) {
  const res = await api("POST", "/auth/api-keys", token, { name });
  expect(res.status).toBe(200);
  return (await res.json()).data as { api_key_id: string; api_key: string; prefix: string; name: string; created_at: string };
}

function callTool(apiKey: string, toolId: string, parameters: Record<string, unknown>) {
  return api("POST", "/tools/execute", apiKey, { tool_id: toolId, parameters });
}

describe("POST /auth/api-keys", () => {
  it("creates a key that authenticates at once and is shown in full only in the creation response", async () => {
    const created = await createKey(owner.accessToken, "playground");
    expect(created.api_key).toMatch(/^tg_/);
    expect(created.api_key.startsWith(created.prefix)).toBe(true);
    expect(created.name).toBe("playground");

    const credits = await api("GET", "/auth/credits", created.api_key);
    expect(credits.status).toBe(200);

    const listed = (await listKeys(owner.accessToken)).find((k) => k.api_key_id === created.api_key_id);
    // The listing says who created it: the Playground replaces only its own user's playground key.
    expect(listed).toMatchObject({ name: "playground", prefix: created.prefix, revoked_at: null, created_by: owner.userId, credits_spent: 0, usage_event_count: 0 });
    expect(JSON.stringify(await listKeys(owner.accessToken))).not.toContain(created.api_key);
  });

  it("rejects an empty or over-long name with 422 HTTPValidationError", async () => {
    for (const name of ["", "   ", "x".repeat(101)]) {
      const res = await api("POST", "/auth/api-keys", owner.accessToken, { name });
      expect(res.status).toBe(422);
      expect((await res.json()).detail[0].loc).toEqual(["body", "name"]);
    }
  });
});

describe("GET /auth/api-keys", () => {
  it("reports each key's spend as the settled credits of the usage events it made", async () => {
    const a = await createKey(owner.accessToken, "spender");
    const b = await createKey(owner.accessToken, "free caller");
    // builtin.finance.compound_interest costs 1 credit per call; the length converter is free.
    for (let i = 0; i < 2; i++) {
      const res = await callTool(a.api_key, "builtin.finance.compound_interest", { principal: 100, annual_rate_percent: 5, years: 2 });
      expect((await res.json()).success).toBe(true);
    }
    const free = await callTool(b.api_key, "builtin.convert.length", { value: 1, from: "m", to: "cm" });
    expect((await free.json()).success).toBe(true);
    // A refused Call (invalid parameters) is an event of the key, charged nothing.
    expect((await callTool(a.api_key, "builtin.finance.compound_interest", { principal: "lots" })).status).toBe(422);

    const keys = await listKeys(owner.accessToken);
    expect(keys.find((k) => k.api_key_id === a.api_key_id)).toMatchObject({ credits_spent: 2, usage_event_count: 3 });
    expect(keys.find((k) => k.api_key_id === b.api_key_id)).toMatchObject({ credits_spent: 0, usage_event_count: 1 });
    expect(keys.find((k) => k.api_key_id === a.api_key_id)?.last_used_at).not.toBeNull();
  });

  it("adds sealed history from the rollups to the unsealed hour's raw events, exactly", async () => {
    const acct = await seedAccount(database.db, { credits: "100" });
    const key = await createKey(acct.accessToken, "old key");
    const now = Date.now();
    await grantAt(database.db, acct.accountId, new Date(now - 40 * HOUR), "1000");
    // Two days ago and yesterday (sealed by the listing), and a minute ago (raw).
    await writePastEvents(database.db, acct.accountId, [
      { at: new Date(now - 30 * HOUR), amount: "1.25", apiKeyId: key.api_key_id },
      { at: new Date(now - 20 * HOUR), amount: "0.000001", apiKeyId: key.api_key_id },
      { at: new Date(now - 20 * HOUR), amount: "0", success: false, apiKeyId: key.api_key_id },
      { at: new Date(now - 60_000), amount: "2", apiKeyId: key.api_key_id },
      { at: new Date(now - 60_000), amount: "7", apiKeyId: null },
    ]);
    const listed = (await listKeys(acct.accessToken)).find((k) => k.api_key_id === key.api_key_id);
    expect(listed).toMatchObject({ credits_spent: 3.250001, usage_event_count: 4 });
    const sealed = rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM usage_hourly_rollup WHERE account_id = ${acct.accountId}`))[0].n;
    expect(sealed).toBeGreaterThan(0);
  });

  it("lists newest first and only the caller's account's keys", async () => {
    const mine = await listKeys(owner.accessToken);
    const theirs = await listKeys(other.accessToken);
    expect(mine.map((k) => k.api_key_id)).toContain(owner.apiKeyId);
    expect(mine.map((k) => k.api_key_id)).not.toContain(other.apiKeyId);
    expect(theirs.map((k) => k.api_key_id)).toEqual([other.apiKeyId]);
    const created = mine.map((k) => Date.parse(k.created_at));
    expect([...created].sort((x, y) => y - x)).toEqual(created);
  });
});

describe("DELETE /auth/api-keys/{api_key_id}", () => {
  it("revokes the key: it stops authenticating, the listing shows when, and a second revoke is harmless", async () => {
    const key = await createKey(owner.accessToken, "to revoke");
    expect((await api("GET", "/auth/credits", key.api_key)).status).toBe(200);

    const res = await api("DELETE", `/auth/api-keys/${key.api_key_id}`, owner.accessToken);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({ api_key_id: key.api_key_id, revoked: true });

    expect((await api("GET", "/auth/credits", key.api_key)).status).toBe(401);
    expect((await listKeys(owner.accessToken)).find((k) => k.api_key_id === key.api_key_id)?.revoked_at).not.toBeNull();
    expect((await api("DELETE", `/auth/api-keys/${key.api_key_id}`, owner.accessToken)).status).toBe(200);
  });

  it("answers 404 for another account's key and leaves that key working", async () => {
    const res = await api("DELETE", `/auth/api-keys/${other.apiKeyId}`, owner.accessToken);
    expect(res.status).toBe(404);
    expect((await res.json()).status).toBe("failure");
    expect((await api("GET", "/auth/credits", other.apiKey)).status).toBe(200);
  });

  it("answers 404 for an unknown or malformed id", async () => {
    expect((await api("DELETE", "/auth/api-keys/0190c0de-0000-7000-8000-000000000000", owner.accessToken)).status).toBe(404);
    expect((await api("DELETE", "/auth/api-keys/not-a-uuid", owner.accessToken)).status).toBe(404);
  });
});

describe("authentication", () => {
  const operations: [string, string, unknown?][] = [
    ["GET", "/auth/api-keys"],
    ["POST", "/auth/api-keys", { name: "x" }],
    ["DELETE", "/auth/api-keys/0190c0de-0000-7000-8000-000000000000"],
  ];
  for (const [method, p, body] of operations) {
    it(`${method} ${p}: no credential is a 401`, async () => {
      expect((await api(method, p, null, body)).status).toBe(401);
    });
    it(`${method} ${p}: an API key is refused (JWT only), so a leaked key cannot mint more keys`, async () => {
      expect((await api(method, p, owner.apiKey, body)).status).toBe(401);
    });
  }

  it("the operations are in the OpenAPI description with the JWT scheme", async () => {
    const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    expect(doc.paths["/auth/api-keys"].get.security).toEqual([{ OAuth2: ["account:manage"] }]);
    expect(doc.paths["/auth/api-keys"].post.security).toEqual([{ OAuth2: ["account:manage"] }]);
    expect(doc.paths["/auth/api-keys/{api_key_id}"].delete.security).toEqual([{ OAuth2: ["account:manage"] }]);
  });
});
