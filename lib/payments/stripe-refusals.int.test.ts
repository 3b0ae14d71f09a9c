// Signed Stripe events that must grant or take nothing (issue 58, findings 5 and 6): a purchase
// Tollgate never recorded at another price or currency, an event of another Stripe account or mode,
// a refund or lost dispute in another currency than its payment — each refused, recorded, answered
// 200 and listed by the reconciliation as `refused_event` — and deliveries that are signed but not an
// event Tollgate can use, each answered 400 through the real HTTP route, never 500.
import Stripe from "stripe";
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { seedAccount } from "../testing/fixtures";
import { assertLedgerInvariants } from "../testing/invariants";
import { paymentsSuite, type Json, type PaymentsSuite, type Seeded } from "../testing/payments-suite";
import { configurePayments, TEST_STRIPE_KEY, type FakeStripe } from "../testing/fake-stripe";
import { rows } from "../db/row-sql";
import { runCommand } from "../cli/commands";
import { verifyLedger } from "../audit/verify";
import type { ReconciliationLine, ReconciliationReport } from "./reconcile-payments";
import { reconcileYesterday } from "./reconcile-nightly";
import { paymentConfigOrThrow } from "./payment-config";

const { suite, api, deliver } = paymentsSuite();
let database: PaymentsSuite["database"];
let fake: FakeStripe;
beforeAll(() => ({ database, fake } = suite));

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** The operator's report of today's lines (`payments reconcile`, every account). */
const reconcile = async () => (await runCommand(database.db, ["payments", "reconcile", "--from", day(-1), "--to", day(2)])) as ReconciliationReport;

/** A Checkout session made on Stripe with Tollgate's metadata but no payment row here (the checkout request ended after Stripe answered), paid. */
async function unrecordedPurchase(owner: Seeded, input: { paymentId: string; credits: string; amount: number; currency?: string }) {
  const stripe = new Stripe(TEST_STRIPE_KEY, { host: "127.0.0.1", port: Number(new URL(fake.apiUrl).port), protocol: "http" });
  const metadata = { tollgate_payment_id: input.paymentId, tollgate_account_id: owner.accountId, tollgate_credits: input.credits };
  const session = await stripe.checkout.sessions.create({
    mode: "payment",
    line_items: [{ quantity: 1, price_data: { currency: input.currency ?? "usd", unit_amount: input.amount, product_data: { name: "credits" } } }],
    metadata,
    payment_intent_data: { metadata },
    success_url: "http://tollgate.test/billing",
    cancel_url: "http://tollgate.test/billing",
  });
  return fake.pay(session.id);
}

/** An owner's checkout through the API, paid on the stand-in. */
async function checkout(owner: Seeded, credits: number) {
  const started = await api("POST", "/auth/billing/checkout", owner.accessToken, { credits });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  return { payment: started.body.data as Json & { payment_id: string }, ...fake.pay(started.body.data.stripe_checkout_session_id) };
}

async function paidCredits(owner: Seeded) {
  return (await api("GET", "/auth/credits", owner.accessToken)).body.data.paid_credits as number;
}

async function stripeLedgerRows(accountId: string) {
  return rows(await database.db.execute(sql`SELECT id FROM credits_ledger WHERE account_id = ${accountId} AND source_system = 'stripe'`));
}

async function paymentRow(paymentId: string) {
  return rows<{ status: string; ledger_entry_id: string | null }>(await database.db.execute(sql`SELECT status, ledger_entry_id FROM payments WHERE id = ${paymentId}`))[0];
}

async function eventRow(eventId: string) {
  return rows<{ outcome: string; account_id: string | null; amount_minor: string | number | null; currency: string | null; credits: string | null }>(
    await database.db.execute(sql`SELECT outcome, account_id, amount_minor, currency, credits::text AS credits FROM stripe_events WHERE event_id = ${eventId}`),
  )[0];
}

/** The report's line of a refused event. */
const refusedLine = (report: ReconciliationReport, eventId: string) => report.lines.filter((l: ReconciliationLine) => l.stripe_event_id === eventId);

/** Nothing moved, and the books are clean: the account's invariants and `audit verify`. */
async function assertClean(accountId: string) {
  await assertLedgerInvariants(database.db, accountId);
  expect((await verifyLedger(database.db, { accountId })).violations).toEqual([]);
}

