import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { importDemoCatalog } from "../testing/catalog";
import { assertLedgerInvariants } from "../testing/invariants";
import { verifyLedger } from "../audit/verify";
import { creditBalances, delegationSpend, executions, usageEvents } from "../db/schema";
import { getUsageEvent } from "../audit/usage-history";
import { reserveCall, settleReservedCall } from "../execution/settle";
import { sweepExpiredReservations } from "./sweep-reservations";
import { newId } from "../ids";
import type { Database } from "../db/types";

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
});

const TOOL = "builtin.finance.compound_interest";

async function reserve(accountId: string, amount: string, expiresInMs: number, delegationJti?: string, channel: "api" | "mcp" = "api") {
  const id = newId("exe");
  const result = await reserveCall(
    database.db,
    { id, accountId, toolId: TOOL, providerId: "tollgate-builtin", sessionId: id, status: "reserved", parameters: { principal: 1 }, reservationExpiresAt: new Date(Date.now() + expiresInMs), delegationJti: delegationJti ?? null, channel },
    amount,
    delegationJti,
  );
  expect(result).toEqual({ reserved: true });
  return id;
}

const balance = async (accountId: string) => (await database.db.select().from(creditBalances).where(eq(creditBalances.accountId, accountId)))[0];
const execution = async (id: string) => (await database.db.select().from(executions).where(eq(executions.id, id)))[0];
const events = (executionId: string) => database.db.select().from(usageEvents).where(eq(usageEvents.executionId, executionId));

describe("sweepExpiredReservations", () => {
  it("releases an expired reservation and records the execution honestly", async () => {
    const a = await seedAccount(database.db, { credits: "10" });
    const id = await reserve(a.accountId, "3", -60_000, undefined, "mcp");
    expect(Number((await balance(a.accountId)).reservedCredits)).toBe(3);
    // Before the sweep, audit verify names the reservation left behind (and nothing else).
    const before = await verifyLedger(database.db, { accountId: a.accountId, graceSeconds: 30 });
    expect(before.violations).toEqual([expect.objectContaining({ check: "no_reservation_left_behind", message: expect.stringContaining(id) })]);

    expect(await sweepExpiredReservations(database.db)).toBeGreaterThanOrEqual(1);

    expect(Number((await balance(a.accountId)).reservedCredits)).toBe(0);
    expect(Number((await balance(a.accountId)).bonusCredits)).toBe(10);
    expect(await execution(id)).toMatchObject({ status: "released", success: false, reasonCode: "transport.execution_failed", chargeOutcome: "failed_not_charged" });
    const recorded = await events(id);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      eventType: "tool_execute",
      // An MCP Call released by the sweeper is still counted as MCP (spend by channel).
      channel: "mcp",
      toolId: TOOL,
      success: false,
      chargeOutcome: "failed_not_charged",
      reasonCode: "transport.execution_failed",
      creditsLedgerEntryId: null,
      billingRuleSnapshot: { unit: "call", amount_credits: 1 },
    });
    expect(Number(recorded[0].requestedAmountCredits)).toBe(3);
    expect(Number(recorded[0].actualAmountCredits)).toBe(0);
    // As the audit API reads it (stored without the keys that repeat a column, lib/audit/usage-compact.ts).
    const item = await getUsageEvent(database.db, a.accountId, recorded[0].id);
    expect(item).toMatchObject({
      source_ref_type: "execution",
      source_ref_id: id,
      pre_settlement_bill: { execution_id: id, summary: "Not charged", list_amount_credits: 0 },
      settlement_result: { settled_amount_credits: 0, released_by: "reservation_sweeper" },
      execution_outcome: { outcome: "transport_error", reason_code: "transport.execution_failed", charge_outcome: "failed_not_charged", cache_hit: false },
      request_payload: { tool_id: TOOL },
    });
    expect(recorded[0].preSettlementBill).toEqual({ summary: "Not charged" });
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("leaves reservations that have not expired", async () => {
    const a = await seedAccount(database.db, { credits: "10" });
    const id = await reserve(a.accountId, "2", 60_000);
    await sweepExpiredReservations(database.db);
    expect(await execution(id)).toMatchObject({ status: "reserved" });
    expect(Number((await balance(a.accountId)).reservedCredits)).toBe(2);
    expect(await events(id)).toHaveLength(0);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("a Call that settles after the sweeper released it charges nothing and writes no second event", async () => {
    const a = await seedAccount(database.db, { credits: "10" });
    const id = await reserve(a.accountId, "1", -1_000);
    await sweepExpiredReservations(database.db);
    const late = await settleReservedCall(database.db, {
      executionId: id,
      accountId: a.accountId,
      update: { success: true, reasonCode: "result.valid", chargeOutcome: "charged", settledCredits: "1", durationMs: 5 },
      event: { accountId: a.accountId, eventType: "tool_execute", executionId: id, toolId: TOOL, success: true, settledAmount: "1" },
      charge: {
        amount: "1",
        ledger: { id: newId("led"), entry_type: "consume_tool_execute", description: "late", source_ref_type: "execution", source_ref_id: id, execution_id: id },
      },
    });
    expect(late).toMatchObject({ settled: false, ledgerEntryId: null });
    expect(await events(id)).toHaveLength(1);
    expect(Number((await balance(a.accountId)).bonusCredits)).toBe(10);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("releases the delegation token's reserved cap too", async () => {
    const a = await seedAccount(database.db, { credits: "10" });
    const jti = `jti-${newId("exe")}`;
    await database.db.insert(delegationSpend).values({ jti, accountId: a.accountId, maxCredits: "5", expiresAt: new Date(Date.now() + 600_000) });
    await reserve(a.accountId, "4", -1_000, jti);
    expect(Number((await database.db.select().from(delegationSpend).where(eq(delegationSpend.jti, jti)))[0].reservedCredits)).toBe(4);
    await sweepExpiredReservations(database.db);
    const spend = (await database.db.select().from(delegationSpend).where(eq(delegationSpend.jti, jti)))[0];
    expect(Number(spend.reservedCredits)).toBe(0);
    expect(Number(spend.spentCredits)).toBe(0);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("sweepers running at once release each reservation exactly once", async () => {
    const a = await seedAccount(database.db, { credits: "100" });
    const ids = await Promise.all(Array.from({ length: 12 }, () => reserve(a.accountId, "1", -1_000)));
    const released = await Promise.all([sweepExpiredReservations(database.db, 5), sweepExpiredReservations(database.db, 5), sweepExpiredReservations(database.db, 5)]);
    let rest = 0;
    while ((rest = await sweepExpiredReservations(database.db)) > 0) released.push(rest);
    expect(released.reduce((x, y) => x + y, 0)).toBe(12);
    for (const id of ids) expect(await events(id)).toHaveLength(1);
    expect(Number((await balance(a.accountId)).reservedCredits)).toBe(0);
    await assertLedgerInvariants(database.db, a.accountId);
  });
});
