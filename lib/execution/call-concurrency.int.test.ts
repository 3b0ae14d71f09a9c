import { beforeAll, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { startCallFixture } from "../testing/call-fixture";
import { testDbKind } from "../testing/database";
import type { TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { fakeTool, type FakeUpstream } from "../testing/fake-upstream";
import { assertLedgerInvariants } from "../testing/invariants";
import { creditBalances, executions } from "../db/schema";
import { grantCredits } from "../billing/grant-credits";
import { rows } from "../db/row-sql";
import type { Database } from "../db/types";

/**
 * No overspend, whatever the concurrency. PGlite has one connection, so real races exist only on
 * PostgreSQL: there the Calls are fired at once; on PGlite the same limits are checked in sequence.
 */
let database: Database;
let server: TestServer;
let upstream: FakeUpstream;

const PRICED_BUILTIN = "builtin.finance.compound_interest";
const PRICED_HTTP = fakeTool("fake-upstream", "ok");
const params = (i: number) => ({ principal: 100 + i, annual_rate_percent: 5, years: 2 });

beforeAll(async () => {
  ({ database, server, upstream } = await startCallFixture({ poolSize: 20 }));
});

async function call(apiKey: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/api/v1/tools/execute`, {
    method: "POST",
    headers: { ...bearer(apiKey), "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function consumeRows(accountId: string) {
  return rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM credits_ledger WHERE account_id = ${accountId} AND entry_type = 'consume_tool_execute'`))[0].n;
}

async function balanceOf(accountId: string) {
  const row = (await database.db.select().from(creditBalances).where(eq(creditBalances.accountId, accountId)))[0];
  return { total: Number(row.paidCredits) + Number(row.bonusCredits) + Number(row.rewardCredits), reserved: Number(row.reservedCredits) };
}

const statuses = (results: { status: number }[]) => results.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});

