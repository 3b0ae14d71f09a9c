// The payments reconciliation, end to end: the real `stripe` SDK lists the local stand-in's balance
// transactions (lib/testing/fake-stripe.ts), matched to payments, reversals and ledger rows written
// by the real webhook on a real database behind a real HTTP server. One of each mismatch kind is
// found; a charge whose grant never landed is applied once by the operator, and Stripe's late
// delivery grants nothing again; the nightly run notifies each unmatched line once.
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { type TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { assertLedgerInvariants } from "../testing/invariants";
import { paymentsSuite, type Json, type PaymentsSuite, type Seeded } from "../testing/payments-suite";
import { parseCsv } from "../testing/csv";
import { configurePayments, deliverStripeEvent, startFakeStripe, TEST_WEBHOOK_SECRET, type FakeStripe } from "../testing/fake-stripe";
import { rows } from "../db/row-sql";
import { runCommand } from "../cli/commands";
import { paymentConfigOrThrow } from "./payment-config";
import { reconcileYesterday } from "./reconcile-nightly";
import { BalanceTransactionCache, reconcilePayments, type ReconciliationLine, type ReconciliationReport } from "./reconcile-payments";

const { suite, api, deliver } = paymentsSuite({ catalog: false });
let database: PaymentsSuite["database"];
let server: TestServer;
let fake: FakeStripe;
beforeAll(() => ({ database, server, fake } = suite));

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
// Today's lines, whatever the hour: the period runs from yesterday to the day after tomorrow.
const FROM = day(-1);
const TO = day(2);
const cli = (args: string[]) => runCommand(database.db, ["payments", "reconcile", ...args]);

/** A purchase through the API, paid on the stand-in; `granted` delivers Stripe's payment_intent.succeeded. */
async function purchase(owner: Seeded, credits: number, granted = true) {
  const started = await api("POST", "/auth/billing/checkout", owner.accessToken, { credits });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const paid = fake.pay(started.body.data.stripe_checkout_session_id);
  if (granted) expect((await deliver(fake.event("payment_intent.succeeded", paid.paymentIntent))).body.data.outcome).toBe("granted");
  const txn = [...fake.balanceTransactions.values()].find((t) => t.source === paid.charge.id)!;
  return { paymentId: started.body.data.payment_id as string, intentId: paid.paymentIntent.id as string, chargeId: paid.charge.id as string, txnId: txn.id as string, paid };
}

/** CSV records as objects keyed by the header. */
function parse(text: string): Record<string, string>[] {
  const [header, ...data] = parseCsv(text);
  return data.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

const lineOf = (report: ReconciliationReport, key: Partial<ReconciliationLine>) =>
  report.lines.filter((l) => Object.entries(key).every(([k, v]) => (l as unknown as Record<string, unknown>)[k] === v));

async function grants(paymentId: string) {
  return rows<{ id: string }>(await database.db.execute(sql`SELECT id FROM credits_ledger WHERE entry_type = 'grant_payment_recharge' AND source_ref_id = ${paymentId}`));
}

describe("the payments reconciliation", () => {
  let owner: Seeded;
  let other: Seeded;
  let matched: Awaited<ReturnType<typeof purchase>>;
  let otherMatched: Awaited<ReturnType<typeof purchase>>;

  beforeAll(async () => {
    owner = await seedAccount(database.db);
    other = await seedAccount(database.db);
    matched = await purchase(owner, 100);
    otherMatched = await purchase(other, 300);
  });

  it("finds one of each kind: matched charge, a charge without its grant, a grant without its charge, an amount that differs, a matched refund, fees and a payout, totals per currency", async () => {
    const ungranted = await purchase(owner, 500, false);
    const vanished = await purchase(owner, 200);
    fake.balanceTransactions.delete(vanished.txnId);
    const differs = await purchase(owner, 400);
    // Stripe took another amount than the payment says (e.g. a capture of less).
    fake.charges.get(differs.chargeId)!.amount = 399;
    Object.assign(fake.balanceTransactions.get(differs.txnId)!, { amount: 399, net: 399 - Number(fake.balanceTransactions.get(differs.txnId)!.fee) });
    const refund = fake.refund(matched.intentId, 40);
    expect((await deliver(fake.event("refund.created", refund))).body.data.outcome).toBe("reversed");
    const fee = fake.addFee(150);
    const payout = fake.addPayout(1000);
    const foreign = fake.charge({ amount: 2500, currency: "eur" });

    const report = (await cli(["--from", FROM, "--to", TO])) as ReconciliationReport;
    expect(report).toMatchObject({ from: `${FROM}T00:00:00.000Z`, to: `${TO}T00:00:00.000Z`, account_id: null });
    const feeOf = (minor: number) => Math.round(minor * 0.029) + 30;

    expect(lineOf(report, { stripe_balance_transaction_id: matched.txnId })).toEqual([
      expect.objectContaining({ status: "matched", kind: "charge", amount_minor: 100, fee_minor: feeOf(100), net_minor: 100 - feeOf(100), ledger_amount_minor: 100, credits: 100, account_id: owner.accountId, payment_id: matched.paymentId, stripe_source_id: matched.chargeId, stripe_payment_intent_id: matched.intentId, ledger_entry_ids: (await grants(matched.paymentId)).map((g) => g.id) }),
    ]);
    expect(lineOf(report, { stripe_balance_transaction_id: ungranted.txnId })).toEqual([
      expect.objectContaining({ status: "missing_in_ledger", kind: "charge", amount_minor: 500, ledger_amount_minor: 500, credits: 500, account_id: owner.accountId, payment_id: ungranted.paymentId, ledger_entry_ids: [] }),
    ]);
    expect(lineOf(report, { payment_id: vanished.paymentId })).toEqual([
      expect.objectContaining({ status: "missing_in_stripe", kind: "charge", amount_minor: null, ledger_amount_minor: 200, credits: 200, account_id: owner.accountId, stripe_balance_transaction_id: null, stripe_payment_intent_id: vanished.intentId, ledger_entry_ids: (await grants(vanished.paymentId)).map((g) => g.id) }),
    ]);
    expect(lineOf(report, { stripe_balance_transaction_id: differs.txnId })).toEqual([
      expect.objectContaining({ status: "amount_differs", amount_minor: 399, stripe_source_amount_minor: 399, ledger_amount_minor: 400, payment_id: differs.paymentId }),
    ]);
    const reversal = rows<{ id: string; ledger_entry_id: string }>(await database.db.execute(sql`SELECT id, ledger_entry_id FROM payment_reversals WHERE stripe_id = ${refund.id as string}`))[0];
    expect(lineOf(report, { stripe_source_id: refund.id as string })).toEqual([
      expect.objectContaining({ status: "matched", kind: "refund", amount_minor: -40, ledger_amount_minor: -40, credits: -40, reversal_id: reversal.id, ledger_entry_ids: [reversal.ledger_entry_id], payment_id: matched.paymentId, stripe_payment_intent_id: matched.intentId }),
    ]);
    expect(lineOf(report, { stripe_balance_transaction_id: fee.id as string })).toEqual([expect.objectContaining({ status: "no_ledger_side", kind: "fee", amount_minor: -150, account_id: null })]);
    expect(lineOf(report, { stripe_balance_transaction_id: payout.id as string })).toEqual([expect.objectContaining({ status: "no_ledger_side", kind: "payout", amount_minor: -1000, stripe_source_id: payout.source })]);
    expect(lineOf(report, { stripe_source_id: foreign.charge.id as string })).toEqual([expect.objectContaining({ status: "missing_in_ledger", currency: "eur", account_id: null, payment_id: null })]);
    expect(lineOf(report, { payment_id: otherMatched.paymentId })).toEqual([expect.objectContaining({ status: "matched", account_id: other.accountId })]);

    expect(report.counts).toEqual({ matched: 3, missing_in_ledger: 2, missing_in_stripe: 1, amount_differs: 1, refused_event: 0, no_ledger_side: 2 });
    expect(report.unmatched).toBe(4);
    // usd: charges 100 + 300 + 500 + 399, refund −40; fees on the four charges and Stripe's 150; payouts apart.
    const usdFees = feeOf(100) + feeOf(300) + feeOf(500) + feeOf(400) + 150;
    expect(report.totals).toEqual([
      { currency: "eur", gross_minor: 2500, fee_minor: feeOf(2500), net_minor: 2500 - feeOf(2500), payouts_minor: 0, credits_granted: 0, credits_reversed: 0, lines: 1, unmatched: 1 },
      { currency: "usd", gross_minor: 1259, fee_minor: usdFees, net_minor: 1259 - usdFees, payouts_minor: -1000, credits_granted: 100 + 300 + 400 + 200, credits_reversed: 40, lines: 8, unmatched: 3 },
    ]);

    // One account's report: its lines only (no fees, payouts, other accounts or other products).
    const own = (await cli(["--from", FROM, "--to", TO, "--account", owner.accountId])) as ReconciliationReport;
    expect(new Set(own.lines.map((l) => l.account_id))).toEqual(new Set([owner.accountId]));
    expect(own.counts).toEqual({ matched: 2, missing_in_ledger: 1, missing_in_stripe: 1, amount_differs: 1, refused_event: 0, no_ledger_side: 0 });

    // CSV: the same lines and a total per currency, parsed back.
    const csv = (await cli(["--from", FROM, "--to", TO, "--csv"])) as string;
    const records = parse(csv);
    expect(records.filter((r) => r.record === "line")).toHaveLength(report.lines.length);
    expect(records.filter((r) => r.record === "total").map((r) => [r.currency, r.amount_minor, r.fee_minor])).toEqual([
      ["eur", "2500", String(feeOf(2500))],
      ["usd", "1259", String(usdFees)],
    ]);
    expect(records.find((r) => r.stripe_balance_transaction_id === ungranted.txnId)).toMatchObject({ status: "missing_in_ledger", payment_id: ungranted.paymentId, account_id: owner.accountId });
  });

  it("a charge whose grant never landed is applied by the operator once, named in the activity log, and Stripe's late delivery grants nothing again", async () => {
    const lost = await purchase(owner, 250, false);
    expect(await grants(lost.paymentId)).toEqual([]);
    // Without --confirm: what it would grant, nothing written.
    expect(await cli(["--apply", lost.txnId])).toMatchObject({ outcome: "would_grant", payment_id: lost.paymentId, account_id: owner.accountId, credits: "250", amount_minor: 250, ledger_entry_id: null });
    expect(await grants(lost.paymentId)).toEqual([]);
    const applied = (await cli(["--apply", lost.txnId, "--confirm"])) as { outcome: string; ledger_entry_id: string };
    expect(applied.outcome).toBe("granted");
    expect((await grants(lost.paymentId)).map((g) => g.id)).toEqual([applied.ledger_entry_id]);
    const activity = rows<{ actor_type: string; action: string }>(
      await database.db.execute(sql`SELECT actor_type, action FROM account_activity WHERE account_id = ${owner.accountId} AND action = 'credits.granted' AND object_id = ${applied.ledger_entry_id}`),
    );
    expect(activity).toEqual([{ actor_type: "operator", action: "credits.granted" }]);
    // Applying again, by the payment intent this time: nothing to do.
    expect(await cli(["--apply", lost.intentId, "--confirm"])).toMatchObject({ outcome: "already_granted", ledger_entry_id: applied.ledger_entry_id });
    // Stripe's own events arrive late: the payment is granted already.
    expect((await deliver(fake.event("checkout.session.completed", lost.paid.session))).body.data.outcome).toBe("duplicate_grant");
    expect((await deliver(fake.event("payment_intent.succeeded", lost.paid.paymentIntent))).body.data.outcome).toBe("duplicate_grant");
    expect(await grants(lost.paymentId)).toHaveLength(1);
    const report = (await cli(["--from", FROM, "--to", TO, "--account", owner.accountId])) as ReconciliationReport;
    expect(lineOf(report, { stripe_balance_transaction_id: lost.txnId })).toEqual([expect.objectContaining({ status: "matched", ledger_entry_ids: [applied.ledger_entry_id] })]);
    await assertLedgerInvariants(database.db, owner.accountId);
    // Something that is not a purchase is refused, and an unknown id is not found.
    const foreign = fake.charge({ amount: 700 });
    await expect(cli(["--apply", foreign.paymentIntent.id as string, "--confirm"])).rejects.toMatchObject({ code: "invalid_input" });
    await expect(cli(["--apply", "pi_doesnotexist"])).rejects.toMatchObject({ code: "not_found" });
  });

  it("the API: an owner reads their account's lines only, another owner does not see them, support reads with account_id (logged), CSV by format or Accept", async () => {
    const own = await api("GET", `/auth/billing/reconciliation?from=${FROM}&to=${TO}`, owner.accessToken);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    const lines = own.body.data.lines as ReconciliationLine[];
    expect(lines.length).toBeGreaterThan(0);
    expect(new Set(lines.map((l) => l.account_id))).toEqual(new Set([owner.accountId]));
    expect(lines.some((l) => l.payment_id === otherMatched.paymentId)).toBe(false);
    expect(own.body.data.totals.map((t: Json) => t.currency)).toEqual(["usd"]);

    const theirs = await api("GET", `/auth/billing/reconciliation?from=${FROM}&to=${TO}`, other.accessToken);
    expect((theirs.body.data.lines as ReconciliationLine[]).map((l) => [l.status, l.payment_id])).toEqual([["matched", otherMatched.paymentId]]);
    expect((await api("GET", `/auth/billing/reconciliation?from=${FROM}&to=${TO}&account_id=${owner.accountId}`, other.accessToken)).status).toBe(403);

    const support = await seedAccount(database.db, { role: "support" });
    const bySupport = await api("GET", `/auth/billing/reconciliation?from=${FROM}&to=${TO}&account_id=${owner.accountId}`, support.accessToken);
    expect(bySupport.status).toBe(200);
    expect(bySupport.body.data.lines).toHaveLength(lines.length);
    const logged = rows(await database.db.execute(sql`SELECT 1 FROM support_access_log WHERE user_id = ${support.userId} AND target_account_id = ${owner.accountId} AND resource = 'GET /auth/billing/reconciliation'`));
    expect(logged).toHaveLength(1);

    for (const [query, headers] of [["&format=csv", {}], ["", { accept: "text/csv" }]] as const) {
      const res = await fetch(`${server.url}/api/v1/auth/billing/reconciliation?from=${FROM}&to=${TO}${query}`, { headers: { ...bearer(owner.accessToken), ...headers } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/csv");
      const records = parse(await res.text());
      expect(records.filter((r) => r.record === "line").map((r) => r.account_id)).toEqual(lines.map(() => owner.accountId));
    }

    expect((await api("GET", `/auth/billing/reconciliation?from=${TO}&to=${FROM}`, owner.accessToken)).status).toBe(400);
    expect((await api("GET", `/auth/billing/reconciliation?from=2026-13-01&to=${TO}`, owner.accessToken)).status).toBe(400);
  });

  it("the month's statement lists its payments (intent, amount, credits, grant row) and refunds by id, as CSV too", async () => {
    const month = new Date().toISOString().slice(0, 7);
    const res = await api("GET", `/auth/credits/statements/${month}`, other.accessToken);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [grant] = await grants(otherMatched.paymentId);
    expect(res.body.data.payments).toEqual([
      expect.objectContaining({ payment_id: otherMatched.paymentId, stripe_payment_intent_id: otherMatched.intentId, amount_minor: 300, currency: "usd", credits: 300, ledger_entry_id: grant.id }),
    ]);
    expect(res.body.data.payment_reversals).toEqual([]);
    const mine = (await api("GET", `/auth/credits/statements/${month}`, owner.accessToken)).body.data;
    expect(mine.payments.map((p: Json) => p.payment_id)).toContain(matched.paymentId);
    const reversal = rows<{ id: string; stripe_id: string; ledger_entry_id: string }>(await database.db.execute(sql`SELECT id, stripe_id, ledger_entry_id FROM payment_reversals WHERE payment_id = ${matched.paymentId}`))[0];
    expect(mine.payment_reversals).toEqual([
      expect.objectContaining({ reversal_id: reversal.id, kind: "refund", stripe_id: reversal.stripe_id, payment_id: matched.paymentId, amount_minor: 40, credits: 40, credits_taken: 40, ledger_entry_ids: [reversal.ledger_entry_id] }),
    ]);
    const csv = await fetch(`${server.url}/api/v1/auth/credits/statements/${month}/export`, { headers: bearer(other.accessToken) });
    const records = parseCsv(await csv.text());
    expect(records.filter((r) => r[0] === "payments")).toEqual([["payments", otherMatched.paymentId, "paid", "300", "", `300 usd; payment intent ${otherMatched.intentId}; ledger ${grant.id}`]]);
  });

  it("the nightly run notifies each unmatched line of an account once, and a second run repeats nothing", async () => {
    const notes = async (s: Seeded) =>
      rows<{ claim_key: string; payload: Json }>(await database.db.execute(sql`SELECT claim_key, payload FROM notifications WHERE account_id = ${s.accountId} AND kind = 'payment_unmatched' ORDER BY claim_key`));
    const tomorrow = new Date(Date.now() + 86_400_000);
    const report = (await cli(["--from", day(0), "--to", day(1), "--account", owner.accountId])) as ReconciliationReport;
    const first = await reconcileYesterday(database.db, paymentConfigOrThrow(), tomorrow);
    expect(first).toMatchObject({ status: "reconciled", day: day(0) });
    const written = await notes(owner);
    expect(written).toHaveLength(report.unmatched);
    expect(report.unmatched).toBeGreaterThanOrEqual(3);
    expect(written.map((n) => n.payload.status).sort()).toEqual(report.lines.filter((l) => ["missing_in_ledger", "missing_in_stripe", "amount_differs"].includes(l.status)).map((l) => l.status).sort());
    expect(await notes(other)).toEqual([]);
    // The owner's notification list shows them, with their webhook event type.
    const listed = (await api("GET", "/auth/notifications", owner.accessToken)).body.data.items as { kind: string; event_type: string }[];
    expect(listed.filter((n) => n.kind === "payment_unmatched").every((n) => n.event_type === "payment.unmatched")).toBe(true);

    expect(await reconcileYesterday(database.db, paymentConfigOrThrow(), tomorrow)).toMatchObject({ status: "finished_before", day: day(0) });
    expect(await notes(owner)).toHaveLength(written.length);
    // Run again anyway (the day's row forgotten): the same findings are not notified twice.
    await database.db.execute(sql`DELETE FROM payment_reconciliation_runs WHERE day = ${day(0)}::date`);
    expect(await reconcileYesterday(database.db, paymentConfigOrThrow(), tomorrow)).toMatchObject({ status: "reconciled", notified: 0 });
    expect(await notes(owner)).toHaveLength(written.length);
    // Three instances ticking at once on another day: one reconciles it.
    const later = new Date(Date.now() + 3 * 86_400_000);
    const ticks = await Promise.all([1, 2, 3].map(() => reconcileYesterday(database.db, paymentConfigOrThrow(), later)));
    expect(ticks.filter((t) => t.status === "reconciled")).toHaveLength(1);
    expect(ticks.filter((t) => t.status !== "reconciled").every((t) => t.status === "busy" || t.status === "finished_before")).toBe(true);
    expect(rows<{ attempts: number }>(await database.db.execute(sql`SELECT attempts FROM payment_reconciliation_runs WHERE day = ${day(2)}::date`))).toEqual([{ attempts: 1 }]);
  });

  it("disputes: an open one's withdrawal has no ledger side, a won one's reinstatement neither; a lost one matches its reversal, even when Stripe withdrew in an earlier period", async () => {
    const third = await seedAccount(database.db);
    const p = await purchase(third, 600);
    const open = fake.dispute(p.intentId, "needs_response", 100, `dp_open_${third.accountId}`);
    expect((await deliver(fake.event("charge.dispute.created", open))).body.data.outcome).toBe("dispute_opened");
    const early = fake.dispute(p.intentId, "needs_response", 150, `dp_late_${third.accountId}`);
    const withdrawal = [...fake.balanceTransactions.values()].find((t) => t.source === early.id)!;
    withdrawal.created = Number(withdrawal.created) - 5 * 86_400;
    expect((await deliver(fake.event("charge.dispute.closed", fake.dispute(p.intentId, "lost", 150, early.id as string)))).body.data.outcome).toBe("dispute_lost_reversed");
    const report = (await cli(["--from", FROM, "--to", TO, "--account", third.accountId])) as ReconciliationReport;
    expect(lineOf(report, { stripe_source_id: open.id as string })).toEqual([
      expect.objectContaining({ status: "no_ledger_side", kind: "dispute_loss", amount_minor: -100, account_id: third.accountId, payment_id: p.paymentId, ledger_entry_ids: [] }),
    ]);
    const reversal = rows<{ id: string; ledger_entry_id: string }>(await database.db.execute(sql`SELECT id, ledger_entry_id FROM payment_reversals WHERE stripe_id = ${early.id as string}`))[0];
    expect(lineOf(report, { stripe_source_id: early.id as string })).toEqual([
      expect.objectContaining({ status: "matched", kind: "dispute_loss", amount_minor: null, ledger_amount_minor: -150, credits: -150, reversal_id: reversal.id, ledger_entry_ids: [reversal.ledger_entry_id], stripe_balance_transaction_id: withdrawal.id }),
    ]);
    // The earlier period holds the withdrawal, matched to the reversal by the dispute's id.
    const before = (await cli(["--from", day(-6), "--to", day(-3), "--account", third.accountId])) as ReconciliationReport;
    expect(lineOf(before, { stripe_source_id: early.id as string })).toEqual([expect.objectContaining({ status: "matched", amount_minor: -150, reversal_id: reversal.id })]);
    // Won: the amount comes back, nothing to match.
    const won = fake.dispute(p.intentId, "won", 100, open.id as string);
    expect((await deliver(fake.event("charge.dispute.closed", won))).body.data.outcome).toBe("dispute_won");
    const after = (await cli(["--from", FROM, "--to", TO])) as ReconciliationReport;
    expect(lineOf(after, { stripe_source_id: open.id as string }).map((l) => [l.kind, l.status, l.amount_minor]).sort()).toEqual([
      ["dispute_loss", "no_ledger_side", -100],
      ["other", "no_ledger_side", 100],
    ]);
    expect(report.unmatched).toBe(0);
    // The loss's credits count in the withdrawal's period, once.
    expect(report.totals).toEqual([expect.objectContaining({ currency: "usd", credits_granted: 600, credits_reversed: 0 })]);
    expect(before.totals).toEqual([expect.objectContaining({ currency: "usd", gross_minor: -150, credits_reversed: 150 })]);
  });
});

const nextDay = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
const at = (d: string, time: string) => `${d}T${time}:00.000Z`;
const seconds = (iso: string) => Date.parse(iso) / 1000;

describe("our side found by its ids, whatever the day it was written", () => {
  it("a charge at 23:59 whose grant landed at 00:30 two days later, and a refund reversed a day late, are never missing on either side: matched on Stripe's day, named on ours, counted once over the days and the whole range", async () => {
    const buyer = await seedAccount(database.db);
    const p = await purchase(buyer, 700);
    const refund = fake.refund(p.intentId, 200);
    expect((await deliver(fake.event("refund.created", refund))).body.data.outcome).toBe("reversed");
    const refundTxn = fake.balanceTransactions.get(String(refund.balance_transaction))!;
    const days = [-20, -19, -18, -17, -16].map(day);
    const [D, , D2, , D4] = days;
    // Stripe charged at 23:59 on D; the webhook granted at 00:30 on D+2. Stripe refunded at 23:50 on D+2; the reversal was written at 01:00 on D+4.
    fake.balanceTransactions.get(p.txnId)!.created = seconds(at(D, "23:59"));
    refundTxn.created = seconds(at(D2, "23:50"));
    await database.db.execute(sql`UPDATE payments SET succeeded_at = ${at(D2, "00:30")}::timestamptz WHERE id = ${p.paymentId}`);
    await database.db.execute(sql`UPDATE payment_reversals SET created_at = ${at(D4, "01:00")}::timestamptz WHERE stripe_id = ${refund.id as string}`);
    const reversalId = rows<{ id: string }>(await database.db.execute(sql`SELECT id FROM payment_reversals WHERE stripe_id = ${refund.id as string}`))[0].id;

    const daily: ReconciliationReport[] = [];
    for (const d of days) daily.push((await cli(["--from", d, "--to", nextDay(d)])) as ReconciliationReport);
    const whole = (await cli(["--from", D, "--to", nextDay(D4)])) as ReconciliationReport;
    const ours = (r: ReconciliationReport) => r.lines.filter((l) => l.payment_id === p.paymentId);
    for (const r of [...daily, whole]) expect(ours(r).map((l) => `${r.from} ${l.kind} ${l.status}`)).toEqual(ours(r).map((l) => `${r.from} ${l.kind} matched`));

    const charge = { kind: "charge", stripe_balance_transaction_id: p.txnId, stripe_source_id: p.chargeId, ledger_amount_minor: 700, credits: 700, account_id: buyer.accountId };
    const refunded = { kind: "refund", stripe_balance_transaction_id: refundTxn.id, stripe_source_id: refund.id, ledger_amount_minor: -200, credits: -200, reversal_id: reversalId };
    // Stripe's day: the money and the credits, with where our side is.
    expect(ours(daily[0])).toEqual([expect.objectContaining({ ...charge, created_at: at(D, "23:59"), amount_minor: 700, detail: expect.stringContaining(at(D2, "00:30")) })]);
    expect(ours(daily[1])).toEqual([]);
    // The grant's day names its charge (no amount: D counts it); the refund is Stripe's, its reversal two days later.
    expect(ours(daily[2])).toEqual([
      expect.objectContaining({ ...charge, created_at: at(D2, "00:30"), amount_minor: null, fee_minor: null, net_minor: null, stripe_source_amount_minor: 700, detail: expect.stringContaining(at(D, "23:59")) }),
      expect.objectContaining({ ...refunded, created_at: at(D2, "23:50"), amount_minor: -200, detail: expect.stringContaining(at(D4, "01:00")) }),
    ]);
    expect(ours(daily[3])).toEqual([]);
    expect(ours(daily[4])).toEqual([expect.objectContaining({ ...refunded, created_at: at(D4, "01:00"), amount_minor: null, detail: expect.stringContaining(at(D2, "23:50")) })]);
    // The whole range holds both sides of both: plain matches.
    expect(ours(whole)).toEqual([
      expect.objectContaining({ ...charge, amount_minor: 700, detail: null }),
      expect.objectContaining({ ...refunded, amount_minor: -200, detail: null }),
    ]);
    expect(whole.totals).toEqual([expect.objectContaining({ currency: "usd", gross_minor: 500, credits_granted: 700, credits_reversed: 200, unmatched: 0 })]);
    // Each figure counted once: the days add up to the range.
    for (const key of ["gross_minor", "fee_minor", "net_minor", "payouts_minor", "credits_granted", "credits_reversed", "unmatched"] as const) {
      const sum = (reports: ReconciliationReport[]) => reports.flatMap((r) => r.totals).reduce((s, t) => s + t[key], 0);
      expect(sum(daily), key).toBe(sum([whole]));
    }
  });
});

describe("an account's reconciliation reads Stripe's listing of the period once for every account", () => {
  const P = day(-30);
  const period = { from: P, to: nextDay(P) };
  const noon = seconds(at(P, "12:00"));
  let owners: Seeded[];

  /** The Stripe requests `run` makes, and its answer. */
  async function counted<T>(run: () => Promise<T>): Promise<{ out: T; requests: number }> {
    const before = fake.requests.length;
    const out = await run();
    return { out, requests: fake.requests.length - before };
  }

  /** A purchase moved to the period: Stripe's charge at noon + `offset` s, its grant 5 s later. */
  async function purchaseInPeriod(owner: Seeded, credits: number, offset: number) {
    const p = await purchase(owner, credits);
    fake.balanceTransactions.get(p.txnId)!.created = noon + offset;
    await database.db.execute(sql`UPDATE payments SET succeeded_at = ${new Date((noon + offset + 5) * 1000).toISOString()}::timestamptz WHERE id = ${p.paymentId}`);
    return p;
  }

  beforeAll(async () => {
    owners = [await seedAccount(database.db), await seedAccount(database.db), await seedAccount(database.db)];
    for (const [i, owner] of owners.entries()) await purchaseInPeriod(owner, 100 * (i + 1), i);
    // Another product's charges on the same Stripe account: 123 transactions in all, two pages.
    for (let i = 0; i < 120; i++) fake.balanceTransactions.get(String(fake.charge({ amount: 1000 + i }).charge.balance_transaction))!.created = noon + 10 + i;
  });

  it("three owners' reports within a minute: one listing (2 pages) and one read of each unknown payment intent in all, instead of each owner's; the same lines as uncached; an owner's purchase made since the listing is seen at once", async () => {
    const query = `/auth/billing/reconciliation?from=${period.from}&to=${period.to}`;
    const uncached = [];
    for (const o of owners) uncached.push(await counted(() => reconcilePayments(database.db, { ...period, accountId: o.accountId }, paymentConfigOrThrow(), { cache: null })));
    const cached = [];
    for (const o of owners) cached.push(await counted(() => api("GET", query, o.accessToken)));
    expect(cached.map((c) => c.out.status)).toEqual([200, 200, 200]);
    expect(cached.map((c) => c.out.body.data.lines)).toEqual(uncached.map((u) => u.out.lines));
    expect(uncached.map((u) => u.out.lines.map((l) => [l.status, l.account_id]))).toEqual(owners.map((o) => [["matched", o.accountId]]));
    // Uncached, each owner's report lists the whole Stripe account (2 pages) and reads the 120 foreign charges' payment intents (is one theirs?).
    expect(uncached.map((u) => u.requests)).toEqual([122, 122, 122]);
    expect(cached.map((c) => c.requests)).toEqual([122, 0, 0]);

    // The first owner buys again, paid on Stripe, its grant not landed yet: their payment was written after the listing began,
    // so their next read lists afresh and finds the charge waiting for its grant; the others read that listing.
    const again = await purchase(owners[0], 400, false);
    fake.balanceTransactions.get(again.txnId)!.created = noon + 200;
    const mine = await counted(() => api("GET", query, owners[0].accessToken));
    expect((mine.out.body.data.lines as ReconciliationLine[]).map((l) => [l.status, l.stripe_balance_transaction_id, l.payment_id])).toEqual([
      ["matched", expect.any(String), expect.any(String)],
      ["missing_in_ledger", again.txnId, again.paymentId],
    ]);
    // Two pages, the 120 foreign intents and the new one's (a pending payment does not know its payment intent yet).
    expect(mine.requests).toBe(123);
    const theirs = await counted(() => api("GET", query, owners[1].accessToken));
    expect(theirs.requests).toBe(0);
    expect(theirs.out.body.data.lines).toEqual(cached[1].out.body.data.lines);
  });

  it("the cache forgets a listing after its TTL, even of a period still open (Stripe's newest transactions appear within it), holds a bounded number of periods, and keeps no listing larger than its bound", async () => {
    let clock = Date.now();
    const cache = new BalanceTransactionCache({ ttlMs: 60_000, maxEntries: 2, maxTransactions: 10_000, now: () => clock });
    const owner = await seedAccount(database.db);
    const today = { from: day(0), to: day(1) };
    const read = (p: { from: string; to: string }) => counted(() => reconcilePayments(database.db, { ...p, accountId: owner.accountId }, paymentConfigOrThrow(), { cache }));
    expect((await read(today)).out.lines).toEqual([]);
    // A charge on Stripe carrying the owner's metadata, never recorded here (Stripe's side changed, ours did not).
    const unknown = fake.charge({ amount: 900, metadata: { tollgate_account_id: owner.accountId, tollgate_payment_id: "pay_never_recorded", tollgate_credits: "900" } });
    clock += 30_000;
    const within = await read(today);
    expect(within.requests).toBe(0);
    expect(within.out.lines).toEqual([]);
    clock += 30_001;
    const after = await read(today);
    expect(after.requests).toBeGreaterThan(0);
    expect(after.out.lines).toEqual([expect.objectContaining({ status: "missing_in_ledger", stripe_source_id: unknown.charge.id, account_id: owner.accountId, payment_id: "pay_never_recorded" })]);

    // Two periods at most: a third evicts the oldest.
    const earlier = { from: day(-2), to: day(-1) };
    expect((await read(period)).requests).toBeGreaterThan(0);
    expect((await read(earlier)).requests).toBeGreaterThan(0);
    expect((await read(period)).requests).toBe(0);
    expect((await read(today)).requests).toBeGreaterThan(0);
    expect((await read(period)).requests).toBe(0);
    expect((await read(earlier)).requests).toBeGreaterThan(0);

    // A listing larger than the bound is not kept.
    const small = new BalanceTransactionCache({ ttlMs: 60_000, maxEntries: 2, maxTransactions: 100, now: () => clock });
    const big = () => counted(() => reconcilePayments(database.db, { ...period, accountId: owner.accountId }, paymentConfigOrThrow(), { cache: small }));
    expect((await big()).requests).toBeGreaterThan(0);
    expect((await big()).requests).toBeGreaterThan(0);
  });
});
