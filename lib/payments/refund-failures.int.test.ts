// A refund Stripe fails after it succeeded (the card it went back to was closed): `refund.failed`
// undoes its reversal once, whatever the deliveries — the credits it took given back, its debt
// cancelled, the ledger append-only — and the reconciliation matches Stripe's `refund_failure` to
// that undo. The real `stripe` SDK and webhook against the local stand-in, on a real database.
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { type TestServer } from "../testing/server";
import { seedAccount } from "../testing/fixtures";
import { assertLedgerInvariants } from "../testing/invariants";
import { paymentsSuite, type Json, type PaymentsSuite, type Seeded } from "../testing/payments-suite";
import { configurePayments, deliverStripeEvent, startFakeStripe, TEST_WEBHOOK_SECRET, type FakeStripe } from "../testing/fake-stripe";
import { rows } from "../db/row-sql";
import { verifyLedger } from "../audit/verify";
import { paymentConfigOrThrow } from "./payment-config";
import { reconcilePayments, type ReconciliationLine, type ReconciliationReport } from "./reconcile-payments";

const { suite, api, deliver } = paymentsSuite({ catalog: true });
let database: PaymentsSuite["database"];
let server: TestServer;
let fake: FakeStripe;
beforeAll(() => ({ database, server, fake } = suite));

const outcome = async (event: Json) => {
  const answer = await deliver(event);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.data.outcome as string;
};

/** Credits at 1 cent each: a purchase through the API, paid on the stand-in and granted by its webhook. */
async function buy(owner: Seeded, credits: number) {
  const started = await api("POST", "/auth/billing/checkout", owner.accessToken, { credits });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const paid = fake.pay(started.body.data.stripe_checkout_session_id);
  expect(await outcome(fake.event("payment_intent.succeeded", paid.paymentIntent))).toBe("granted");
  return { paymentId: started.body.data.payment_id as string, intentId: paid.paymentIntent.id as string, chargeId: paid.charge.id as string };
}

/** `n` Calls of a 1-credit tool. */
async function spend(owner: Seeded, n: number) {
  for (let i = 0; i < n; i++) {
    const call = await api("POST", "/tools/execute", owner.apiKey, { tool_id: "builtin.finance.compound_interest", parameters: { principal: 100, annual_rate_percent: 5, years: 2 } });
    expect(call.status).toBe(200);
  }
}

async function balance(owner: Seeded) {
  return (await api("GET", "/auth/credits", owner.accessToken)).body.data as { paid_credits: number; total_credits: number };
}

const debt = async (owner: Seeded) => (await api("GET", "/auth/billing/payments", owner.accessToken)).body.data.debt_credits as number;

async function ledger(accountId: string) {
  return rows<{ id: string; entry_type: string; amount_credits: string; source_ref_type: string; source_ref_id: string; balance_after: string; ledger_metadata: Json }>(
    await database.db.execute(sql`
      SELECT id, entry_type, amount_credits::text AS amount_credits, source_ref_type, source_ref_id, balance_after::text AS balance_after, ledger_metadata
        FROM credits_ledger WHERE account_id = ${accountId} ORDER BY seq`),
  );
}

async function reversalOf(stripeId: string) {
  return rows<{ id: string; credits: string; credits_recovered: string; failed_at: Date | string | null; undo_ledger_entry_id: string | null; ledger_entry_id: string | null }>(
    await database.db.execute(sql`
      SELECT id, credits::text AS credits, credits_recovered::text AS credits_recovered, failed_at, undo_ledger_entry_id, ledger_entry_id
        FROM payment_reversals WHERE stripe_id = ${stripeId}`),
  )[0];
}

