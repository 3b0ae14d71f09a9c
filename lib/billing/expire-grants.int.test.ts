import { beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { importDemoCatalog } from "../testing/catalog";
import { assertBurnOrderReplays, assertLedgerInvariants } from "../testing/invariants";
import { creditBalances, creditGrants, usageEvents } from "../db/schema";
import { usageEventRow } from "../audit/usage-event";
import { rows } from "../db/row-sql";
import { ManualClock } from "../clock";
import { reserveCall, settleReservedCall } from "../execution/settle";
import { newId } from "../ids";
import type { Database } from "../db/types";
import { grantCredits, type GrantType } from "./grant-credits";
import { debitCredits } from "./debit-credits";
import { expireCreditGrants, notifyExpiringGrants } from "./expire-grants";

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase({ poolSize: 12 });
  await importDemoCatalog(database.db);
});

const HOUR = 3_600_000;
const TOOL = "builtin.finance.compound_interest";

const grant = (accountId: string, amount: string, type: GrantType, expiresAt?: Date, clock?: ManualClock) =>
  grantCredits(database.db, { accountId, amount, type, expiresAt }, clock);

/** A priced search's charge: the consume row and its usage event, as audit verify expects them. */
async function consume(accountId: string, amount: string) {
  const ledger = { id: newId("led"), entry_type: "consume_tool_search" as const, description: "test", source_ref_type: "search", source_ref_id: "t" };
  const result = await debitCredits(database.db, { accountId, amount, ledger });
  expect(result, `debit of ${amount}`).not.toBeNull();
  await database.db.insert(usageEvents).values(usageEventRow({ accountId, eventType: "search", success: true, settledAmount: amount, creditsLedgerEntryId: ledger.id }));
  const row = rows<{ ledger_metadata: { credit_split: Record<string, string>; grant_lots?: Record<string, string> } }>(
    await database.db.execute(sql`SELECT ledger_metadata FROM credits_ledger WHERE id = ${ledger.id}`),
  )[0];
  return row.ledger_metadata;
}

const balance = async (accountId: string) => (await database.db.select().from(creditBalances).where(eq(creditBalances.accountId, accountId)))[0];
const lot = async (id: string) => (await database.db.select().from(creditGrants).where(eq(creditGrants.id, id)))[0];

interface ExpireRow {
  id: string;
  entry_type: string;
  amount_credits: string;
  balance_before: string;
  balance_after: string;
  source_ref_type: string;
  source_ref_id: string;
  ledger_metadata: Record<string, unknown>;
}
const expireRows = async (accountId: string) =>
  rows<ExpireRow>(
    await database.db.execute(sql`
      SELECT id, entry_type, amount_credits, balance_before, balance_after, source_ref_type, source_ref_id, ledger_metadata
        FROM credits_ledger WHERE account_id = ${accountId} AND entry_type LIKE 'expire\\_%' ORDER BY seq`),
  );

