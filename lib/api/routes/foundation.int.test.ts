import { describe, expect, it, beforeAll } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { bearer, seedAccount } from "../../testing/fixtures";
import { revokeApiKey } from "../../auth/api-keys";
import { issueAccessToken } from "../../auth/jwt";
import { grantCredits } from "../../billing/grant-credits";
import { API_VERSION } from "../../version";
import { API_BASE_PATH, createApiApp } from "../app";
import type { Database } from "../../db/types";

let database: Database;
let server: TestServer;
let seed: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startTestServer(database);
  seed = await seedAccount(database.db, { credits: "100" });
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });

describe("GET /api/v1/meta", () => {
  it("returns the contract version without authentication, with version and request-id headers", async () => {
    const res = await get("/api/v1/meta");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-service-api-version")).toBe(API_VERSION);
    expect(res.headers.get("x-request-id")).toMatch(/.{8,}/);
    expect(await res.json()).toMatchObject({ api_version: API_VERSION });
  });

  it("echoes a well-formed incoming X-Request-Id", async () => {
    const res = await get("/api/v1/meta", { "X-Request-Id": "req-12345678" });
    expect(res.headers.get("x-request-id")).toBe("req-12345678");
  });
});

describe("GET /api/v1/openapi.json", () => {
  it("publishes an OpenAPI 3.1 description listing each operation with its auth scheme", async () => {
    const res = await get("/api/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe(API_VERSION);
    expect(doc.paths["/meta"].get.security).toEqual([]);
    expect(doc.paths["/auth/credits"].get.security).toEqual([{ ApiKeyAuth: [] }, { OAuth2: ["ledger:read"] }]);
    expect(doc.paths["/credits"].get.security).toEqual([{ OAuth2: ["ledger:read"] }]);
    expect(doc.paths["/auth/verify-token"].post.security).toEqual([{ OAuth2: [] }]);
    expect(doc.components.securitySchemes.ApiKeyAuth.scheme).toBe("bearer");
  });

  it("lists every operation the app serves, each with its security", async () => {
    const doc = await (await get("/api/v1/openapi.json")).json();
    const served = createApiApp({ database }).operations();
    expect(served.length).toBeGreaterThan(30);
    for (const op of served) {
      // Operations at the site root (`/.well-known/*`) are described with their own server.
      const relative = op.path.startsWith(`${API_BASE_PATH}/`) ? op.path.slice(API_BASE_PATH.length) : op.path;
      const path = relative.replace(/:(\w+)/g, "{$1}");
      const described = doc.paths[path]?.[op.method.toLowerCase()];
      expect(described, `${op.method} ${path} is not in the OpenAPI description`).toBeDefined();
      expect(Array.isArray(described.security), `${op.method} ${path} declares no security`).toBe(true);
    }
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    expect(documented.length).toBe(served.length);
  });

  it("is also published as YAML", async () => {
    const res = await get("/api/v1/openapi.yaml");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("yaml");
    expect(await res.text()).toContain("openapi: 3.1.0");
  });
});

describe("credits balance", () => {
  it("GET /auth/credits answers an API key with the balance by kind", async () => {
    const res = await get("/api/v1/auth/credits", bearer(seed.apiKey));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ status: "success", status_code: 0 });
    expect(body.data).toMatchObject({ bonus_credits: 100, paid_credits: 0, total_credits: 100, total_available_credits: 100 });
  });

  it("GET /auth/credits and GET /credits answer a JWT", async () => {
    await grantCredits(database.db, { accountId: seed.accountId, amount: "2.5", type: "payment_recharge" });
    for (const path of ["/api/v1/auth/credits", "/api/v1/credits"]) {
      const res = await get(path, bearer(seed.accessToken));
      expect(res.status).toBe(200);
      expect((await res.json()).data).toMatchObject({ paid_credits: 2.5, total_credits: 102.5 });
    }
  });

  it("GET /credits refuses an API key (JWT scheme only)", async () => {
    const res = await get("/api/v1/credits", bearer(seed.apiKey));
    expect(res.status).toBe(401);
  });
});

describe("POST /auth/verify-token", () => {
  it("reports a valid token's subject and expiry", async () => {
    const res = await fetch(`${server.url}/api/v1/auth/verify-token`, { method: "POST", headers: bearer(seed.accessToken) });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data).toMatchObject({ valid: true, user_id: seed.userId, account_id: seed.accountId });
    expect(body.data.expires_in).toBeGreaterThan(500);
  });
});