/** The account's reconciliation of today (UTC, from yesterday to the day after tomorrow, whatever the hour), listed afresh. */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const reconcile = (accountId: string) => reconcilePayments(database.db, { from: day(-1), to: day(2), accountId }, paymentConfigOrThrow(), { cache: null });
const linesOf = (report: ReconciliationReport, sourceId: string) =>
  report.lines.filter((l) => l.stripe_source_id === sourceId).sort((a, b) => a.kind.localeCompare(b.kind)) as ReconciliationLine[];

describe("a refund Stripe fails after it succeeded", () => {
  it("is undone once by its id whatever the deliveries: 100 bought, 30 spent, refunded in full (70 taken, 30 owed), failed — 6 concurrent deliveries give back the 70 once and cancel the 30, audit verify passes, the day's reconciliation matches the refund and its failure", async () => {
    const owner = await seedAccount(database.db);
    const bought = await buy(owner, 100);
    await spend(owner, 30);
    const refund = fake.refund(bought.intentId);
    expect(await outcome(fake.event("refund.created", refund))).toBe("reversed");
    expect(await balance(owner)).toMatchObject({ paid_credits: 0, total_credits: 0 });
    expect(await debt(owner)).toBe(30);
    const reversal = await reversalOf(refund.id as string);
    expect(reversal).toMatchObject({ credits: "100.000000", credits_recovered: "70.000000", failed_at: null, undo_ledger_entry_id: null });

    // Stripe fails it: refund.failed delivered 5 times at once, and refund.updated (status failed) among them.
    const failed = fake.failRefund(refund.id as string);
    const event = fake.event("refund.failed", failed);
    const answers = await Promise.all([...Array.from({ length: 5 }, () => deliver(event)), deliver(fake.event("refund.updated", failed))]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // Each event applied once (the others answered as replays), and the refund undone by one of the two.
    const applied = answers.map((a) => a.body.data as { outcome: string; duplicate: boolean }).filter((d) => !d.duplicate);
    expect(applied.map((d) => d.outcome).sort()).toEqual(["duplicate_refund_failure", "reversal_undone"]);

    expect(await balance(owner)).toMatchObject({ paid_credits: 70, total_credits: 70 });
    expect(await debt(owner)).toBe(0);
    expect((await api("GET", "/auth/billing/config", owner.accessToken)).body.data.debt_credits).toBe(0);
    const undoRows = (await ledger(owner.accountId)).filter((r) => r.source_ref_type === "payment_reversal_undo");
    expect(undoRows).toEqual([
      expect.objectContaining({
        entry_type: "grant_payment_recharge",
        amount_credits: "70.000000",
        source_ref_id: reversal.id,
        balance_after: "70.000000",
        ledger_metadata: expect.objectContaining({ credit_kind: "paid", stripe_id: refund.id, payment_id: bought.paymentId, credits_returned: "70.000000", debt_cancelled: "30.000000", failure_reason: "expired_or_canceled_card" }),
      }),
    ]);
    // What the reversal took and what its undo gave back net to zero; the reversal names its undo.
    const taken = (await ledger(owner.accountId)).filter((r) => r.entry_type === "consume_payment_refund").map((r) => r.amount_credits);
    expect(taken).toEqual(["-70.000000"]);
    expect(await reversalOf(refund.id as string)).toMatchObject({ credits_recovered: "70.000000", failed_at: expect.anything(), undo_ledger_entry_id: undoRows[0].id });
    const payment = (await api("GET", `/auth/billing/payments/${bought.paymentId}`, owner.accessToken)).body.data;
    expect(payment).toMatchObject({ refunded_minor: 0, reversed_credits: 0, reversals: [{ stripe_id: refund.id, credits: 100, credits_recovered: 70, failed_at: expect.any(String) }] });
    const activity = rows<{ action: string; after: Json }>(
      await database.db.execute(sql`SELECT action, after FROM account_activity WHERE account_id = ${owner.accountId} AND action = 'credits.reversal_undone'`),
    );
    expect(activity).toEqual([
      { action: "credits.reversal_undone", after: expect.objectContaining({ reversal_id: reversal.id, stripe_id: refund.id, amount_credits: "70", debt_cancelled: "30", ledger_entry_id: undoRows[0].id, reason: "expired_or_canceled_card" }) },
    ]);

    // Stripe's older events, delivered late, carry the refund as it was: nothing is reversed again.
    expect(await outcome(fake.event("refund.created", { ...failed, status: "succeeded" }))).toBe("ignored_refund_failed");
    expect(await outcome(fake.event("charge.refunded", fake.charges.get(bought.chargeId)!))).toBe("duplicate_reversal");
    expect(await balance(owner)).toMatchObject({ paid_credits: 70 });
    await assertLedgerInvariants(database.db, owner.accountId);
    expect((await verifyLedger(database.db, { accountId: owner.accountId })).ok).toBe(true);

    const report = await reconcile(owner.accountId);
    const consumeId = reversal.ledger_entry_id;
    expect(linesOf(report, refund.id as string)).toEqual([
      expect.objectContaining({ status: "matched", kind: "refund", amount_minor: -100, ledger_amount_minor: -100, credits: -100, reversal_id: reversal.id, ledger_entry_ids: [consumeId] }),
      expect.objectContaining({ status: "matched", kind: "refund_failure", amount_minor: 100, ledger_amount_minor: 100, credits: 100, reversal_id: reversal.id, ledger_entry_ids: [undoRows[0].id], payment_id: bought.paymentId }),
    ]);
    expect(report.unmatched).toBe(0);
    expect(report.totals).toEqual([expect.objectContaining({ currency: "usd", gross_minor: 100, credits_granted: 100, credits_reversed: 0, lines: 3, unmatched: 0 })]);
  });

  it("a partial refund that fails gives back only its own share; the payment's other refund stands, takes its debt from the credits given back, and a new refund counts from what still stands", async () => {
    const owner = await seedAccount(database.db);
    const first = await buy(owner, 50);
    await spend(owner, 40);
    // 20 cents back: 20 credits owed, 10 taken. 15 cents back: 15 owed, nothing left to take.
    const a = fake.refund(first.intentId, 20);
    const b = fake.refund(first.intentId, 15);
    expect(await outcome(fake.event("refund.created", a))).toBe("reversed");
    expect(await outcome(fake.event("refund.created", b))).toBe("reversed");
    expect(await balance(owner)).toMatchObject({ paid_credits: 0 });
    expect(await debt(owner)).toBe(25);

    // Refund a fails, said by refund.updated: its 10 come back, its 10 owed are cancelled, and b takes those 10 at once.
    const failed = fake.failRefund(a.id as string, "lost_or_stolen_card");
    expect(await outcome(fake.event("refund.updated", failed))).toBe("reversal_undone");
    expect(await outcome(fake.event("refund.failed", failed))).toBe("duplicate_refund_failure");
    const ra = await reversalOf(a.id as string);
    const rb = await reversalOf(b.id as string);
    expect(ra).toMatchObject({ credits: "20.000000", credits_recovered: "10.000000", failed_at: expect.anything() });
    expect(rb).toMatchObject({ credits: "15.000000", credits_recovered: "10.000000", failed_at: null });
    expect((await ledger(owner.accountId)).slice(-2)).toEqual([
      expect.objectContaining({ entry_type: "grant_payment_recharge", amount_credits: "10.000000", source_ref_type: "payment_reversal_undo", source_ref_id: ra.id, balance_after: "10.000000" }),
      expect.objectContaining({
        entry_type: "consume_payment_refund",
        amount_credits: "-10.000000",
        source_ref_id: rb.id,
        balance_after: "0.000000",
        ledger_metadata: expect.objectContaining({ stripe_id: b.id, settled_by_reversal_undo: ra.id }),
      }),
    ]);
    // Paid 50, 15 given back in money: 35 credits were theirs, 40 were spent, 5 owed.
    expect(await balance(owner)).toMatchObject({ paid_credits: 0 });
    expect(await debt(owner)).toBe(5);
    expect((await api("GET", `/auth/billing/payments/${first.paymentId}`, owner.accessToken)).body.data).toMatchObject({ refunded_minor: 15, reversed_credits: 15 });

    // The next purchase settles the 5; a new refund of 20 counts from the 15 that stand (35 of 50), so it takes 20.
    await buy(owner, 50);
    expect(await balance(owner)).toMatchObject({ paid_credits: 45 });
    expect(await debt(owner)).toBe(0);
    const c = fake.refund(first.intentId, 20);
    expect(await outcome(fake.event("refund.created", c))).toBe("reversed");
    expect(await reversalOf(c.id as string)).toMatchObject({ credits: "20.000000", credits_recovered: "20.000000" });
    expect(await balance(owner)).toMatchObject({ paid_credits: 25 });
    await assertLedgerInvariants(database.db, owner.accountId);

    const report = await reconcile(owner.accountId);
    expect(linesOf(report, a.id as string)).toEqual([
      expect.objectContaining({ status: "matched", kind: "refund", amount_minor: -20, credits: -20 }),
      expect.objectContaining({ status: "matched", kind: "refund_failure", amount_minor: 20, credits: 20, ledger_entry_ids: [ra.undo_ledger_entry_id] }),
    ]);
    expect(report.unmatched).toBe(0);
    // Taken back: a 20, b 15, c 20, less a's 20 undone.
    expect(report.totals).toEqual([expect.objectContaining({ gross_minor: 50 + 50 - 20 - 15 + 20 - 20, credits_granted: 100, credits_reversed: 35, unmatched: 0 })]);
  });

  it("a refund that failed before it was reversed here records its failure and moves no credits; its late success event reverses nothing; the reconciliation matches both of Stripe's transactions to it", async () => {
    const owner = await seedAccount(database.db);
    const bought = await buy(owner, 100);
    // Stripe refunded 40 and failed it; refund.created never reached Tollgate.
    const refund = fake.refund(bought.intentId, 40);
    const failed = fake.failRefund(refund.id as string);
    const before = await ledger(owner.accountId);
    expect(await outcome(fake.event("refund.failed", failed))).toBe("refund_failure_recorded");
    expect(await outcome(fake.event("refund.failed", failed))).toBe("duplicate_refund_failure");
    expect(await outcome(fake.event("refund.created", { ...failed, status: "succeeded" }))).toBe("ignored_refund_failed");
    expect(await ledger(owner.accountId)).toEqual(before);
    expect(await balance(owner)).toMatchObject({ paid_credits: 100 });
    expect(await debt(owner)).toBe(0);
    expect(await reversalOf(refund.id as string)).toMatchObject({ credits: "0.000000", credits_recovered: "0.000000", failed_at: expect.anything(), undo_ledger_entry_id: null });
    await assertLedgerInvariants(database.db, owner.accountId);

    const report = await reconcile(owner.accountId);
    expect(linesOf(report, refund.id as string)).toEqual([
      expect.objectContaining({ status: "matched", kind: "refund", amount_minor: -40, ledger_entry_ids: [] }),
      expect.objectContaining({ status: "matched", kind: "refund_failure", amount_minor: 40, credits: 0, ledger_entry_ids: [] }),
    ]);
    expect(report.totals).toEqual([expect.objectContaining({ gross_minor: 100, credits_granted: 100, credits_reversed: 0, unmatched: 0 })]);
  });

  it("the reconciliation finds a refund_failure whose refund.failed never reached Tollgate missing in the ledger, and matches it once the event is delivered", async () => {
    const owner = await seedAccount(database.db);
    const bought = await buy(owner, 100);
    const refund = fake.refund(bought.intentId, 60);
    expect(await outcome(fake.event("refund.created", refund))).toBe("reversed");
    const failed = fake.failRefund(refund.id as string);
    const reversal = await reversalOf(refund.id as string);

    const before = await reconcile(owner.accountId);
    expect(linesOf(before, refund.id as string)).toEqual([
      expect.objectContaining({ status: "matched", kind: "refund", credits: -60 }),
      expect.objectContaining({ status: "missing_in_ledger", kind: "refund_failure", amount_minor: 60, reversal_id: reversal.id, credits: null, detail: expect.stringContaining("refund.failed did not reach Tollgate") }),
    ]);
    expect(before.unmatched).toBe(1);

    expect(await outcome(fake.event("refund.failed", failed))).toBe("reversal_undone");
    expect(await balance(owner)).toMatchObject({ paid_credits: 100 });
    const after = await reconcile(owner.accountId);
    expect(linesOf(after, refund.id as string).map((l) => [l.kind, l.status, l.credits])).toEqual([
      ["refund", "matched", -60],
      ["refund_failure", "matched", 60],
    ]);
    expect(after.unmatched).toBe(0);
  });

  it("an undo whose refund_failure Stripe dates in another period is named in the undo's period and counted in Stripe's; an undo Stripe has no refund_failure for is missing in Stripe", async () => {
    const owner = await seedAccount(database.db);
    const bought = await buy(owner, 100);
    const refund = fake.refund(bought.intentId, 30);
    expect(await outcome(fake.event("refund.created", refund))).toBe("reversed");
    // Stripe dates its failure 5 days ago; Tollgate hears of it now.
    const fiveDaysAgo = Math.floor(Date.now() / 1000) - 5 * 86_400;
    const failed = fake.failRefund(refund.id as string, "expired_or_canceled_card", fiveDaysAgo);
    expect(await outcome(fake.event("refund.failed", failed))).toBe("reversal_undone");
    const reversal = await reversalOf(refund.id as string);

    const today = await reconcile(owner.accountId);
    expect(linesOf(today, refund.id as string)).toEqual([
      expect.objectContaining({ kind: "refund", status: "matched", amount_minor: -30 }),
      expect.objectContaining({
        kind: "refund_failure",
        status: "matched",
        amount_minor: null,
        ledger_amount_minor: 30,
        credits: 30,
        ledger_entry_ids: [reversal.undo_ledger_entry_id],
        stripe_balance_transaction_id: failed.failure_balance_transaction,
        detail: expect.stringContaining("in another period"),
      }),
    ]);
    // Its money and credits count where Stripe dates it: not here.
    expect(today.totals).toEqual([expect.objectContaining({ gross_minor: 100 - 30, credits_reversed: 30, unmatched: 0 })]);
    const then = new Date(fiveDaysAgo * 1000).toISOString().slice(0, 10);
    const thatDay = await reconcilePayments(database.db, { from: then, to: day(-2), accountId: owner.accountId }, paymentConfigOrThrow(), { cache: null });
    expect(thatDay.lines).toEqual([
      expect.objectContaining({ kind: "refund_failure", status: "matched", amount_minor: 30, credits: 30, detail: expect.stringContaining(`undone in the ledger on ${new Date(reversal.failed_at!).toISOString()}`) }),
    ]);
    expect(thatDay.totals).toEqual([expect.objectContaining({ gross_minor: 30, credits_reversed: -30 })]);

    fake.balanceTransactions.delete(failed.failure_balance_transaction as string);
    const gone = await reconcile(owner.accountId);
    expect(linesOf(gone, refund.id as string)[1]).toMatchObject({ kind: "refund_failure", status: "missing_in_stripe", amount_minor: null, ledger_amount_minor: 30, credits: 30, reversal_id: reversal.id });
    expect(gone.unmatched).toBe(1);
  });

  it("audit verify is clean after all of the above", async () => {
    expect((await verifyLedger(database.db)).violations).toEqual([]);
  });
});