if (testDbKind() === "postgres") {
  describe("Call under concurrency (PostgreSQL)", () => {
    it("200 concurrent Calls of a 1-credit builtin tool on a 10-credit account charge exactly 10", async () => {
      const a = await seedAccount(database.db, { credits: "10" });
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => call(a.apiKey, { tool_id: PRICED_BUILTIN, parameters: params(i) })));
      expect(statuses(results)).toEqual({ 200: 10, 402: 190 });
      for (const r of results.filter((x) => x.status === 200)) expect(r.body).toMatchObject({ success: true, cost: 1, execution_outcome: { charge_outcome: "charged" } });
      for (const r of results.filter((x) => x.status === 402)) expect(r.body).toMatchObject({ success: false, cost: 0 });
      expect(Math.min(...results.map((r) => r.body.remaining_credits))).toBe(0);
      expect(await balanceOf(a.accountId)).toEqual({ total: 0, reserved: 0 });
      expect(await consumeRows(a.accountId)).toBe(10);
      await assertLedgerInvariants(database.db, a.accountId);
    });

    it("50 concurrent Calls of a 1-credit http tool (reserve, execute, settle) charge exactly 10 and reach the provider 10 times", async () => {
      const a = await seedAccount(database.db, { credits: "10" });
      const city = `race-${a.accountId}`;
      const results = await Promise.all(Array.from({ length: 50 }, () => call(a.apiKey, { tool_id: PRICED_HTTP, parameters: { city } })));
      expect(statuses(results)).toEqual({ 200: 10, 402: 40 });
      expect(upstream.requests.filter((r) => r.query.city === city)).toHaveLength(10);
      expect(await balanceOf(a.accountId)).toEqual({ total: 0, reserved: 0 });
      expect(await consumeRows(a.accountId)).toBe(10);
      await assertLedgerInvariants(database.db, a.accountId);
    });

    it("20 concurrent identical requests with one Idempotency-Key execute once and charge once", async () => {
      const a = await seedAccount(database.db, { credits: "10" });
      const city = `idem-${a.accountId}`;
      const results = await Promise.all(Array.from({ length: 20 }, () => call(a.apiKey, { tool_id: PRICED_HTTP, parameters: { city } }, { "Idempotency-Key": "same-key" })));
      const ok = results.filter((r) => r.status === 200);
      expect(ok.length, JSON.stringify(results.map((r) => [r.status, r.body.error_message]))).toBeGreaterThanOrEqual(1);
      // A retry that arrives while the first is running gets 409 and is never executed.
      expect(results.every((r) => r.status === 200 || r.status === 409)).toBe(true);
      expect(new Set(results.map((r) => r.body.execution_id)).size).toBe(1);
      expect(upstream.requests.filter((r) => r.query.city === city)).toHaveLength(1);
      const keyed = await database.db.select().from(executions).where(and(eq(executions.accountId, a.accountId), eq(executions.idempotencyKey, "same-key")));
      expect(keyed).toHaveLength(1);
      expect(await consumeRows(a.accountId)).toBe(1);
      expect(await balanceOf(a.accountId)).toEqual({ total: 9, reserved: 0 });
      await assertLedgerInvariants(database.db, a.accountId);
    });

    it("Calls of 16 accounts at once, group-committed together, each stop at exactly their own credits", async () => {
      const accounts = await Promise.all(Array.from({ length: 16 }, () => seedAccount(database.db, { credits: "3" })));
      const results = await Promise.all(
        accounts.flatMap((a, n) =>
          Array.from({ length: 6 }, (_, i) =>
            (i % 2 ? call(a.apiKey, { tool_id: PRICED_BUILTIN, parameters: params(i) }) : call(a.apiKey, { tool_id: PRICED_HTTP, parameters: { city: `multi-${n}-${i}` } })).then((r) => ({ ...r, account: a.accountId })),
          ),
        ),
      );
      for (const a of accounts) {
        const own = results.filter((r) => r.account === a.accountId);
        const seen = JSON.stringify(own.map((r) => [r.status, r.body.success, r.body.error_message]));
        expect(statuses(own), seen).toEqual({ 200: 3, 402: 3 });
        expect(await balanceOf(a.accountId), seen).toEqual({ total: 0, reserved: 0 });
        expect(await consumeRows(a.accountId)).toBe(3);
        await assertLedgerInvariants(database.db, a.accountId);
      }
    });

    it("concurrent Calls drawing on several credit kinds keep every kind's ledger sum equal to its balance", async () => {
      const a = await seedAccount(database.db, { credits: "3" });
      await grantCredits(database.db, { accountId: a.accountId, amount: "2.5", type: "invitation_reward" });
      await grantCredits(database.db, { accountId: a.accountId, amount: "4.5", type: "payment_recharge" });
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? call(a.apiKey, { tool_id: PRICED_BUILTIN, parameters: params(i) }) : call(a.apiKey, { tool_id: "builtin.math.evaluate", parameters: { expression: `${i}+1` } }))),
      );
      const spent = results.filter((r) => r.status === 200).reduce((s, r) => s + r.body.cost, 0);
      expect(spent).toBeLessThanOrEqual(10);
      expect(spent).toBeGreaterThanOrEqual(9.5);
      expect((await balanceOf(a.accountId)).total).toBeCloseTo(10 - spent, 6);
      await assertLedgerInvariants(database.db, a.accountId);
    });
  });
} else {
  describe("Call limits (PGlite has one connection: checked in sequence; the races run on PostgreSQL)", () => {
    it("a 10-credit account gets exactly 10 charged Calls (builtin and http), an idempotent retry charges once", async () => {
      const a = await seedAccount(database.db, { credits: "10" });
      const builtin = [];
      for (let i = 0; i < 7; i++) builtin.push(await call(a.apiKey, { tool_id: PRICED_BUILTIN, parameters: params(i) }));
      const city = `seq-${a.accountId}`;
      const http = [];
      for (let i = 0; i < 5; i++) http.push(await call(a.apiKey, { tool_id: PRICED_HTTP, parameters: { city } }));
      expect(statuses(builtin)).toEqual({ 200: 7 });
      expect(statuses(http)).toEqual({ 200: 3, 402: 2 });
      expect(upstream.requests.filter((r) => r.query.city === city)).toHaveLength(3);
      expect(await balanceOf(a.accountId)).toEqual({ total: 0, reserved: 0 });
      await assertLedgerInvariants(database.db, a.accountId);

      const b = await seedAccount(database.db, { credits: "10" });
      const retries = [];
      for (let i = 0; i < 5; i++) retries.push(await call(b.apiKey, { tool_id: PRICED_HTTP, parameters: { city: `idem-${b.accountId}` } }, { "Idempotency-Key": "same-key" }));
      expect(new Set(retries.map((r) => r.body.execution_id)).size).toBe(1);
      expect(await consumeRows(b.accountId)).toBe(1);
      expect(await balanceOf(b.accountId)).toEqual({ total: 9, reserved: 0 });
      await assertLedgerInvariants(database.db, b.accountId);
    });
  });
}