describe("burn order", () => {
  it("a consume draws its kind's soonest-expiring lot first, then the next, then the kind's non-expiring credits; bonus before paid still", async () => {
    const { accountId } = await seedAccount(database.db);
    const inDays = (d: number) => new Date(Date.now() + d * 24 * HOUR);
    await grant(accountId, "10", "payment_recharge");
    await grant(accountId, "5", "welcome_bonus");
    const later = (await grant(accountId, "3", "welcome_bonus", inDays(20))).ledger_entry_id;
    const sooner = (await grant(accountId, "4", "welcome_bonus", inDays(10))).ledger_entry_id;
    const paidLot = (await grant(accountId, "6", "payment_recharge", inDays(5))).ledger_entry_id;

    const drawn = async (amount: string) => {
      const meta = await consume(accountId, amount);
      const split = Object.fromEntries(Object.entries(meta.credit_split).map(([kind, v]) => [kind, Number(v)]));
      return { split: { bonus: split.bonus, paid: split.paid }, lots: meta.grant_lots };
    };
    expect(await drawn("2")).toEqual({ split: { bonus: 2, paid: 0 }, lots: { [sooner]: "2.000000" } });
    expect(await drawn("3")).toEqual({ split: { bonus: 3, paid: 0 }, lots: { [sooner]: "2.000000", [later]: "1.000000" } });
    // The later lot's last 2, then 4 of the 5 non-expiring bonus credits.
    expect(await drawn("6")).toEqual({ split: { bonus: 6, paid: 0 }, lots: { [later]: "2.000000" } });
    // The paid lot expires soonest of all, but bonus credits (the last non-expiring one) go first.
    expect(await drawn("3")).toEqual({ split: { bonus: 1, paid: 2 }, lots: { [paidLot]: "2.000000" } });
    expect(await drawn("5")).toEqual({ split: { bonus: 0, paid: 5 }, lots: { [paidLot]: "4.000000" } });
    // Only non-expiring credits left: the consume row names no lot.
    expect(await drawn("1")).toEqual({ split: { bonus: 0, paid: 1 }, lots: undefined });

    for (const id of [sooner, later, paidLot]) expect(Number((await lot(id)).remainingCredits), id).toBe(0);
    expect(await balance(accountId)).toMatchObject({ bonusCredits: "0.000000", paidCredits: "8.000000" });
    await assertLedgerInvariants(database.db, accountId);
  });

  it("a grant's lot is recorded with it, and expires_at must lie in the future of the clock", async () => {
    const { accountId } = await seedAccount(database.db);
    const clock = new ManualClock(new Date("2030-01-01T00:00:00Z"));
    const at = new Date("2030-01-01T00:00:01Z");
    const granted = await grant(accountId, "7.5", "invitation_reward", at, clock);
    expect(granted).toMatchObject({ balance_after: 7.5, expires_at: at.toISOString() });
    expect(await lot(granted.ledger_entry_id)).toMatchObject({ accountId, kind: "reward", amountCredits: "7.500000", remainingCredits: "7.500000", expiresAt: at, expiredAt: null });
    clock.set(at);
    await expect(grant(accountId, "1", "invitation_reward", at, clock)).rejects.toMatchObject({ code: "invalid_input" });
    await expect(grant(accountId, "1", "invitation_reward", new Date("nope"), clock)).rejects.toMatchObject({ code: "invalid_input" });
    expect((await balance(accountId)).rewardCredits).toBe("7.500000");
    await assertLedgerInvariants(database.db, accountId);
  });
});