describe("a Stripe grant never exceeds what was paid", () => {
  it("an unrecorded purchase whose metadata names 1,000,000 credits for 50 usd grants nothing; it is listed as a refused event, in the account's report too, and --apply refuses it", async () => {
    const owner = await seedAccount(database.db);
    const forged = await unrecordedPurchase(owner, { paymentId: "pay_forgedprice00000000000001", credits: "1000000", amount: 50 });
    const events = [fake.event("checkout.session.completed", forged.session), fake.event("payment_intent.succeeded", forged.paymentIntent)];
    for (const event of events) {
      const answer = await deliver(event);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({ outcome: "refused_price_mismatch", duplicate: false, payment_id: "pay_forgedprice00000000000001", ledger_entry_id: null });
      expect(await eventRow(event.id as string)).toEqual({ outcome: "refused_price_mismatch", account_id: owner.accountId, amount_minor: expect.anything(), currency: "usd", credits: "1000000.000000" });
    }
    expect(await paidCredits(owner)).toBe(0);
    expect(await paymentRow("pay_forgedprice00000000000001")).toBeUndefined();
    expect(await stripeLedgerRows(owner.accountId)).toEqual([]);

    const report = await reconcile();
    for (const event of events) {
      expect(refusedLine(report, event.id as string)).toEqual([
        expect.objectContaining({
          status: "refused_event",
          kind: "charge",
          account_id: owner.accountId,
          payment_id: "pay_forgedprice00000000000001",
          currency: "usd",
          stripe_source_amount_minor: 50,
          credits: 1_000_000,
          ledger_entry_ids: [],
          amount_minor: null,
          stripe_payment_intent_id: forged.paymentIntent.id,
          detail: expect.stringMatching(/refused \(refused_price_mismatch: 1000000 credits at 1 minor units each cost 1000000 usd, but 50 was paid\); nothing was granted or taken$/),
        }),
      ]);
    }
    // Stripe's charge is there too, still without a grant; the refused lines count as findings and add no credits.
    expect(report.lines.filter((l) => l.stripe_payment_intent_id === forged.paymentIntent.id && l.status === "missing_in_ledger")).toHaveLength(1);
    expect(report.counts.refused_event).toBeGreaterThanOrEqual(2);
    const own = await api("GET", `/auth/billing/reconciliation?from=${day(-1)}&to=${day(2)}`, owner.accessToken);
    expect((own.body.data.lines as ReconciliationLine[]).filter((l) => l.status === "refused_event").map((l) => l.stripe_event_id)).toEqual(events.map((e) => e.id));
    expect(own.body.data.totals).toEqual([expect.objectContaining({ currency: "usd", credits_granted: 0, unmatched: 3 })]);

    // The operator's --apply of Stripe's charge is refused the same way, before anything is written.
    await expect(runCommand(database.db, ["payments", "reconcile", "--apply", forged.paymentIntent.id as string])).rejects.toMatchObject({ code: "invalid_input", message: expect.stringContaining("refused_price_mismatch") });
    await expect(runCommand(database.db, ["payments", "reconcile", "--apply", forged.paymentIntent.id as string, "--confirm"])).rejects.toMatchObject({ code: "invalid_input" });
    expect(await paidCredits(owner)).toBe(0);
    expect(await paymentRow("pay_forgedprice00000000000001")).toBeUndefined();
    await assertClean(owner.accountId);
  });

  it("10 credits paid with 50 jpy on a usd server grant nothing (refused_currency_mismatch), by the session's event and by a charge's payment intent", async () => {
    const owner = await seedAccount(database.db);
    const session = await unrecordedPurchase(owner, { paymentId: "pay_forgedcurrency000000000001", credits: "10", amount: 50, currency: "jpy" });
    const charge = fake.charge({ amount: 50, currency: "jpy", metadata: { tollgate_payment_id: "pay_forgedcurrency000000000002", tollgate_account_id: owner.accountId, tollgate_credits: "50" } });
    const events = [fake.event("checkout.session.completed", session.session), fake.event("payment_intent.succeeded", charge.paymentIntent)];
    for (const event of events) expect((await deliver(event)).body.data.outcome).toBe("refused_currency_mismatch");
    expect(await paidCredits(owner)).toBe(0);
    expect(await stripeLedgerRows(owner.accountId)).toEqual([]);
    const report = await reconcile();
    for (const event of events) {
      expect(refusedLine(report, event.id as string)).toEqual([expect.objectContaining({ status: "refused_event", kind: "charge", currency: "jpy", account_id: owner.accountId, detail: expect.stringContaining("paid 50 jpy: this server sells credits in usd") })]);
    }
    await assertClean(owner.accountId);
  });

  it("a recorded payment is granted at the price it was recorded at, after the price changed; an unrecorded one is compared with today's price", async () => {
    const owner = await seedAccount(database.db);
    const bought = await checkout(owner, 100);
    const lost = await unrecordedPurchase(owner, { paymentId: "pay_beforepricechange00000001", credits: "100", amount: 100 });
    const undo = configurePayments(fake, { CREDIT_PRICE_MINOR: "2" });
    try {
      // What 100 credits cost now is not what this payment costs: its own amount, recorded at checkout, is compared.
      expect((await deliver(fake.event("payment_intent.succeeded", { ...bought.paymentIntent, amount_received: 200 }))).body.data.outcome).toBe("refused_amount_mismatch");
      expect(await paidCredits(owner)).toBe(0);
      expect((await deliver(fake.event("checkout.session.completed", bought.session))).body.data).toMatchObject({ outcome: "granted", payment_id: bought.payment.payment_id });
      const unknown = await deliver(fake.event("payment_intent.succeeded", lost.paymentIntent));
      expect(unknown.body.data).toMatchObject({ outcome: "refused_price_mismatch" });
    } finally {
      undo();
    }
    expect(await paidCredits(owner)).toBe(100);
    await assertClean(owner.accountId);
  });

  it("an event of another Stripe account is refused without asking Stripe about it; the server's account is read once and kept; the server's own account name is accepted", async () => {
    const owner = await seedAccount(database.db);
    const pending = await checkout(owner, 100);
    const readsOfAccount = () => fake.requests.filter((r) => r.path === "/v1/account").length;
    const before = fake.requests.length;
    const foreign: Json[] = [
      { ...fake.event("checkout.session.completed", pending.session), account: "acct_someoneelse01" },
      { ...fake.event("payment_intent.succeeded", pending.paymentIntent), account: "acct_someoneelse01" },
    ];
    for (const event of foreign) {
      const answer = await deliver(event);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({ outcome: "refused_stripe_account_mismatch", payment_id: null });
    }
    // One read of the account, nothing else asked of Stripe.
    expect(fake.requests.slice(before).map((r) => r.path)).toEqual(["/v1/account"]);
    expect(await paidCredits(owner)).toBe(0);
    expect(await paymentRow(pending.payment.payment_id)).toMatchObject({ status: "pending", ledger_entry_id: null });
    const report = await reconcile();
    for (const event of foreign) {
      expect(refusedLine(report, event.id as string)).toEqual([
        expect.objectContaining({ status: "refused_event", account_id: null, detail: expect.stringContaining(`an event of Stripe account acct_someoneelse01; this server's account is ${fake.accountId}`) }),
      ]);
    }
    // Events that name the server's own account apply as usual, and the account is not read again.
    expect((await deliver({ ...fake.event("checkout.session.completed", pending.session), account: fake.accountId })).body.data.outcome).toBe("granted");
    expect(readsOfAccount()).toBe(1);
    expect(await paidCredits(owner)).toBe(100);
    await assertClean(owner.accountId);
  });

  it("a live-mode event on a test key is refused, even for a payment Tollgate recorded; the test-mode one grants", async () => {
    const owner = await seedAccount(database.db);
    const pending = await checkout(owner, 100);
    const live: Json = { ...fake.event("checkout.session.completed", pending.session), livemode: true };
    expect(await deliver(live)).toMatchObject({ status: 200, body: { data: { outcome: "refused_livemode_mismatch" } } });
    expect(await paidCredits(owner)).toBe(0);
    expect(await eventRow(live.id as string)).toMatchObject({ outcome: "refused_livemode_mismatch", account_id: null, amount_minor: expect.anything(), currency: "usd" });
    expect(refusedLine(await reconcile(), live.id as string)).toEqual([expect.objectContaining({ status: "refused_event", kind: "charge", detail: expect.stringContaining("a live-mode event, but STRIPE_SECRET_KEY is a test-mode key") })]);
    expect((await deliver(fake.event("checkout.session.completed", pending.session))).body.data.outcome).toBe("granted");
    expect(await paidCredits(owner)).toBe(100);
    await assertClean(owner.accountId);
  });

  it("a refund or lost dispute in another currency than its payment takes nothing back; it is listed as a refused event of the account; the refund in the payment's currency reverses", async () => {
    const owner = await seedAccount(database.db);
    const bought = await checkout(owner, 100);
    expect((await deliver(fake.event("checkout.session.completed", bought.session))).body.data.outcome).toBe("granted");
    const pi = bought.paymentIntent.id as string;
    const refund = fake.refund(pi, 40);
    const inEuros = fake.event("refund.created", { ...refund, id: "re_foreigncurrency000001", currency: "eur" });
    expect((await deliver(inEuros)).body.data).toMatchObject({ outcome: "refused_currency_mismatch", payment_id: bought.payment.payment_id });
    const failedInEuros = fake.event("refund.failed", { ...refund, id: "re_foreigncurrency000001", currency: "eur", status: "failed" });
    expect((await deliver(failedInEuros)).body.data.outcome).toBe("refused_currency_mismatch");
    const lost = fake.event("charge.dispute.closed", { ...fake.dispute(pi, "lost", 30, "dp_foreigncurrency01"), currency: "eur" });
    expect((await deliver(lost)).body.data.outcome).toBe("refused_currency_mismatch");
    expect(await paidCredits(owner)).toBe(100);
    expect(rows(await database.db.execute(sql`SELECT 1 FROM payment_reversals WHERE payment_id = ${bought.payment.payment_id}`))).toEqual([]);
    expect(rows(await database.db.execute(sql`SELECT 1 FROM notifications WHERE account_id = ${owner.accountId} AND kind = 'payment_dispute_lost'`))).toEqual([]);
    const report = await reconcile();
    expect(refusedLine(report, inEuros.id as string)).toEqual([
      expect.objectContaining({ status: "refused_event", kind: "refund", currency: "eur", stripe_source_amount_minor: 40, account_id: owner.accountId, payment_id: bought.payment.payment_id, stripe_source_id: "re_foreigncurrency000001" }),
    ]);
    expect(refusedLine(report, lost.id as string)).toEqual([expect.objectContaining({ kind: "dispute_loss", stripe_source_id: "dp_foreigncurrency01" })]);
    expect((await deliver(fake.event("refund.created", refund))).body.data.outcome).toBe("reversed");
    expect(await paidCredits(owner)).toBe(60);
    await assertClean(owner.accountId);
  });

  it("the nightly run notifies the account of its refused events once each", async () => {
    const owner = await seedAccount(database.db);
    const forged = await unrecordedPurchase(owner, { paymentId: "pay_forgednightly0000000000001", credits: "500", amount: 5 });
    const event = fake.event("payment_intent.succeeded", forged.paymentIntent);
    expect((await deliver(event)).body.data.outcome).toBe("refused_price_mismatch");
    // The run of "yesterday" as seen from tomorrow reconciles today.
    const run = await reconcileYesterday(database.db, paymentConfigOrThrow(), new Date(Date.now() + 86_400_000));
    expect(run).toMatchObject({ status: "reconciled" });
    const notes = rows<{ claim_key: string; payload: Json }>(await database.db.execute(sql`SELECT claim_key, payload FROM notifications WHERE account_id = ${owner.accountId} AND kind = 'payment_unmatched'`));
    expect(notes.filter((n) => n.claim_key === `payment_unmatched:refused_event:${event.id as string}`)).toEqual([
      expect.objectContaining({ payload: expect.objectContaining({ status: "refused_event", stripe_event_id: event.id, credits: 500 }) }),
    ]);
  });
});

