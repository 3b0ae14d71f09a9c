import { beforeAll, describe, expect, it } from "vitest";
import { z } from "@hono/zod-openapi";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { importDemoCatalog } from "../testing/catalog";
import { issueAccessToken } from "../auth/jwt";
import type { UserRole } from "../vocab/roles";
import { ALL_SCOPES, formatScope } from "../oauth/scopes";
import type { Credential } from "../http/auth";
import type { Database } from "../db/types";
import { createApiApp } from "./app";
import { createRouter } from "./create-router";
import { OPERATION_ACCESS, securityOf, type Access } from "./access";

/**
 * The access table (lib/api/access.ts) is the API's one statement of who may call what. Every
 * operation of the published document is walked here with an OAuth token lacking its scope (403
 * `insufficient_scope`) and one holding only that scope (let through), so an operation whose row
 * is missing, or whose check disagrees with its document, fails.
 */

type Json = Record<string, unknown>;
interface DocOperation {
  method: string;
  path: string;
  operationId?: string;
  security?: Record<string, string[]>[];
  servers?: { url: string }[];
  requestBody?: { content: Record<string, unknown> };
}

let database: Database;
let server: TestServer;
let operations: DocOperation[];
let owner: Awaited<ReturnType<typeof seedAccount>>;
let support: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
  const doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Omit<DocOperation, "method" | "path">>> };
  operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ ...op, method: method.toUpperCase(), path })));
  owner = await seedAccount(database.db, { credits: "10" });
  support = await seedAccount(database.db, { role: "support" });
});

const bearerRow = (op: DocOperation) => {
  const access: Access = OPERATION_ACCESS[op.operationId as keyof typeof OPERATION_ACCESS];
  return access.kind === "bearer" ? access : undefined;
};

/** A token of the kind the operation takes (a user's, else a delegation) for a user of the role it needs. */
async function token(accepts: readonly Credential[], roles: readonly UserRole[] | undefined, scopes: readonly string[]): Promise<string> {
  const user = roles?.includes("support") ? support : owner;
  const kind = accepts.includes("user_token") ? "access" : "delegation";
  const issued = await issueAccessToken(database.db, {
    userId: user.userId,
    accountId: user.accountId,
    role: roles?.[0] ?? "owner",
    scope: formatScope(scopes),
    ttlSeconds: 600,
    tokenUse: kind,
  });
  return issued.accessToken;
}

/** The operation with placeholder ids and an empty body: enough to pass or fail its access check, which runs first. */
async function send(op: DocOperation, credential: string): Promise<Response> {
  const root = op.servers?.[0]?.url === "/" ? "" : "/api/v1";
  const path = op.path.replaceAll(/\{[^}]+\}/g, "x");
  const json = op.requestBody?.content["application/json"] !== undefined;
  const res = await fetch(`${server.url}${root}${path}`, {
    method: op.method,
    headers: { ...bearer(credential), Accept: "application/json, text/event-stream", ...(json ? { "content-type": "application/json" } : {}) },
    body: json ? "{}" : undefined,
    redirect: "manual",
  });
  await res.arrayBuffer();
  return res;
}

describe("the access table", () => {
  it("names every operation of the document, and the document's security is the table's", () => {
    expect(operations.length).toBeGreaterThan(50);
    for (const op of operations) {
      const where = `${op.method} ${op.path}`;
      expect(op.operationId, `${where} has no operationId`).toMatch(/^[a-z][a-zA-Z]+$/);
      expect(Object.hasOwn(OPERATION_ACCESS, op.operationId!), `${where} (${op.operationId}) has no row in lib/api/access.ts`).toBe(true);
      expect(op.security ?? [], where).toEqual(securityOf(OPERATION_ACCESS[op.operationId as keyof typeof OPERATION_ACCESS]));
    }
    expect(new Set(operations.map((op) => op.operationId)).size).toBe(operations.length);
    // Every row is an operation: a row left behind by a removed route is a stale promise.
    expect(Object.keys(OPERATION_ACCESS).sort()).toEqual(operations.map((op) => op.operationId).sort());
  });

  it("every route the app serves is in the document (none bypasses the table)", () => {
    const app = createApiApp({ database });
    const served = app.operations().map((r) => `${r.method} ${r.path.replace(/^\/api\/v1(?=\/)/, "").replaceAll(/:(\w+)/g, "{$1}")}`);
    const documented = new Set(operations.map((op) => `${op.method} ${op.path}`));
    expect(served.filter((s) => !documented.has(s))).toEqual([]);
  });

  it("refuses to register an operation without a row, or without an operationId", () => {
    const route = { method: "get" as const, path: "/unlisted", responses: { 200: { description: "ok", content: { "application/json": { schema: z.object({}) } } } } };
    expect(() => createRouter().openapi({ ...route, operationId: "unlistedOperation" }, (c) => c.json({}, 200))).toThrow(/declares no access: add its row to lib\/api\/access.ts/);
    expect(() => createRouter().openapi(route, (c) => c.json({}, 200))).toThrow(/has no operationId/);
  });

  it("only verify-token admits a token of any scope; every other bearer operation names its scopes", () => {
    const scopeFree = operations.filter((op) => bearerRow(op) && bearerRow(op)!.scopes.length === 0).map((op) => op.operationId);
    expect(scopeFree).toEqual(["verifyToken"]);
  });
});