describe("expireCreditGrants", () => {
  it("writes one expire row per lot for what is left of it, lowers the kind's balance, and then does nothing more", async () => {
    const { accountId } = await seedAccount(database.db);
    const clock = new ManualClock(new Date());
    const bonusLot = (await grant(accountId, "5", "welcome_bonus", new Date(clock.now().getTime() + HOUR), clock)).ledger_entry_id;
    const rewardLot = (await grant(accountId, "3", "invitation_reward", new Date(clock.now().getTime() + 2 * HOUR), clock)).ledger_entry_id;
    await grant(accountId, "10", "payment_recharge");
    await consume(accountId, "2");

    expect(await expireCreditGrants(database.db, clock)).toBe(0);
    expect(await expireRows(accountId)).toEqual([]);

    clock.advance(1.5 * HOUR);
    expect(await expireCreditGrants(database.db, clock)).toBeGreaterThanOrEqual(1);
    // The bonus lot gave 2 to the consume: only its remaining 3 expire.
    expect(await expireRows(accountId)).toEqual([
      expect.objectContaining({
        entry_type: "expire_welcome_bonus",
        amount_credits: "-3.000000",
        balance_before: "16.000000",
        balance_after: "13.000000",
        source_ref_type: "grant",
        source_ref_id: bonusLot,
        ledger_metadata: expect.objectContaining({ credit_kind: "bonus", grant_id: bonusLot }),
      }),
    ]);
    expect(await lot(bonusLot)).toMatchObject({ remainingCredits: "0.000000", expiredAt: clock.now() });
    expect(await balance(accountId)).toMatchObject({ bonusCredits: "0.000000", rewardCredits: "3.000000", paidCredits: "10.000000" });
    await assertLedgerInvariants(database.db, accountId);

    clock.advance(HOUR);
    await expireCreditGrants(database.db, clock);
    await expireCreditGrants(database.db, clock);
    const expired = await expireRows(accountId);
    expect(expired.map((r) => [r.entry_type, r.amount_credits, r.source_ref_id])).toEqual([
      ["expire_welcome_bonus", "-3.000000", bonusLot],
      ["expire_invitation_reward", "-3.000000", rewardLot],
    ]);
    expect(await balance(accountId)).toMatchObject({ bonusCredits: "0.000000", rewardCredits: "0.000000", paidCredits: "10.000000" });
    await assertLedgerInvariants(database.db, accountId);
  });

  it("a lot consumed to nothing expires without a ledger row", async () => {
    const { accountId } = await seedAccount(database.db);
    const clock = new ManualClock(new Date());
    const id = (await grant(accountId, "2", "welcome_bonus", new Date(clock.now().getTime() + HOUR), clock)).ledger_entry_id;
    await consume(accountId, "2");
    clock.advance(2 * HOUR);
    await expireCreditGrants(database.db, clock);
    expect(await expireRows(accountId)).toEqual([]);
    expect((await lot(id)).expiredAt).toEqual(clock.now());
    await assertLedgerInvariants(database.db, accountId);
  });

  it("sweepers running at once expire each lot exactly once, in small batches", async () => {
    const clock = new ManualClock(new Date());
    const accounts: { accountId: string; lots: string[] }[] = [];
    for (let a = 0; a < 4; a++) {
      const { accountId } = await seedAccount(database.db);
      const lots: string[] = [];
      for (let l = 0; l < 3; l++) {
        const type = (["welcome_bonus", "payment_recharge", "invitation_reward"] as const)[l];
        lots.push((await grant(accountId, `${l + 1}`, type, new Date(clock.now().getTime() + (l + 1) * 60_000), clock)).ledger_entry_id);
      }
      await grant(accountId, "1", "payment_recharge");
      accounts.push({ accountId, lots });
    }
    clock.advance(HOUR);
    const counts = await Promise.all([1, 2, 3].map(() => expireCreditGrants(database.db, clock, 2)));
    expect(counts.reduce((x, y) => x + y, 0)).toBeGreaterThanOrEqual(accounts.length * 3);
    for (const { accountId, lots } of accounts) {
      const expired = await expireRows(accountId);
      expect(expired.map((r) => r.source_ref_id).sort()).toEqual([...lots].sort());
      expect(expired.map((r) => r.amount_credits)).toEqual(["-1.000000", "-2.000000", "-3.000000"]);
      expect(await balance(accountId)).toMatchObject({ paidCredits: "1.000000", bonusCredits: "0.000000", rewardCredits: "0.000000" });
      await assertLedgerInvariants(database.db, accountId);
    }
  });

  it("credits reserved by a Call in flight are not expired from under it; the rest expires after it settles", async () => {
    const { accountId } = await seedAccount(database.db);
    const clock = new ManualClock(new Date());
    const id = (await grant(accountId, "10", "welcome_bonus", new Date(clock.now().getTime() + HOUR), clock)).ledger_entry_id;
    const executionId = newId("exe");
    const reserved = await reserveCall(
      database.db,
      { id: executionId, accountId, toolId: TOOL, providerId: "tollgate-builtin", sessionId: executionId, status: "reserved", parameters: { principal: 1 }, reservationExpiresAt: new Date(Date.now() + HOUR) },
      "7",
    );
    expect(reserved).toEqual({ reserved: true });

    clock.advance(2 * HOUR);
    await expireCreditGrants(database.db, clock);
    // Only the 3 credits not reserved go; the lot stays live for the other 7.
    expect((await expireRows(accountId)).map((r) => r.amount_credits)).toEqual(["-3.000000"]);
    expect(await lot(id)).toMatchObject({ remainingCredits: "7.000000", expiredAt: null });
    expect(await balance(accountId)).toMatchObject({ bonusCredits: "7.000000", reservedCredits: "7.000000" });
    await assertLedgerInvariants(database.db, accountId);

    // The Call spends 4 of its 7, drawn from the lot; the next sweep expires the last 3.
    const settled = await settleReservedCall(database.db, {
      executionId,
      accountId,
      update: { success: true, reasonCode: "result.valid", chargeOutcome: "charged", settledCredits: "4", durationMs: 5 },
      event: { accountId, eventType: "tool_execute", executionId, toolId: TOOL, success: true, settledAmount: "4" },
      charge: { amount: "4", ledger: { id: newId("led"), entry_type: "consume_tool_execute", description: "call", source_ref_type: "execution", source_ref_id: executionId, execution_id: executionId } },
    });
    expect(settled.settled).toBe(true);
    expect((await lot(id)).remainingCredits).toBe("3.000000");
    await expireCreditGrants(database.db, clock);
    expect((await expireRows(accountId)).map((r) => r.amount_credits)).toEqual(["-3.000000", "-3.000000"]);
    expect(await lot(id)).toMatchObject({ remainingCredits: "0.000000", expiredAt: clock.now() });
    expect(await balance(accountId)).toMatchObject({ bonusCredits: "0.000000", reservedCredits: "0.000000" });
    await assertLedgerInvariants(database.db, accountId);
  });
});

