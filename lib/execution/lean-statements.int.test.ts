import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { startCallFixture } from "../testing/call-fixture";
import { testDbKind } from "../testing/database";
import type { TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { fakeTool } from "../testing/fake-upstream";
import { assertBurnOrderReplays, assertLedgerInvariants } from "../testing/invariants";
import { setBudget } from "../billing/budgets";
import { setAlertSettings } from "../alerts/settings";
import { grantCredits } from "../billing/grant-credits";
import { budgets, creditBalances, delegationSpend, executions } from "../db/schema";
import { rows } from "../db/row-sql";
import { newId, newUuid } from "../ids";
import { scrapeMetrics, type MoneyStatement, type MoneyStatementVariant } from "../observability/metrics";
import { forgetRuledAccounts, reserveCall, settleReservedCall } from "./settle";
import type { Database } from "../db/types";

/**
 * The money statements' lean functions (lib/db/lean-functions.ts): Calls of accounts without a
 * budget, a low-balance alert or a delegation token write exactly what the full statements write,
 * and a rule that appears while an account's Calls take the lean path applies from the next Call,
 * as it would with the full statements alone.
 */
let database: Database;
let server: TestServer;

const BUILTIN = "builtin.finance.compound_interest"; // 1 credit, recorded and charged in one statement
const HTTP = fakeTool("fake-upstream", "ok"); // 1 credit, reserved then settled

beforeAll(async () => {
  ({ database, server } = await startCallFixture({ poolSize: 20 }));
});
// Each test starts as a fresh instance would: without the hint that sends ruled accounts straight to the full statements.
beforeEach(() => forgetRuledAccounts());

async function call(apiKey: string, toolId: string, i = 0) {
  const res = await fetch(`${server.url}/api/v1/tools/execute`, {
    method: "POST",
    headers: { ...bearer(apiKey), "content-type": "application/json" },
    body: JSON.stringify({ tool_id: toolId, parameters: toolId === BUILTIN ? { principal: 100 + i, annual_rate_percent: 5, years: 2 } : { city: `c${i}` } }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** `tollgate_money_statements_total` by statement and variant, from the exposition text. */
async function statementCounts(): Promise<Record<string, number>> {
  const { body } = await scrapeMetrics();
  const counts: Record<string, number> = {};
  for (const m of body.matchAll(/^tollgate_money_statements_total\{statement="(\w+)",variant="(\w+)"\} (\d+)$/gm)) counts[`${m[1]}:${m[2]}`] = Number(m[3]);
  return counts;
}

/** How many jobs each statement variant ran while `work` ran (this file's requests only: one server, in sequence). */
async function countedDuring(work: () => Promise<unknown>): Promise<Partial<Record<`${MoneyStatement}:${MoneyStatementVariant}`, number>>> {
  const before = await statementCounts();
  await work();
  const after = await statementCounts();
  const delta: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) if (v !== (before[k] ?? 0)) delta[k] = v - (before[k] ?? 0);
  return delta;
}

/** A Call's rows, whole, as they would compare across accounts: ids, times and the account's own references left out. */
async function rowsOf(executionId: string) {
  const [execution] = rows<{ e: Record<string, unknown> }>(
    await database.db.execute(sql`SELECT to_jsonb(x) - ARRAY['id', 'account_id', 'api_key_id', 'session_id', 'created_at', 'settled_at', 'reservation_expires_at', 'duration_ms', 'budget_ids'] AS e
                                    FROM executions x WHERE x.id = ${executionId}`),
  );
  const [event] = rows<{ e: Record<string, unknown>; linked: boolean }>(
    await database.db.execute(sql`SELECT to_jsonb(u) - ARRAY['id', 'account_id', 'api_key_id', 'execution_id', 'session_id', 'source_ref_id', 'created_at', 'credits_ledger_entry_id', 'duration_ms', 'pre_settlement_bill', 'request_payload'] AS e,
                                         u.credits_ledger_entry_id IS NOT NULL AS linked
                                    FROM usage_events u WHERE u.execution_id = ${executionId}`),
  );
  const [ledger] = rows<{ e: Record<string, unknown> }>(
    await database.db.execute(sql`SELECT to_jsonb(l) - ARRAY['id', 'seq', 'account_id', 'api_key_id', 'execution_id', 'usage_event_id', 'source_ref_id', 'created_at', 'ledger_metadata', 'pre_settlement_bill']
                                         || jsonb_build_object('metadata', l.ledger_metadata - 'budgets', 'bill', l.pre_settlement_bill - 'execution_id') AS e
                                    FROM credits_ledger l WHERE l.execution_id = ${executionId}`),
  );
  return { execution: execution.e, event: event.e, linked: event.linked, ledger: ledger.e };
}

async function budgetSpent(budgetId: string) {
  const [b] = await database.db.select().from(budgets).where(eq(budgets.id, budgetId));
  return { spent: Number(b.spentCredits), reserved: Number(b.reservedCredits) };
}

/** Reserves 2 credits for a new execution of `accountId` (under `token`, a delegation's jti, when given). */
async function reserveTwo(accountId: string, token?: string): Promise<string> {
  const id = newId("exe");
  const held = await reserveCall(
    database.db,
    { id, accountId, toolId: BUILTIN, providerId: "tollgate-builtin", sessionId: id, status: "reserved", parameters: {}, reservationExpiresAt: new Date(Date.now() + 60_000), delegationJti: token ?? null },
    "2",
    token,
  );
  expect(held).toEqual({ reserved: true });
  return id;
}

/** Settles a reservation made by `reserveTwo` as a successful Call charged 2 credits. */
function settleTwo(db: Database["db"], id: string, accountId: string) {
  const eventId = newUuid();
  return settleReservedCall(db, {
    executionId: id,
    accountId,
    update: { success: true, reasonCode: "result.valid", chargeOutcome: "charged", settledCredits: "2", durationMs: 1 },
    event: { id: eventId, accountId, eventType: "tool_execute", sourceRefType: "execution", sourceRefId: id, executionId: id, toolId: BUILTIN, success: true, settledAmount: "2", reasonCode: "result.valid", billingSnapshotStatus: "captured" },
    charge: { amount: "2", ledger: { id: newId("led"), entry_type: "consume_tool_execute", description: "test", source_ref_type: "execution", source_ref_id: id, execution_id: id, usage_event_id: eventId } },
  });
}

describe("lean money statements", () => {
  it("write the same execution, usage event and ledger row as the full statements, for a reserved and an unreserved Call", async () => {
    const lean = await seedAccount(database.db, { credits: "50" });
    const full = await seedAccount(database.db, { credits: "50" });
    // A budget no Call reaches sends every Call of `full` through the full statements.
    await setBudget(database.db, { accountId: full.accountId, scope: "account", limitCredits: "1000000", period: "none" });

    for (const tool of [HTTP, BUILTIN]) {
      let a!: Awaited<ReturnType<typeof call>>;
      let b!: Awaited<ReturnType<typeof call>>;
      const leanCounts = await countedDuring(async () => (a = await call(lean.apiKey, tool)));
      const fullCounts = await countedDuring(async () => (b = await call(full.apiKey, tool)));
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(leanCounts).toEqual(tool === HTTP ? { "reserve:lean": 1, "settle:lean": 1 } : { "record:lean": 1 });
      // A ruled account's Call falls back once; the hint sends the rest of it (the settlement) to the full statement at once.
      expect(fullCounts).toEqual(tool === HTTP ? { "reserve:fallback": 1, "reserve:full": 1, "settle:full": 1 } : { "record:fallback": 1, "record:full": 1 });
      forgetRuledAccounts();

      const { execution_id: _a, elapsed_time_ms: _ams, execution_time: _at, ...answerA } = a.body;
      const { execution_id: _b, elapsed_time_ms: _bms, execution_time: _bt, ...answerB } = b.body;
      expect(answerA).toEqual(answerB);
      const rowsA = await rowsOf(String(a.body.execution_id));
      const rowsB = await rowsOf(String(b.body.execution_id));
      expect(rowsA).toEqual(rowsB);
      expect(rowsA.linked).toBe(true);
      expect(rowsA.execution).toMatchObject({ status: "settled", charge_outcome: "charged", cache_hit: false, refunded_credits: 0 });
      expect(rowsA.ledger).toMatchObject({ entry_type: "consume_tool_execute", amount_credits: -1 });
    }
    await assertLedgerInvariants(database.db, lean.accountId);
    await assertLedgerInvariants(database.db, full.accountId);
  });

  it("a budget set after an account's lean Calls holds its next Calls: they fall back and are counted or refused", async () => {
    const a = await seedAccount(database.db, { credits: "50" });
    for (let i = 0; i < 3; i++) expect((await call(a.apiKey, i % 2 ? HTTP : BUILTIN, i)).status).toBe(200);
    // Three credits already spent count as the budget's opening: two more fit.
    const budget = await setBudget(database.db, { accountId: a.accountId, scope: "account", limitCredits: "5", period: "none" });

    const counted = await countedDuring(async () => {
      expect((await call(a.apiKey, HTTP, 10)).status).toBe(200);
      forgetRuledAccounts();
      expect((await call(a.apiKey, BUILTIN, 11)).status).toBe(200);
      forgetRuledAccounts();
      const refused = await call(a.apiKey, HTTP, 12);
      expect(refused.status).toBe(402);
      expect(refused.body.execution_outcome).toMatchObject({ reason_code: "billing.budget_exceeded" });
    });
    // The refused Call's record charges nothing: no rule applies to it, it stays lean.
    expect(counted).toEqual({ "reserve:fallback": 2, "reserve:full": 2, "settle:full": 1, "record:fallback": 1, "record:full": 1, "record:lean": 1 });
    expect(await budgetSpent(budget.budget_id)).toEqual({ spent: 5, reserved: 0 });
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("a low-balance alert set after an account's lean Calls fires when the next settlement crosses it", async () => {
    const a = await seedAccount(database.db, { credits: "6" });
    expect((await call(a.apiKey, HTTP, 0)).status).toBe(200);
    expect((await call(a.apiKey, BUILTIN, 1)).status).toBe(200);
    await setAlertSettings(database.db, { accountId: a.accountId, change: { lowBalanceCredits: "3.5" } });
    const counted = await countedDuring(async () => {
      expect((await call(a.apiKey, HTTP, 2)).status).toBe(200); // 4 -> 3: crosses 3.5
      forgetRuledAccounts();
      expect((await call(a.apiKey, BUILTIN, 3)).status).toBe(200); // 3 -> 2: already below, no new crossing
    });
    // The reservation holds no budget, so the reserve stays lean; its settlement and the record fall back.
    expect(counted).toEqual({ "reserve:lean": 1, "settle:fallback": 1, "settle:full": 1, "record:fallback": 1, "record:full": 1 });
    const fired = rows<{ kind: string; payload: Record<string, unknown> }>(
      await database.db.execute(sql`SELECT kind, payload FROM notifications WHERE account_id = ${a.accountId}`),
    );
    expect(fired).toEqual([expect.objectContaining({ kind: "low_balance", payload: expect.objectContaining({ threshold_credits: 3.5, balance_credits: 3 }) })]);
  });

  it("an expiring grant made after an account's lean Calls is drawn first by its next Calls, which fall back to the full statements", async () => {
    const a = await seedAccount(database.db, { credits: "10" });
    expect((await call(a.apiKey, HTTP, 0)).status).toBe(200);
    const lot = await grantCredits(database.db, { accountId: a.accountId, amount: "3", type: "welcome_bonus", expiresAt: new Date(Date.now() + 86_400_000) });
    const counted = await countedDuring(async () => {
      expect((await call(a.apiKey, HTTP, 1)).status).toBe(200);
      forgetRuledAccounts();
      expect((await call(a.apiKey, BUILTIN, 2)).status).toBe(200);
      forgetRuledAccounts();
      // A failed Call charges nothing: its settlement only releases the reservation, and stays lean.
      expect((await call(a.apiKey, fakeTool("fake-upstream", "server_error"), 3)).status).toBe(200);
    });
    expect(counted).toEqual({ "reserve:lean": 2, "settle:fallback": 1, "settle:full": 1, "record:fallback": 1, "record:full": 1, "settle:lean": 1 });
    const [remaining] = rows<{ remaining: string }>(await database.db.execute(sql`SELECT remaining_credits::text AS remaining FROM credit_grants WHERE id = ${lot.ledger_entry_id}`));
    expect(Number(remaining.remaining)).toBe(1);
    const draws = rows<{ lots: Record<string, string> | null }>(
      await database.db.execute(sql`SELECT ledger_metadata->'grant_lots' AS lots FROM credits_ledger WHERE account_id = ${a.accountId} AND entry_type = 'consume_tool_execute' ORDER BY seq`),
    );
    expect(draws.map((d) => d.lots)).toEqual([null, { [lot.ledger_entry_id]: "1.000000" }, { [lot.ledger_entry_id]: "1.000000" }]);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("a reservation held on a budget or under a delegation token is settled by the full statement, whatever the hint", async () => {
    const budgeted = await seedAccount(database.db, { credits: "20" });
    const budget = await setBudget(database.db, { accountId: budgeted.accountId, scope: "account", limitCredits: "100", period: "none" });
    const delegating = await seedAccount(database.db, { credits: "20" });
    const jti = newId("exe");
    await database.db.insert(delegationSpend).values({ jti, accountId: delegating.accountId, maxCredits: "10", expiresAt: new Date(Date.now() + 600_000) });

    for (const [accountId, token] of [[budgeted.accountId, undefined], [delegating.accountId, jti]] as const) {
      const id = await reserveTwo(accountId, token);
      // As on an instance that never saw this account's Calls: the settlement tries the lean statement first.
      forgetRuledAccounts();
      const counted = await countedDuring(async () => {
        const settled = await settleTwo(database.db, id, accountId);
        expect(settled.settled).toBe(true);
      });
      expect(counted).toEqual({ "settle:fallback": 1, "settle:full": 1 });
      const [row] = await database.db.select().from(executions).where(eq(executions.id, id));
      expect(row.status).toBe("settled");
      const [balance] = await database.db.select().from(creditBalances).where(eq(creditBalances.accountId, accountId));
      expect({ reserved: Number(balance.reservedCredits), bonus: Number(balance.bonusCredits) }).toEqual({ reserved: 0, bonus: 18 });
      await assertLedgerInvariants(database.db, accountId);
    }
    // The Call counted against the budget it was held on; the token's reservation became its spend.
    expect(await budgetSpent(budget.budget_id)).toEqual({ spent: 2, reserved: 0 });
    const [spend] = await database.db.select().from(delegationSpend).where(eq(delegationSpend.jti, jti));
    expect({ reserved: Number(spend.reservedCredits), spent: Number(spend.spentCredits) }).toEqual({ reserved: 0, spent: 2 });
  });

  it("a settlement finds its execution by primary key, however many reservations are live (lean and full statements)", async () => {
    // What a pooled connection's cached plan meets when a slow provider leaves thousands of Calls in
    // flight: plans made while few reservations were live, then many. A settlement that reached
    // its row through the partial indexes of live reservations would read every one of them.
    const crowd = await seedAccount(database.db);
    const crowdList = `{${Array.from({ length: 300 }, () => newId("exe")).join(",")}}`; // a text[] literal
    const plain = await seedAccount(database.db, { credits: "20" });
    const budgeted = await seedAccount(database.db, { credits: "20" });
    await setBudget(database.db, { accountId: budgeted.accountId, scope: "account", limitCredits: "100", period: "none" });
    const reserve = async (accountId: string) => ({ id: await reserveTwo(accountId), accountId });
    const settle = (db: Database["db"], { id, accountId }: { id: string; accountId: string }) => settleTwo(db, id, accountId);
    const partialIndexReads = async (db: Database["db"]) =>
      rows<{ n: number }>(
        await db.execute(sql`SELECT (pg_stat_get_xact_numscans('executions_reserved_session_idx'::regclass) + pg_stat_get_xact_numscans('executions_reserved_expiry_idx'::regclass))::int AS n`),
      )[0].n;
    // Statistics taken while the table held mostly settled Calls and few live ones.
    await database.db.execute(sql`INSERT INTO executions (id, account_id, tool_id, session_id, status, settled_at)
                                  SELECT 'exe_settled_' || g || '_' || ${crowd.accountId}, ${crowd.accountId}, ${BUILTIN}, 's', 'settled', now() FROM generate_series(1, 3000) g`);
    await database.db.execute(sql`ANALYZE executions`);
    const calls = [await reserve(plain.accountId), await reserve(budgeted.accountId), await reserve(plain.accountId), await reserve(budgeted.accountId)];
    try {
      await database.db.transaction(async (tx) => {
        // The plan a long-lived connection keeps (after five executions PostgreSQL may keep the generic one).
        await tx.execute(sql`SET LOCAL plan_cache_mode = force_generic_plan`);
        forgetRuledAccounts();
        expect((await settle(tx, calls[0])).settled).toBe(true); // lean
        expect((await settle(tx, calls[1])).settled).toBe(true); // falls back to the full statement
        await tx.execute(sql`INSERT INTO executions (id, account_id, tool_id, session_id, status, reservation_expires_at)
                             SELECT id, ${crowd.accountId}, ${BUILTIN}, id, 'reserved', now() + interval '1 hour' FROM unnest(${crowdList}::text[]) id`);
        const before = await partialIndexReads(tx);
        forgetRuledAccounts();
        expect((await settle(tx, calls[2])).settled).toBe(true);
        expect((await settle(tx, calls[3])).settled).toBe(true);
        expect(await partialIndexReads(tx)).toBe(before);
      });
    } finally {
      await database.db.execute(sql`DELETE FROM executions WHERE account_id = ${crowd.accountId}`);
    }
    for (const { id } of calls) expect((await database.db.select().from(executions).where(eq(executions.id, id)))[0].status).toBe("settled");
    await assertLedgerInvariants(database.db, plain.accountId);
    await assertLedgerInvariants(database.db, budgeted.accountId);
  });

  if (testDbKind() === "postgres") {
    it("Calls taking the lean path while expiring grants arrive draw every lot committed before their debit, in burn order (PostgreSQL)", async () => {
      const day = 86_400_000;
      // A fresh account and no hint each round: every round's Calls start lean, racing the grants.
      for (let round = 0; round < 4; round++) {
        forgetRuledAccounts();
        const a = await seedAccount(database.db, { credits: "100" });
        const calls = Array.from({ length: 30 }, (_, i) => call(a.apiKey, i % 2 ? HTTP : BUILTIN, i));
        // Each new lot expires sooner than the last: a debit that missed one would draw a later one instead.
        const grants = Array.from({ length: 3 }, (_, k) =>
          new Promise((r) => setTimeout(r, 2 * k)).then(() => grantCredits(database.db, { accountId: a.accountId, amount: "2", type: "welcome_bonus", expiresAt: new Date(Date.now() + (50 - k) * day) })),
        );
        const results = await Promise.all(calls);
        await Promise.all(grants);
        expect(results.every((r) => r.status === 200)).toBe(true);
        await assertBurnOrderReplays(database.db, a.accountId);
        await assertLedgerInvariants(database.db, a.accountId);
      }
    }, 60_000);

    it("a budget set while an account's Calls run at once is never crossed, and counts exactly the charges tagged with it (PostgreSQL)", async () => {
      const a = await seedAccount(database.db, { credits: "500" });
      const fire = (n: number, from: number) => Promise.all(Array.from({ length: n }, (_, i) => call(a.apiKey, (from + i) % 2 ? HTTP : BUILTIN, from + i)));
      const first = fire(40, 0);
      // Set while the first wave is in flight: Calls whose statements began before it commits do not count against it.
      await new Promise((r) => setTimeout(r, 5));
      const budget = await setBudget(database.db, { accountId: a.accountId, scope: "account", limitCredits: "60", period: "none" });
      const later = await fire(80, 100);
      const all = [...(await first), ...later];
      // A Call of the first wave that reserves after the budget is held by it too: 200, or 402 naming the budget.
      for (const r of all) {
        if (r.status !== 200) expect([r.status, (r.body.execution_outcome as { reason_code: string }).reason_code]).toEqual([402, "billing.budget_exceeded"]);
      }
      const { spent, reserved } = await budgetSpent(budget.budget_id);
      const tagged = rows<{ n: string; opening: string }>(
        await database.db.execute(sql`SELECT coalesce(sum(-amount_credits), 0)::text AS n,
                                             (SELECT opening_credits::text FROM budgets WHERE id = ${budget.budget_id}) AS opening
                                        FROM credits_ledger WHERE account_id = ${a.accountId} AND ledger_metadata->'budgets' ? ${budget.budget_id}`),
      )[0];
      expect(reserved).toBe(0);
      expect(spent).toBeLessThanOrEqual(60);
      expect(spent).toBe(Number(tagged.opening) + Number(tagged.n));
      // Every Call of the second wave started after the budget: it was counted or refused, so the limit was reached.
      expect(spent).toBe(60);
      expect(all.filter((r) => r.status === 402).length).toBeGreaterThan(0);
      await assertLedgerInvariants(database.db, a.accountId);
    }, 60_000);
  }
});