describe("401 cases", () => {
  const cases: [string, () => Promise<Record<string, string>>][] = [
    ["missing credential", async () => ({})],
    ["malformed header", async () => ({ Authorization: "Token abc" })],
    ["malformed credential", async () => bearer("not-a-key")],
    ["unknown API key", async () => bearer("tg_unknownkeyunknownkeyunknownkey")],
    ["unknown JWT signer", async () => bearer("eyJhbGciOiJFUzI1NiIsImtpZCI6Im5vcGUifQ.eyJzdWIiOiJ4In0.c2ln")],
    [
      "expired JWT",
      async () => {
        const t = await issueAccessToken(database.db, { userId: seed.userId, accountId: seed.accountId, role: "owner", scope: "x", ttlSeconds: -10 });
        return bearer(t.accessToken);
      },
    ],
  ];
  for (const path of ["/api/v1/auth/credits", "/api/v1/credits"]) {
    for (const [name, headers] of cases) {
      it(`${path}: ${name} is a 401 PublicApiError with the version header`, async () => {
        const res = await get(path, await headers());
        expect(res.status).toBe(401);
        expect(res.headers.get("x-service-api-version")).toBe(API_VERSION);
        expect(res.headers.get("www-authenticate")).toContain("Bearer");
        const body = await res.json();
        expect(body).toMatchObject({ status: "failure", status_code: 401 });
        expect(body.message).toEqual(expect.any(String));
        expect(body.data.guidance).toEqual(expect.any(String));
      });
    }
  }

  for (const [name, headers] of cases) {
    it(`POST /auth/verify-token: ${name} is a 401`, async () => {
      const res = await fetch(`${server.url}/api/v1/auth/verify-token`, { method: "POST", headers: await headers() });
      expect(res.status).toBe(401);
      expect((await res.json()).status_code).toBe(401);
    });
  }

  it("a revoked API key stops working", async () => {
    const other = await seedAccount(database.db);
    expect((await get("/api/v1/auth/credits", bearer(other.apiKey))).status).toBe(200);
    await revokeApiKey(database.db, { id: other.apiKeyId });
    expect((await get("/api/v1/auth/credits", bearer(other.apiKey))).status).toBe(401);
  });

  it("unknown paths are a 404 in the contract's shape with the version header", async () => {
    const res = await get("/api/v1/nope");
    expect(res.status).toBe(404);
    expect(res.headers.get("x-service-api-version")).toBe(API_VERSION);
    expect((await res.json()).status).toBe("failure");
  });
});

describe("the credits ledger", () => {
  it("rejects UPDATE, DELETE and TRUNCATE at the database level", async () => {
    const rows = await database.db.execute(sql`select id from credits_ledger where account_id = ${seed.accountId} limit 1`);
    const id = (rows as unknown as { rows: { id: string }[] }).rows[0].id;
    const failure = async (statement: Promise<unknown>) => {
      const err = await statement.then(() => undefined, (e: Error & { cause?: Error }) => e);
      return err?.cause?.message ?? err?.message;
    };
    expect(await failure(database.db.execute(sql`update credits_ledger set amount_credits = 1 where id = ${id}`))).toMatch(/append-only: UPDATE/);
    expect(await failure(database.db.execute(sql`delete from credits_ledger where id = ${id}`))).toMatch(/append-only: DELETE/);
    expect(await failure(database.db.execute(sql`truncate credits_ledger cascade`))).toMatch(/append-only: TRUNCATE/);
    const count = await database.db.execute(sql`select count(*)::int as n from credits_ledger where id = ${id}`);
    expect((count as unknown as { rows: { n: number }[] }).rows[0].n).toBe(1);
  });

  it("the support access log is as immutable: written once, never changed or removed", async () => {
    await database.db.execute(sql`insert into support_access_log (id, user_id, target_account_id, resource, query) values ('sal_test', 'usr_x', ${seed.accountId}, 'test', '{}')`);
    const failure = async (statement: Promise<unknown>) => {
      const err = await statement.then(() => undefined, (e: Error & { cause?: Error }) => e);
      return err?.cause?.message ?? err?.message;
    };
    expect(await failure(database.db.execute(sql`update support_access_log set resource = 'other' where id = 'sal_test'`))).toMatch(/immutable: UPDATE/);
    expect(await failure(database.db.execute(sql`delete from support_access_log where id = 'sal_test'`))).toMatch(/immutable: DELETE/);
    expect(await failure(database.db.execute(sql`truncate support_access_log`))).toMatch(/immutable: TRUNCATE/);
  });

  it("keeps the balance chain: each grant's balance_before is the previous balance_after", async () => {
    const result = await database.db.execute(
      sql`select amount_credits, balance_before, balance_after from credits_ledger where account_id = ${seed.accountId} order by seq`,
    );
    const rows = (result as unknown as { rows: { amount_credits: string; balance_before: string; balance_after: string }[] }).rows;
    expect(rows.length).toBeGreaterThanOrEqual(2);
    let previous = "0.000000";
    for (const row of rows) {
      expect(row.balance_before).toBe(previous);
      expect(Number(row.balance_after)).toBeCloseTo(Number(row.balance_before) + Number(row.amount_credits), 6);
      previous = row.balance_after;
    }
  });
});