describe("signed deliveries that are not an event Tollgate can use answer 400, never 500", () => {
  it("{}, [], null, an event without data, bad envelopes, refunds of -500, 0.5 or '500', strings for amounts and credits: each 400 naming the field, nothing recorded, granted or taken", async () => {
    const owner = await seedAccount(database.db);
    const bought = await checkout(owner, 100);
    expect((await deliver(fake.event("checkout.session.completed", bought.session))).body.data.outcome).toBe("granted");
    const pending = await checkout(owner, 200);
    const pi = bought.paymentIntent.id as string;
    const refund = fake.refund(pi, 40, "pending");
    const event = (type: string, object: unknown) => fake.event(type, object as Json);
    const malformed: [unknown, RegExp][] = [
      [{}, /not a Stripe event \(id: /],
      [[], /not a Stripe event \(the body: /],
      [null, /not a Stripe event \(the body: /],
      ["evt_1", /not a Stripe event \(the body: /],
      [{ id: "evt_nodata0000000001", object: "event", type: "checkout.session.completed", livemode: false }, /not a Stripe event \(data: /],
      [{ ...event("refund.created", refund), data: null }, /not a Stripe event \(data: /],
      [{ ...event("refund.created", refund), data: { object: null } }, /not a Stripe event \(data\.object: /],
      [{ ...event("refund.created", refund), id: 42 }, /not a Stripe event \(id: /],
      [{ ...event("refund.created", refund), id: "evt_with\u0000nul" }, /not a Stripe event \(id: /],
      [{ ...event("refund.created", refund), type: ["refund.created"] }, /not a Stripe event \(type: /],
      [{ ...event("refund.created", refund), livemode: "false" }, /not a Stripe event \(livemode: /],
      [event("refund.created", { ...refund, status: "succeeded", amount: -500 }), /a refund\.created event Tollgate cannot use \(data\.object\.amount: /],
      [event("refund.created", { ...refund, status: "succeeded", amount: 0.5 }), /data\.object\.amount: /],
      [event("refund.created", { ...refund, status: "succeeded", amount: "500" }), /data\.object\.amount: /],
      [event("refund.created", { ...refund, status: "succeeded", amount: 0 }), /data\.object\.amount: /],
      [event("refund.updated", { ...refund, status: "succeeded", currency: "EURO" }), /data\.object\.currency: /],
      [event("charge.dispute.closed", { ...fake.dispute(pi, "lost", 30), amount: "30" }), /data\.object\.amount: /],
      [event("checkout.session.completed", { ...pending.session, amount_total: "200" }), /data\.object\.amount_total: /],
      [event("checkout.session.completed", { ...pending.session, metadata: { ...(pending.session.metadata as Json), tollgate_credits: 1000000 } }), /data\.object\.metadata\.tollgate_credits: /],
      [event("checkout.session.completed", { ...pending.session, metadata: { ...(pending.session.metadata as Json), tollgate_payment_id: "pay_\u0000" } }), /data\.object\.metadata\.tollgate_payment_id: must not contain NUL/],
      [event("payment_intent.succeeded", { ...pending.paymentIntent, amount_received: "200" }), /data\.object\.amount_received: /],
      [event("payment_intent.succeeded", { ...pending.paymentIntent, id: undefined }), /data\.object\.id: /],
      [event("charge.refunded", { id: "ch_x", payment_intent: { not: "an id" } }), /data\.object\.payment_intent: /],
    ];
    const answers = [];
    for (const [body] of malformed) answers.push(await deliver(body as Json));
    expect(answers.map((a) => a.status)).toEqual(malformed.map(() => 400));
    answers.forEach((a, i) => expect(a.body, JSON.stringify(malformed[i][0])).toMatchObject({ status: "failure", status_code: -7, message: expect.stringMatching(malformed[i][1]) }));
    expect(answers.every((a) => String(a.body.message).startsWith("Stripe webhook refused: "))).toBe(true);
    const ids = malformed.map(([body]) => (body && typeof body === "object" && "id" in body && typeof body.id === "string" ? body.id : null)).filter((id): id is string => id !== null && /^evt_\w+$/.test(id));
    expect(rows(await database.db.execute(sql`SELECT event_id FROM stripe_events WHERE event_id IN (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`))).toEqual([]);
    expect(await paidCredits(owner)).toBe(100);
    expect(await paymentRow(pending.payment.payment_id)).toMatchObject({ status: "pending" });
    expect(rows(await database.db.execute(sql`SELECT 1 FROM payment_reversals WHERE payment_id = ${bought.payment.payment_id}`))).toEqual([]);
    // An event of a type Tollgate does not handle is received and ignored (Stripe stops sending it), whatever its object.
    expect(await deliver(event("customer.created", { anything: ["goes", 1] }))).toMatchObject({ status: 200, body: { data: { outcome: "ignored_type" } } });
    await assertClean(owner.accountId);
  });
});
