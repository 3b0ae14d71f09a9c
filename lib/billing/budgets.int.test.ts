import { beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { startCallFixture } from "../testing/call-fixture";
import { testDbKind } from "../testing/database";
import type { TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { fakeTool } from "../testing/fake-upstream";
import { assertLedgerInvariants } from "../testing/invariants";
import { createApiKey } from "../auth/api-keys";
import { budgets, executions } from "../db/schema";
import { rows } from "../db/row-sql";
import { ManualClock } from "../clock";
import { newId } from "../ids";
import { reserveCall } from "../execution/settle";
import { sweepExpiredReservations } from "./sweep-reservations";
import { listBudgets, removeBudget, setBudget } from "./budgets";
import type { Database } from "../db/types";

/**
 * Budgets are checked and held in the statement that reserves or records a Call: on PostgreSQL
 * the Calls are fired at once; PGlite (one connection) checks the same limits in sequence.
 */
let database: Database;
let server: TestServer;
const clock = new ManualClock(new Date("2026-11-25T12:00:00Z"));

const BUILTIN = "builtin.finance.compound_interest"; // 1 credit, recorded without a reservation
const HTTP = fakeTool("fake-upstream", "ok"); // 1 credit, reserved then settled
const params = (i: number) => ({ principal: 100 + i, annual_rate_percent: 5, years: 2 });

beforeAll(async () => {
  ({ database, server } = await startCallFixture({ poolSize: 20, clock }));
});

async function call(apiKey: string, toolId: string, i: number) {
  const res = await fetch(`${server.url}/api/v1/tools/execute`, {
    method: "POST",
    headers: { ...bearer(apiKey), "content-type": "application/json" },
    body: JSON.stringify({ tool_id: toolId, parameters: toolId === BUILTIN ? params(i) : { city: `c${i}` } }),
  });
  return { status: res.status, body: await res.json() };
}

async function spentBy(accountId: string) {
  return rows<{ key: string | null; spent: string }>(
    await database.db.execute(sql`SELECT api_key_id::text AS key, sum(-amount_credits)::text AS spent FROM credits_ledger
                                  WHERE account_id = ${accountId} AND entry_type LIKE 'consume%' GROUP BY 1`),
  );
}

const budgetOf = async (id: string) => (await database.db.select().from(budgets).where(eq(budgets.id, id)))[0];

describe("budgets", () => {
  it(`never let concurrent Calls across two keys cross a key budget of 10 or an account budget of 15 (${testDbKind()})`, async () => {
    const a = await seedAccount(database.db, { credits: "100" });
    const second = await createApiKey(database.db, { accountId: a.accountId, name: "second" });
    const keyBudget = await setBudget(database.db, { accountId: a.accountId, scope: "api_key", scopeId: a.apiKeyId, limitCredits: "10", period: "day" }, clock);
    const accountBudget = await setBudget(database.db, { accountId: a.accountId, scope: "account", limitCredits: "15", period: "month", timeZone: "Europe/Berlin" }, clock);

    const jobs = Array.from({ length: 200 }, (_, i) => () => call(i % 2 === 0 ? a.apiKey : second.api_key, i % 4 < 2 ? BUILTIN : HTTP, i));
    const results = testDbKind() === "postgres" ? await Promise.all(jobs.map((j) => j())) : await jobs.reduce<Promise<Awaited<ReturnType<typeof call>>[]>>(async (acc, j) => [...(await acc), await j()], Promise.resolve([]));

    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    expect(ok.length).toBe(15);
    expect(refused.length).toBe(185);
    for (const r of refused) {
      expect(r.body.execution_outcome).toMatchObject({ reason_code: "billing.budget_exceeded", charge_outcome: "failed_not_charged" });
      expect(r.body.error_message).toMatch(/^Budget exceeded: .* budget bud_\w+ of 1[05] credits has 0 credits left/);
    }
    const spent = Object.fromEntries((await spentBy(a.accountId)).map((r) => [r.key, Number(r.spent)]));
    expect(spent[a.apiKeyId]).toBeLessThanOrEqual(10);
    expect(spent[a.apiKeyId] + spent[second.api_key_id]).toBe(15);

    const kb = await budgetOf(keyBudget.budget_id);
    const ab = await budgetOf(accountBudget.budget_id);
    expect(Number(kb.spentCredits)).toBe(spent[a.apiKeyId]);
    expect(Number(ab.spentCredits)).toBe(15);
    expect([Number(kb.reservedCredits), Number(ab.reservedCredits)]).toEqual([0, 0]);
    // The refusals are in the usage history with their reason, and the ledger re-adds every budget's spend.
    const reasons = rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM usage_events WHERE account_id = ${a.accountId} AND reason_code = 'billing.budget_exceeded'`));
    expect(reasons[0].n).toBe(185);
    await assertLedgerInvariants(database.db, a.accountId);
  }, 120_000);

  it("rolls over at the stated reset time of its time zone (moved by the injected clock)", async () => {
    const a = await seedAccount(database.db, { credits: "100" });
    clock.set("2026-11-25T20:00:00Z"); // 15:00 in New York
    const b = await setBudget(database.db, { accountId: a.accountId, scope: "api_key", scopeId: a.apiKeyId, limitCredits: "2", period: "day", timeZone: "America/New_York" }, clock);
    expect(b).toMatchObject({ period_start: "2026-11-25T05:00:00.000Z", resets_at: "2026-11-26T05:00:00.000Z", spent_credits: 0 });
    expect((await call(a.apiKey, BUILTIN, 1)).status).toBe(200);
    expect((await call(a.apiKey, HTTP, 2)).status).toBe(200);
    const over = await call(a.apiKey, BUILTIN, 3);
    expect(over.status).toBe(402);
    expect(over.body.error_message).toContain("it resets at 2026-11-26T05:00:00.000Z (America/New_York day boundary)");

    clock.set("2026-11-26T04:59:59Z");
    expect((await call(a.apiKey, HTTP, 4)).status).toBe(402);
    clock.set("2026-11-26T05:00:00Z");
    expect((await call(a.apiKey, HTTP, 5)).status).toBe(200);
    expect((await call(a.apiKey, BUILTIN, 6)).status).toBe(200);
    expect((await call(a.apiKey, BUILTIN, 7)).status).toBe(402);
    const [seen] = await listBudgets(database.db, a.accountId, clock);
    expect(seen).toMatchObject({ spent_credits: 2, remaining_credits: 0, used_percent: 100, period_start: "2026-11-26T05:00:00.000Z", resets_at: "2026-11-27T05:00:00.000Z" });
    await assertLedgerInvariants(database.db, a.accountId);
    clock.set("2026-11-25T12:00:00Z");
  });

  it("counts the spend already in the ledger when it is set, and keeps counting after a limit change", async () => {
    const a = await seedAccount(database.db, { credits: "100" });
    for (let i = 0; i < 3; i++) expect((await call(a.apiKey, BUILTIN, i)).status).toBe(200);
    const b = await setBudget(database.db, { accountId: a.accountId, scope: "account", limitCredits: "4", period: "none" }, clock);
    expect(b).toMatchObject({ spent_credits: 3, remaining_credits: 1, period_start: null, resets_at: null });
    expect((await call(a.apiKey, HTTP, 3)).status).toBe(200);
    const over = await call(a.apiKey, BUILTIN, 4);
    expect(over.body.error_message).toContain("lifetime budget");
    expect(over.body.error_message).toContain("it does not reset");
    const raised = await setBudget(database.db, { accountId: a.accountId, scope: "account", limitCredits: "5", period: "none" }, clock);
    expect(raised).toMatchObject({ budget_id: b.budget_id, spent_credits: 4, remaining_credits: 1 });
    expect((await call(a.apiKey, BUILTIN, 5)).status).toBe(200);
    await assertLedgerInvariants(database.db, a.accountId);
    await removeBudget(database.db, { budgetId: b.budget_id, accountId: a.accountId });
    expect((await call(a.apiKey, BUILTIN, 6)).status).toBe(200);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("holds an OAuth client's budget on its delegation's reservations, and the sweeper releases it", async () => {
    const a = await seedAccount(database.db, { credits: "100" });
    const clientId = `cli_${a.accountId}`;
    await database.db.execute(sql`INSERT INTO oauth_clients (id, name, type) VALUES (${clientId}, 'agent runtime', 'public')`);
    const b = await setBudget(database.db, { accountId: a.accountId, scope: "oauth_client", scopeId: clientId, limitCredits: "5", period: "week" }, clock);
    const reserve = async (amount: string, expiresInMs: number) => {
      const id = newId("exe");
      const r = await reserveCall(
        database.db,
        { id, accountId: a.accountId, toolId: BUILTIN, providerId: "tollgate-builtin", sessionId: id, status: "reserved", parameters: {}, reservationExpiresAt: new Date(Date.now() + expiresInMs) },
        amount,
        undefined,
        { at: clock.now(), clientId },
      );
      return { id, r };
    };
    const held = await reserve("3", -120_000);
    expect(held.r).toEqual({ reserved: true });
    expect((await database.db.select().from(executions).where(eq(executions.id, held.id)))[0].budgetIds).toEqual([b.budget_id]);
    const refused = await reserve("3", 60_000);
    expect(refused.r).toMatchObject({ reserved: false, reason: "budget_exceeded", budget: { budget_id: b.budget_id, reserved_credits: "3.000000", scope: "oauth_client" } });
    // Without the client (an API key's Call), the client's budget does not apply.
    const other = await reserveCall(database.db, { id: newId("exe"), accountId: a.accountId, toolId: BUILTIN, providerId: "tollgate-builtin", sessionId: "s", status: "reserved", parameters: {}, reservationExpiresAt: new Date(Date.now() + 60_000) }, "3", undefined, { at: clock.now() });
    expect(other).toEqual({ reserved: true });
    await sweepExpiredReservations(database.db);
    expect(Number((await budgetOf(b.budget_id)).reservedCredits)).toBe(0);
    const verify = await import("../audit/verify").then((m) => m.verifyLedger(database.db, { accountId: a.accountId, graceSeconds: 3600 }));
    expect(verify.violations).toEqual([]);
  });

  it("refuses unknown time zones, other accounts' keys and negative limits", async () => {
    const a = await seedAccount(database.db, { credits: "1" });
    const b = await seedAccount(database.db, { credits: "1" });
    await expect(setBudget(database.db, { accountId: a.accountId, scope: "account", limitCredits: "1", period: "day", timeZone: "Mars/Olympus" })).rejects.toThrow(/Unknown time zone/);
    await expect(setBudget(database.db, { accountId: a.accountId, scope: "api_key", scopeId: b.apiKeyId, limitCredits: "1", period: "day" })).rejects.toThrow(/not found/);
    await expect(setBudget(database.db, { accountId: a.accountId, scope: "account", limitCredits: "-1", period: "day" })).rejects.toThrow(/>= 0/);
    await expect(removeBudget(database.db, { budgetId: "bud_nope", accountId: a.accountId })).rejects.toThrow(/not found/);
  });
});
