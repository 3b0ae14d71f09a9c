import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { callApi, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog } from "../../testing/catalog";
import { writeReviewCase, type ReviewCase } from "../../testing/review-case";
import { rows } from "../../db/row-sql";
import type { Database } from "../../db/types";

let database: Database;
let server: TestServer;
let first: Awaited<ReturnType<typeof seedAccount>>;
let second: Awaited<ReturnType<typeof seedAccount>>;
let support: Awaited<ReturnType<typeof seedAccount>>;
const cases: Record<string, ReviewCase> = {};

const api = (method: string, path: string, token: string, body?: unknown) => callApi(server.url, method, path, token, body);

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startTestServer(database);
  await importDemoCatalog(database.db);
  first = await seedAccount(database.db, { credits: "20", name: "First Co" });
  second = await seedAccount(database.db, { credits: "20", name: "Second Co" });
  support = await seedAccount(database.db, { role: "support", name: "Support desk" });
  // Oldest first: the order they are written in.
  cases.a = await writeReviewCase(database.db, first.accountId, "2", { toolId: "builtin.finance.compound_interest" });
  cases.b = await writeReviewCase(database.db, second.accountId, "1.5");
  cases.c = await writeReviewCase(database.db, first.accountId, "0.75");
  cases.charged = await writeReviewCase(database.db, second.accountId, "3", { outcome: "charged" });
});

describe("GET /auth/review-queue", () => {
  it("lists every open review case across accounts, oldest first, with the account, the tool and what is still open", async () => {
    const { status, body } = await api("GET", "/auth/review-queue", support.accessToken);
    expect(status).toBe(200);
    expect(body.data.total).toBe(3);
    expect(body.data.items.map((i: { execution_id: string }) => i.execution_id)).toEqual([cases.a.executionId, cases.b.executionId, cases.c.executionId]);
    expect(body.data.items[0]).toMatchObject({
      account_id: first.accountId,
      account_name: "First Co",
      tool_id: "builtin.finance.compound_interest",
      tool_name: expect.any(String),
      charged_credits: 2,
      refunded_credits: 0,
      open_credits: 2,
    });
    expect(body.data.items[1]).toMatchObject({ account_name: "Second Co", open_credits: 1.5 });
  });

  it("keeps a case refunded in part, with what is left; drops one refunded in full; pages with skip and limit", async () => {
    const refund = (id: string, amount: string) => api("POST", `/auth/executions/${id}/refunds`, support.accessToken, { amount_credits: amount, reason: "provider outage" });
    expect((await refund(cases.a.executionId, "0.5")).status).toBe(201);
    expect((await refund(cases.b.executionId, "1.5")).status).toBe(201);
    const { body } = await api("GET", "/auth/review-queue?limit=1&skip=1", support.accessToken);
    expect(body.data).toMatchObject({ total: 2, skip: 1, limit: 1 });
    expect(body.data.items.map((i: { execution_id: string }) => i.execution_id)).toEqual([cases.c.executionId]);
    const all = (await api("GET", "/auth/review-queue", support.accessToken)).body.data.items;
    expect(all[0]).toMatchObject({ execution_id: cases.a.executionId, charged_credits: 2, refunded_credits: 0.5, open_credits: 1.5 });
    expect((await api("GET", "/auth/review-queue?limit=101", support.accessToken)).status).toBe(422);
  });

  it("is support's alone, and each read is logged without a target account", async () => {
    const owner = await api("GET", "/auth/review-queue", first.accessToken);
    expect(owner.status).toBe(403);
    const log = rows<{ target_account_id: string | null; resource: string }>(
      await database.db.execute(sql`SELECT target_account_id, resource FROM support_access_log WHERE user_id = ${support.userId} AND resource = 'GET /auth/review-queue'`),
    );
    expect(log.length).toBeGreaterThanOrEqual(3);
    expect(log.every((l) => l.target_account_id === null)).toBe(true);
  });
});

describe("GET /auth/accounts?email=", () => {
  it("finds the accounts a person belongs to, whatever the case of the address; support's alone; each read logged", async () => {
    const { status, body } = await api("GET", `/auth/accounts?email=${encodeURIComponent(first.email.toUpperCase())}`, support.accessToken);
    expect(status).toBe(200);
    expect(body.data).toEqual({ email: first.email, items: [{ account_id: first.accountId, name: "First Co", role: "owner" }] });
    expect((await api("GET", "/auth/accounts?email=nobody%40example.test", support.accessToken)).body.data.items).toEqual([]);
    expect((await api("GET", "/auth/accounts?email=", support.accessToken)).status).toBe(422);
    expect((await api("GET", `/auth/accounts?email=${encodeURIComponent(second.email)}`, first.accessToken)).status).toBe(403);
    const log = rows<{ target_account_id: string | null }>(
      await database.db.execute(sql`SELECT target_account_id FROM support_access_log WHERE user_id = ${support.userId} AND resource = 'GET /auth/accounts'`),
    );
    expect(log).toEqual([{ target_account_id: null }, { target_account_id: null }]);
  });
});