describe("every operation, with a token lacking its scope and one holding it", () => {
  it("a token without the scope is 403 insufficient_scope naming it; a token with only that scope gets through", async () => {
    const walked: string[] = [];
    for (const op of operations) {
      const row = bearerRow(op);
      if (!row || row.scopes.length === 0 || !row.accepts.some((c) => c !== "api_key")) continue;
      const where = `${op.method} ${op.path}`;
      const lacking = await send(op, await token(row.accepts, row.roles, ALL_SCOPES.filter((s) => !row.scopes.includes(s))));
      expect(lacking.status, where).toBe(403);
      expect(lacking.headers.get("www-authenticate"), where).toContain(`error="insufficient_scope", scope="${row.scopes.join(" ")}"`);
      for (const scope of row.scopes) {
        const holding = await send(op, await token(row.accepts, row.roles, [scope]));
        expect([401, 403], `${where} with ${scope}: ${holding.status}`).not.toContain(holding.status);
      }
      walked.push(where);
    }
    // Every bearer operation that takes a token is walked (only the scope-free verify-token is not).
    expect(walked.length).toBe(operations.filter((op) => bearerRow(op)?.accepts.some((c) => c !== "api_key")).length - 1);
  });

  it("an API key needs no scope where keys are accepted, and is a 401 that says what to send where they are not", async () => {
    for (const op of operations) {
      const row = bearerRow(op);
      if (!row) continue;
      const res = await send(op, owner.apiKey);
      const where = `${op.method} ${op.path}`;
      if (row.accepts.includes("api_key")) {
        expect([401, 403], `${where}: ${res.status}`).not.toContain(res.status);
      } else {
        expect(res.status, where).toBe(401);
      }
    }
    const refused = await fetch(`${server.url}/api/v1/auth/usage/history/v2`, { headers: bearer(owner.apiKey) });
    const body = (await refused.json()) as { message: string; data: { guidance: string } };
    expect(body.message).toBe("This operation does not accept an API key: it takes a user's OAuth access token");
    expect(body.data.guidance).toContain("a user's OAuth access token (a token needs the usage:read scope)");
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer realm="tollgate", error="invalid_token"/);
  });

  it("public operations answer without a credential", async () => {
    for (const op of operations) {
      if (OPERATION_ACCESS[op.operationId as keyof typeof OPERATION_ACCESS].kind !== "public") continue;
      const root = op.servers?.[0]?.url === "/" ? "" : "/api/v1";
      const res = await fetch(`${server.url}${root}${op.path.replaceAll(/\{[^}]+\}/g, "x")}`, { redirect: "manual" });
      await res.arrayBuffer();
      expect(res.status, `${op.method} ${op.path}`).not.toBe(401);
    }
  });
});

describe("401 challenges (RFC 6750 section 3.1)", () => {
  it("a request without any credential gets a challenge without an error code", async () => {
    const res = await fetch(`${server.url}/api/v1/auth/credits/ledger`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="tollgate"');
    expect(((await res.json()) as Json).message).toBe("Missing Authorization header");
  });

  it("a malformed or unknown credential is invalid_token", async () => {
    for (const credential of ["not-a-credential", "tg_0000000000000000000000000000"]) {
      const res = await fetch(`${server.url}/api/v1/auth/credits`, { headers: bearer(credential) });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm="tollgate", error="invalid_token", error_description="/);
    }
  });

  it("every API response carries X-Content-Type-Options: nosniff", async () => {
    for (const path of ["/meta", "/auth/credits", "/openapi.json", "/no-such-operation"]) {
      expect((await fetch(`${server.url}/api/v1${path}`)).headers.get("x-content-type-options"), path).toBe("nosniff");
    }
  });
});