/**
 * The burn order replayed from the ledger alone (seq order): grants with an expiry add lots,
 * each consume draws its kind's share from the kind's lots soonest-expiring first. What the
 * database recorded (each consume's grant_lots, each lot's remaining) must be exactly that.
 */
describe("under concurrency", () => {
  it("Calls settling while expiring grants arrive draw the lots in burn order, each lot seen by every later debit", async () => {
    const { accountId } = await seedAccount(database.db);
    await grant(accountId, "100", "welcome_bonus");
    const day = 24 * HOUR;
    // Each new lot expires sooner than the last, so a debit that missed one would draw a later one instead.
    for (let round = 0; round < 4; round++) {
      const debits = Array.from({ length: 40 }, () => consume(accountId, "0.5"));
      const grants = Array.from({ length: 5 }, (_, k) => grant(accountId, "2", "welcome_bonus", new Date(Date.now() + (100 - round * 5 - k) * day)));
      await Promise.all([...debits, ...grants]);
    }
    expect((await balance(accountId)).bonusCredits).toBe("60.000000");
    await assertBurnOrderReplays(database.db, accountId);
    await assertLedgerInvariants(database.db, accountId);
  });

});

describe("notifyExpiringGrants", () => {
  it("tells the account once per grant that expires within 7 days, with a webhook delivery", async () => {
    const clock = new ManualClock(new Date());
    const a = await seedAccount(database.db, { credits: "0" });
    await database.db.execute(sql`INSERT INTO webhook_endpoints (id, account_id, url, events, secret_ciphertext) VALUES (${`whe_test_${a.accountId}`}, ${a.accountId}, 'https://example.test/hook', '{credits.expiring}', 'x')`);
    const soon = await grant(a.accountId, "5", "welcome_bonus", new Date(clock.now().getTime() + 3 * 24 * HOUR), clock);
    await grant(a.accountId, "7", "payment_recharge", new Date(clock.now().getTime() + 30 * 24 * HOUR), clock);
    const notices = async () =>
      rows<{ claim_key: string; payload: Record<string, unknown>; deliveries: number }>(
        await database.db.execute(sql`SELECT n.claim_key, n.payload, (SELECT count(*)::int FROM webhook_deliveries d WHERE d.notification_id = n.id) AS deliveries
                                  FROM notifications n WHERE n.account_id = ${a.accountId} AND n.kind = 'credits_expiring' ORDER BY n.claim_key`),
      );
    await Promise.all([notifyExpiringGrants(database.db, clock), notifyExpiringGrants(database.db, clock)]);
    let found = await notices();
    expect(found).toEqual([{ claim_key: `credits_expiring:${soon.ledger_entry_id}`, payload: expect.objectContaining({ grant_id: soon.ledger_entry_id, kind: "bonus", remaining_credits: 5 }), deliveries: 1 }]);
    // Three weeks on, the second grant's week has come: it is told too; the first is not told again.
    clock.advance(24 * 24 * HOUR);
    expect(await notifyExpiringGrants(database.db, clock)).toBe(1);
    found = await notices();
    expect(found.map((n) => n.claim_key).sort()).toHaveLength(2);
    expect(await notifyExpiringGrants(database.db, clock)).toBe(0);
  });
});
