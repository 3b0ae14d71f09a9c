// Buying credits through Stripe, end to end: the real `stripe` SDK against a local stand-in
// (lib/testing/fake-stripe.ts), webhooks signed by the SDK's own test helper, real HTTP servers on
// a real database. Grants exactly once per payment whatever the deliveries; reversals once per
// refund or dispute; a refund of spent credits leaves a debt the next purchase settles.
import Stripe from "stripe";
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { testDbKind } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { seedAccount } from "../testing/fixtures";
import { assertLedgerInvariants } from "../testing/invariants";
import { paymentsSuite, stripeWebhookUrl, type Json, type PaymentsSuite, type Seeded } from "../testing/payments-suite";
import { configurePayments, deliverStripeEvent, startFakeStripe, stripeSignature, TEST_STRIPE_KEY, TEST_WEBHOOK_SECRET, type FakeStripe } from "../testing/fake-stripe";
import { openDatabase } from "../db/open";
import { rows } from "../db/row-sql";
import { runCommand } from "../cli/commands";
import { verifyLedger } from "../audit/verify";

const { suite, api, deliver } = paymentsSuite({ catalog: true });
let database: PaymentsSuite["database"];
let server: TestServer;
let fake: FakeStripe;
beforeAll(() => ({ database, server, fake } = suite));

const webhookUrl = (s: TestServer = server) => stripeWebhookUrl(s);

/** An owner's checkout through the API, paid on the stand-in: the Checkout session's and payment intent's objects. */
async function buyAndPay(owner: Seeded, body: Record<string, unknown>) {
  const started = await api("POST", "/auth/billing/checkout", owner.accessToken, body);
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const payment = started.body.data;
  const paid = fake.pay(payment.stripe_checkout_session_id);
  return { payment, ...paid };
}

async function balance(owner: Seeded) {
  return (await api("GET", "/auth/credits", owner.accessToken)).body.data as { paid_credits: number; total_credits: number };
}

async function ledgerRows(accountId: string, entryType?: string) {
  return rows<{ id: string; entry_type: string; amount_credits: string; source_system: string; source_ref_id: string; ledger_metadata: Json; balance_after: string }>(
    await database.db.execute(sql`
      SELECT id, entry_type, amount_credits::text AS amount_credits, source_system, source_ref_id, ledger_metadata, balance_after::text AS balance_after
        FROM credits_ledger WHERE account_id = ${accountId} ${entryType ? sql`AND entry_type = ${entryType}` : sql``} ORDER BY seq`),
  );
}

async function paymentRow(paymentId: string) {
  return rows<{ status: string; ledger_entry_id: string | null; created_by: string | null }>(await database.db.execute(sql`SELECT status, ledger_entry_id, created_by FROM payments WHERE id = ${paymentId}`))[0];
}

/** `n` Calls of a 1-credit tool by the account's key. */
async function spend(owner: Seeded, n: number) {
  for (let i = 0; i < n; i++) {
    const call = await api("POST", "/tools/execute", owner.apiKey, { tool_id: "builtin.finance.compound_interest", parameters: { principal: 100, annual_rate_percent: 5, years: 2 } });
    expect(call.status).toBe(200);
  }
}

/** A Checkout session made directly on Stripe with Tollgate's metadata: as if the checkout request had ended after Stripe answered. */
async function sessionOutsideTollgate(metadata: Record<string, string>, amount: number) {
  const stripe = new Stripe(TEST_STRIPE_KEY, { host: "127.0.0.1", port: Number(new URL(fake.apiUrl).port), protocol: "http" });
  const session = await stripe.checkout.sessions.create({
    mode: "payment",
    line_items: [{ quantity: 1, price_data: { currency: "usd", unit_amount: amount, product_data: { name: "credits" } } }],
    metadata,
    payment_intent_data: { metadata },
    success_url: "http://tollgate.test/billing",
    cancel_url: "http://tollgate.test/billing",
  });
  return fake.pay(session.id);
}

describe("buying credits", () => {
  it("a purchase end to end: checkout, Stripe's hosted page, the signed webhook, the credits, the ledger row with the payment's id, the payment listed with its grant and receipt", async () => {
    const owner = await seedAccount(database.db);
    const config = await api("GET", "/auth/billing/config", owner.accessToken);
    expect(config.body.data).toEqual({
      enabled: true,
      currency: "usd",
      credit_price_minor: "1",
      min_credits: 50,
      max_credits: 100000,
      packs: [
        { credits: 100, amount_minor: 100 },
        { credits: 500, amount_minor: 500 },
        { credits: 2000, amount_minor: 2000 },
      ],
      debt_credits: 0,
    });

    const started = await api("POST", "/auth/billing/checkout", owner.accessToken, { pack: 500 });
    expect(started.status).toBe(201);
    const payment = started.body.data;
    expect(payment).toMatchObject({ status: "pending", credits: 500, amount_minor: 500, currency: "usd", ledger_entry_id: null, receipt_url: null, account_id: owner.accountId });
    expect(payment.payment_id).toMatch(/^pay_/);
    expect(payment.checkout_url).toBe(`${fake.url}/checkout/${payment.stripe_checkout_session_id}`);
    // What Stripe was asked: one line item at the price, our ids in both metadata, the way back, an idempotency key.
    const create = fake.requests.filter((r) => r.path === "/v1/checkout/sessions").at(-1)!;
    const metadata = { tollgate_payment_id: payment.payment_id, tollgate_account_id: owner.accountId, tollgate_credits: "500" };
    expect(create.params).toMatchObject({
      mode: "payment",
      line_items: [{ quantity: "1", price_data: { currency: "usd", unit_amount: "500" } }],
      client_reference_id: payment.payment_id,
      metadata,
      payment_intent_data: { metadata },
      success_url: `http://tollgate.test/billing?payment=${payment.payment_id}`,
      customer_email: owner.email,
    });
    expect(create.idempotencyKey).toBe(`tollgate-checkout-${payment.payment_id}`);
    // Pending, and listed so, until the webhook lands.
    expect((await api("GET", "/auth/billing/payments", owner.accessToken)).body.data.items.map((p: Json) => [p.payment_id, p.status])).toEqual([[payment.payment_id, "pending"]]);
    expect((await balance(owner)).paid_credits).toBe(0);

    // The owner pays on the hosted page, which delivers Stripe's two events and goes back to Tollgate.
    fake.webhook = { url: webhookUrl(), secret: TEST_WEBHOOK_SECRET };
    try {
      expect((await fetch(payment.checkout_url)).status).toBe(200);
      const back = await fetch(`${payment.checkout_url}/pay`, { method: "POST", redirect: "manual" });
      expect(back.status).toBe(303);
      expect(back.headers.get("location")).toBe(`http://tollgate.test/billing?payment=${payment.payment_id}`);
    } finally {
      fake.webhook = undefined;
    }

    expect(await balance(owner)).toMatchObject({ paid_credits: 500, total_credits: 500 });
    const got = (await api("GET", `/auth/billing/payments/${payment.payment_id}`, owner.accessToken)).body.data;
    expect(got).toMatchObject({ status: "succeeded", credits: 500, checkout_url: null, receipt_url: expect.stringMatching(/^https:\/\/pay\.stripe\.test\/receipts\/ch_/), refunded_minor: 0, reversals: [] });
    expect(got.stripe_payment_intent_id).toMatch(/^pi_/);
    const entry = (await api("GET", `/auth/credits/ledger/${got.ledger_entry_id}`, owner.accessToken)).body.data;
    expect(entry).toMatchObject({
      entry_type: "grant_payment_recharge",
      amount_credits: 500,
      source_system: "stripe",
      source_ref_type: "payment",
      source_ref_id: payment.payment_id,
      ledger_metadata: { credit_kind: "paid", payment_id: payment.payment_id, payment_intent: got.stripe_payment_intent_id, amount_minor: 500, currency: "usd" },
    });
    const listed = (await api("GET", "/auth/billing/payments", owner.accessToken)).body.data;
    expect(listed).toMatchObject({ total: 1, page: 1, page_size: 20, debt_credits: 0, items: [{ payment_id: payment.payment_id, status: "succeeded", ledger_entry_id: got.ledger_entry_id, receipt_url: got.receipt_url }] });
    // Both events were received once: one granted, the other found the payment granted.
    const events = rows<{ type: string; outcome: string }>(await database.db.execute(sql`SELECT type, outcome FROM stripe_events WHERE payment_id = ${payment.payment_id} ORDER BY received_at`));
    expect(events).toEqual([
      { type: "checkout.session.completed", outcome: "granted" },
      { type: "payment_intent.succeeded", outcome: "duplicate_grant" },
    ]);
    const activity = (await api("GET", "/auth/account/activity", owner.accessToken)).body.data.items.map((a: Json) => a.action);
    expect(activity).toEqual(expect.arrayContaining(["payment.started", "credits.granted"]));
    await assertLedgerInvariants(database.db, owner.accountId);
  });

  it("10 duplicate deliveries of the payment's events, concurrent across 3 instances, grant once", async () => {
    // Three instances: on PostgreSQL each with its own connection pool, as separate processes would have.
    const extra = testDbKind() === "postgres" ? await Promise.all([0, 1].map(() => openDatabase({ kind: "postgres", url: database.url!, poolSize: 5 }))) : [database, database];
    const instances = [server, ...(await Promise.all(extra.map((d) => startTestServer(d))))];
    try {
      const owner = await seedAccount(database.db);
      const { payment, session, paymentIntent } = await buyAndPay(owner, { credits: 2000 });
      const completed = fake.event("checkout.session.completed", session);
      const succeeded = fake.event("payment_intent.succeeded", paymentIntent);
      const deliveries = [...Array(10).fill(completed), ...Array(10).fill(succeeded)].map((event, i) => deliver(event, { to: instances[i % 3] }));
      const answers = await Promise.all(deliveries);
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      const outcomes = answers.map((a) => `${a.body.data.duplicate ? "replay of " : ""}${a.body.data.outcome}`);
      const grants = await ledgerRows(owner.accountId, "grant_payment_recharge");
      const events = rows<{ event_id: string; outcome: string; replays: number }>(await database.db.execute(sql`SELECT event_id, outcome, replays FROM stripe_events WHERE payment_id = ${payment.payment_id}`));
      console.log(
        `[stripe] ${deliveries.length} deliveries (2 events x 10) across ${instances.length} instances (${testDbKind()}): ${grants.length} grant; ` +
          `answers ${JSON.stringify(Object.fromEntries([...new Set(outcomes)].map((o) => [o, outcomes.filter((x) => x === o).length])))}; ` +
          `events recorded ${events.length}, replays counted ${events.reduce((n, e) => n + Number(e.replays), 0)}`,
      );
      expect(grants).toHaveLength(1);
      expect(grants[0]).toMatchObject({ amount_credits: "2000.000000", source_system: "stripe", source_ref_id: payment.payment_id });
      expect(outcomes.filter((o) => o === "granted")).toHaveLength(1);
      expect(events).toHaveLength(2);
      expect(events.reduce((n, e) => n + Number(e.replays), 0)).toBe(18);
      expect(await balance(owner)).toMatchObject({ paid_credits: 2000 });
      expect(await paymentRow(payment.payment_id)).toMatchObject({ status: "succeeded", ledger_entry_id: grants[0].id });
      await assertLedgerInvariants(database.db, owner.accountId);
    } finally {
      await Promise.all(instances.slice(1).map((s) => s.close()));
      if (testDbKind() === "postgres") await Promise.all(extra.map((d) => d.close()));
    }
  });

  it("a webhook that arrives before Tollgate knows the Checkout session still grants once, from its metadata", async () => {
    const owner = await seedAccount(database.db);
    const paymentId = "pay_crashedaftercheckout0001";
    const metadata = { tollgate_payment_id: paymentId, tollgate_account_id: owner.accountId, tollgate_credits: "300" };
    const { session, paymentIntent } = await sessionOutsideTollgate(metadata, 300);
    // The payment intent's event first, then the session's: one grant, and the row knows both ids.
    expect((await deliver(fake.event("payment_intent.succeeded", paymentIntent))).body.data).toMatchObject({ outcome: "granted", payment_id: paymentId });
    expect((await deliver(fake.event("checkout.session.completed", session))).body.data).toMatchObject({ outcome: "duplicate_grant", payment_id: paymentId });
    expect(await balance(owner)).toMatchObject({ paid_credits: 300 });
    const got = (await api("GET", `/auth/billing/payments/${paymentId}`, owner.accessToken)).body.data;
    expect(got).toMatchObject({ status: "succeeded", credits: 300, amount_minor: 300, stripe_checkout_session_id: session.id, stripe_payment_intent_id: paymentIntent.id });
    expect(await paymentRow(paymentId)).toMatchObject({ created_by: null });
    expect(await ledgerRows(owner.accountId, "grant_payment_recharge")).toHaveLength(1);
    await assertLedgerInvariants(database.db, owner.accountId);
  });

  it("an unsigned, badly signed, tampered or too old delivery is refused with 400, and nothing is granted or recorded", async () => {
    const owner = await seedAccount(database.db);
    const { payment, session } = await buyAndPay(owner, { pack: 100 });
    const event = fake.event("checkout.session.completed", session);
    const refused = [
      await deliver(event, { signature: null }),
      await deliver(event, { secret: "whsec_not_the_secret" }),
      await deliver(event, { signature: "t=1,v1=deadbeef" }),
      // Signed 301 s ago: outside the 300 s tolerance (a replay of an old delivery).
      await deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
    ];
    // A genuine signature over another body.
    const other = fake.event("checkout.session.completed", { ...session, metadata: { ...(session.metadata as Record<string, string>), tollgate_credits: "100000" } });
    const genuine = stripeSignature(JSON.stringify(event, null, 2), TEST_WEBHOOK_SECRET);
    refused.push(await deliverStripeEvent(webhookUrl(), other, { secret: TEST_WEBHOOK_SECRET, signature: genuine }));
    expect(refused.map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
    for (const r of refused) expect(r.body).toMatchObject({ status: "failure", status_code: -7, message: expect.stringMatching(/^Stripe webhook refused: /) });
    expect(refused[0].body.message).toContain("no Stripe-Signature header");
    expect(refused[3].body.message).toContain("Timestamp outside the tolerance zone");
    expect(await balance(owner)).toMatchObject({ paid_credits: 0 });
    expect(await paymentRow(payment.payment_id)).toMatchObject({ status: "pending", ledger_entry_id: null });
    expect(rows(await database.db.execute(sql`SELECT 1 FROM stripe_events WHERE event_id = ${event.id}`))).toHaveLength(0);
    // The same event, signed now: granted.
    expect((await deliver(event)).body.data).toMatchObject({ outcome: "granted" });
    expect(await balance(owner)).toMatchObject({ paid_credits: 100 });
  });

  it("metadata naming an account that does not exist here, or another account than the payment's, is refused (logged, recorded) and grants nothing", async () => {
    const unknown = await sessionOutsideTollgate({ tollgate_payment_id: "pay_foreign00000000000000001", tollgate_account_id: "acc_doesnotexist0000000000", tollgate_credits: "100" }, 100);
    const answer = await deliver(fake.event("checkout.session.completed", unknown.session));
    expect(answer).toMatchObject({ status: 200, body: { data: { outcome: "refused_unknown_account", duplicate: false } } });
    expect(rows(await database.db.execute(sql`SELECT 1 FROM payments WHERE id = 'pay_foreign00000000000000001'`))).toHaveLength(0);
    expect(rows(await database.db.execute(sql`SELECT 1 FROM credits_ledger WHERE source_ref_id = 'pay_foreign00000000000000001'`))).toHaveLength(0);

    // A's pending payment, paid on a session whose metadata names B: neither is granted.
    const a = await seedAccount(database.db);
    const b = await seedAccount(database.db);
    const pending = (await api("POST", "/auth/billing/checkout", a.accessToken, { pack: 100 })).body.data;
    const forged = await sessionOutsideTollgate({ tollgate_payment_id: pending.payment_id, tollgate_account_id: b.accountId, tollgate_credits: "100" }, 100);
    expect((await deliver(fake.event("checkout.session.completed", forged.session))).body.data).toMatchObject({ outcome: "refused_foreign_account" });
    expect((await deliver(fake.event("payment_intent.succeeded", forged.paymentIntent))).body.data).toMatchObject({ outcome: "refused_foreign_account" });
    expect(await balance(a)).toMatchObject({ paid_credits: 0 });
    expect(await balance(b)).toMatchObject({ paid_credits: 0 });
    expect(await paymentRow(pending.payment_id)).toMatchObject({ status: "pending" });
  });

  it("an expired Checkout session ends its pending payment", async () => {
    const owner = await seedAccount(database.db);
    const pending = (await api("POST", "/auth/billing/checkout", owner.accessToken, { credits: "75" })).body.data;
    const expired = fake.expire(pending.stripe_checkout_session_id);
    expect((await deliver(fake.event("checkout.session.expired", expired))).body.data).toMatchObject({ outcome: "expired", payment_id: pending.payment_id });
    expect((await api("GET", `/auth/billing/payments/${pending.payment_id}`, owner.accessToken)).body.data).toMatchObject({ status: "expired", checkout_url: null, ledger_entry_id: null });
    expect((await api("GET", "/auth/billing/payments?status=expired", owner.accessToken)).body.data.items.map((p: Json) => p.payment_id)).toEqual([pending.payment_id]);
  });
});

describe("refunds and disputes", () => {
  const refundEvent = (type: string, refund: Json) => fake.event(type, refund);

  it("a refund after half the credits were spent takes what is left and records the rest as a debt, which the next purchase settles first", async () => {
    const undo = configurePayments(fake, { CREDIT_PRICE_MINOR: "10", CREDIT_PURCHASE_MIN: "10" });
    try {
      await refundOfSpentCredits();
    } finally {
      undo();
    }
  });

  async function refundOfSpentCredits() {
    const owner = await seedAccount(database.db);
    const first = await buyAndPay(owner, { credits: 100 });
    await deliver(fake.event("checkout.session.completed", first.session));
    await spend(owner, 50);
    expect(await balance(owner)).toMatchObject({ paid_credits: 50 });

    // The whole payment (1,000 cents) is refunded: 100 credits owed, 50 left to take.
    const refund = fake.refund(first.paymentIntent.id as string);
    const answer = await deliver(refundEvent("refund.created", refund));
    expect(answer.body.data).toMatchObject({ outcome: "reversed", payment_id: first.payment.payment_id });
    expect(await balance(owner)).toMatchObject({ paid_credits: 0, total_credits: 0 });
    const reversals = await ledgerRows(owner.accountId, "consume_payment_refund");
    expect(reversals).toEqual([
      expect.objectContaining({
        amount_credits: "-50.000000",
        balance_after: "0.000000",
        source_system: "stripe",
        ledger_metadata: expect.objectContaining({ kind: "refund", stripe_id: refund.id, payment_id: first.payment.payment_id, amount_minor: 1000, credits_reversed: "100.000000" }),
      }),
    ]);
    const payment = (await api("GET", `/auth/billing/payments/${first.payment.payment_id}`, owner.accessToken)).body.data;
    expect(payment).toMatchObject({ refunded_minor: 1000, reversed_credits: 100, reversals: [{ kind: "refund", stripe_id: refund.id, credits: 100, credits_recovered: 50, ledger_entry_id: reversals[0].id }] });
    expect((await api("GET", "/auth/billing/payments", owner.accessToken)).body.data.debt_credits).toBe(50);
    expect((await api("GET", "/auth/billing/config", owner.accessToken)).body.data.debt_credits).toBe(50);
    // Nothing left to spend: Calls are refused as for any empty balance.
    const refused = await api("POST", "/tools/execute", owner.apiKey, { tool_id: "builtin.finance.compound_interest", parameters: { principal: 100, annual_rate_percent: 5, years: 2 } });
    expect(refused.status).toBe(402);

    // The next purchase: its 100 credits granted, 50 of them settle the debt in the same transaction.
    const second = await buyAndPay(owner, { credits: 100 });
    expect((await deliver(fake.event("checkout.session.completed", second.session))).body.data).toMatchObject({ outcome: "granted" });
    expect(await balance(owner)).toMatchObject({ paid_credits: 50 });
    const rowsAfter = await ledgerRows(owner.accountId);
    expect(rowsAfter.slice(-2)).toEqual([
      expect.objectContaining({ entry_type: "grant_payment_recharge", amount_credits: "100.000000", source_ref_id: second.payment.payment_id, balance_after: "100.000000" }),
      expect.objectContaining({
        entry_type: "consume_payment_refund",
        amount_credits: "-50.000000",
        balance_after: "50.000000",
        ledger_metadata: expect.objectContaining({ stripe_id: refund.id, settled_by_payment_id: second.payment.payment_id }),
      }),
    ]);
    expect((await api("GET", "/auth/billing/payments", owner.accessToken)).body.data.debt_credits).toBe(0);
    const settled = (await api("GET", `/auth/billing/payments/${first.payment.payment_id}`, owner.accessToken)).body.data.reversals[0];
    expect(settled).toMatchObject({ credits: 100, credits_recovered: 100 });
    await assertLedgerInvariants(database.db, owner.accountId);
  }

  it("partial refunds: two refund ids are two reversals, exact to the micro-credit; the same refund id again (another event, or charge.refunded) is one", async () => {
    const undo = configurePayments(fake, { CREDIT_PRICE_MINOR: "3" });
    try {
      const owner = await seedAccount(database.db);
      const bought = await buyAndPay(owner, { credits: 100 });
      await deliver(fake.event("checkout.session.completed", bought.session));
      const pi = bought.paymentIntent.id as string;
      // 300 cents for 100 credits: 100 cents back is a third of them, and the rest all that is left.
      const first = fake.refund(pi, 100);
      expect((await deliver(refundEvent("refund.created", first))).body.data.outcome).toBe("reversed");
      expect((await deliver(refundEvent("refund.updated", first))).body.data.outcome).toBe("duplicate_reversal");
      const second = fake.refund(pi, 200);
      // Pending first (nothing taken), then succeeded.
      expect((await deliver(refundEvent("refund.created", { ...second, status: "pending" }))).body.data.outcome).toBe("refund_pending");
      expect((await deliver(refundEvent("refund.updated", second))).body.data.outcome).toBe("reversed");
      // charge.refunded lists the charge's refunds from Stripe: both already reversed.
      const charge = fake.charges.get(bought.paymentIntent.latest_charge as string)!;
      expect((await deliver(fake.event("charge.refunded", charge))).body.data.outcome).toBe("duplicate_reversal");
      const reversed = await ledgerRows(owner.accountId, "consume_payment_refund");
      expect(reversed.map((r) => [r.ledger_metadata.stripe_id, r.amount_credits])).toEqual([
        [first.id, "-33.333333"],
        [second.id, "-66.666667"],
      ]);
      expect(await balance(owner)).toMatchObject({ paid_credits: 0 });
      expect((await api("GET", `/auth/billing/payments/${bought.payment.payment_id}`, owner.accessToken)).body.data).toMatchObject({ refunded_minor: 300, reversed_credits: 100 });
      await assertLedgerInvariants(database.db, owner.accountId);
    } finally {
      undo();
    }
  });

  it("charge.refunded alone reverses each of the charge's refunds by its id", async () => {
    const owner = await seedAccount(database.db);
    const bought = await buyAndPay(owner, { credits: 1000 });
    await deliver(fake.event("checkout.session.completed", bought.session));
    fake.refund(bought.paymentIntent.id as string, 100);
    fake.refund(bought.paymentIntent.id as string, 150);
    const charge = fake.charges.get(bought.paymentIntent.latest_charge as string)!;
    expect((await deliver(fake.event("charge.refunded", charge))).body.data.outcome).toBe("reversed");
    expect((await ledgerRows(owner.accountId, "consume_payment_refund")).map((r) => r.amount_credits).sort()).toEqual(["-100.000000", "-150.000000"]);
    expect(await balance(owner)).toMatchObject({ paid_credits: 750 });
  });

  it("a dispute opened freezes nothing and tells the owner; a lost one takes its credits back and tells the owner again; a won one changes nothing", async () => {
    const owner = await seedAccount(database.db);
    const bought = await buyAndPay(owner, { credits: 500 });
    await deliver(fake.event("checkout.session.completed", bought.session));
    const pi = bought.paymentIntent.id as string;
    const opened = fake.dispute(pi, "needs_response", 200, "dp_test_lost_one");
    expect((await deliver(fake.event("charge.dispute.created", opened))).body.data).toMatchObject({ outcome: "dispute_opened", payment_id: bought.payment.payment_id });
    expect(await balance(owner)).toMatchObject({ paid_credits: 500 });
    expect(await ledgerRows(owner.accountId, "consume_payment_refund")).toEqual([]);
    const notifications = async () => (await api("GET", "/auth/notifications", owner.accessToken)).body.data.items as { kind: string; event_type: string; payload: Json }[];
    expect((await notifications()).map((n) => [n.kind, n.event_type])).toEqual([["payment_disputed", "payment.disputed"]]);
    expect((await notifications())[0].payload).toMatchObject({ payment_id: bought.payment.payment_id, dispute_id: "dp_test_lost_one", amount_minor: 200, reason: "fraudulent" });

    const lost = fake.dispute(pi, "lost", 200, "dp_test_lost_one");
    expect((await deliver(fake.event("charge.dispute.closed", lost))).body.data.outcome).toBe("dispute_lost_reversed");
    expect(await balance(owner)).toMatchObject({ paid_credits: 300 });
    const reversal = (await api("GET", `/auth/billing/payments/${bought.payment.payment_id}`, owner.accessToken)).body.data.reversals;
    expect(reversal).toMatchObject([{ kind: "dispute_lost", stripe_id: "dp_test_lost_one", amount_minor: 200, credits: 200, credits_recovered: 200 }]);
    const lostNote = (await notifications()).find((n) => n.kind === "payment_dispute_lost");
    expect(lostNote).toMatchObject({ event_type: "payment.dispute_lost", payload: { dispute_id: "dp_test_lost_one", credits_reversed: "200.000000", debt_credits: "0" } });
    // The same closing delivered again (another event id): no second reversal, no second notification.
    expect((await deliver(fake.event("charge.dispute.closed", lost))).body.data.outcome).toBe("duplicate_reversal");
    expect((await notifications()).filter((n) => n.kind === "payment_dispute_lost")).toHaveLength(1);

    const won = fake.dispute(pi, "won", 100, "dp_test_won_one");
    await deliver(fake.event("charge.dispute.created", { ...won, status: "needs_response" }));
    expect((await deliver(fake.event("charge.dispute.closed", won))).body.data.outcome).toBe("dispute_won");
    expect(await balance(owner)).toMatchObject({ paid_credits: 300 });
    await assertLedgerInvariants(database.db, owner.accountId);
  });

  it("a refund of a payment not granted yet answers 409, so that Stripe delivers it again after the grant", async () => {
    const owner = await seedAccount(database.db);
    const bought = await buyAndPay(owner, { credits: 100 });
    const refund = fake.refund(bought.paymentIntent.id as string, 40);
    const early = await deliver(refundEvent("refund.created", refund));
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ status: "failure", status_code: 409, message: expect.stringContaining("has not been granted yet") });
    await deliver(fake.event("payment_intent.succeeded", bought.paymentIntent));
    expect((await deliver(refundEvent("refund.created", refund))).body.data.outcome).toBe("reversed");
    expect(await balance(owner)).toMatchObject({ paid_credits: 60 });
  });
});

describe("bad input and faults", () => {
  it("refuses amounts outside the bounds, unknown packs, both or neither, and prices that are not whole minor units", async () => {
    const owner = await seedAccount(database.db);
    const bad = (body: unknown) => api("POST", "/auth/billing/checkout", owner.accessToken, body);
    expect((await bad({ credits: 49 })).body).toMatchObject({ status_code: -7, message: "A purchase buys between 50 and 100000 credits, got 49" });
    expect((await bad({ credits: 100001 })).status).toBe(400);
    expect((await bad({ pack: 7 })).body.message).toBe('Unknown pack "7": the packs are 100, 500, 2000 credits');
    expect((await bad({ credits: 100, pack: 100 })).body.message).toBe("Give either credits or pack");
    expect((await bad({})).body.message).toBe("Give either credits or pack");
    expect((await bad({ credits: "60.5" })).body.message).toContain("costs 60.5 minor units");
    expect((await bad({ credits: "1.1234567" })).body.message).toContain("at most 6 decimals");
    expect((await bad({ credits: -5 })).status).toBe(422);
    expect(rows(await database.db.execute(sql`SELECT 1 FROM payments WHERE account_id = ${owner.accountId}`))).toHaveLength(0);
  });

  it("Stripe down or slow: 502 or 504 saying so, nothing charged and no payment left pending; once it answers, the purchase goes through", async () => {
    const owner = await seedAccount(database.db);
    fake.mode = "down";
    const down = await api("POST", "/auth/billing/checkout", owner.accessToken, { pack: 100 });
    expect(down).toMatchObject({ status: 502, body: { status: "failure", status_code: 502, message: expect.stringMatching(/^Stripe could not be reached \(creating the Checkout session\): nothing was charged/) } });
    fake.mode = "slow";
    fake.delayMs = 2500;
    const started = Date.now();
    const slow = await api("POST", "/auth/billing/checkout", owner.accessToken, { pack: 100 });
    expect(slow).toMatchObject({ status: 504, body: { status_code: 504, message: expect.stringMatching(/^Stripe did not answer within 1\.5 s \(creating the Checkout session\): nothing was charged/) } });
    expect(Date.now() - started).toBeLessThan(2400);
    fake.mode = "up";
    expect(rows(await database.db.execute(sql`SELECT 1 FROM payments WHERE account_id = ${owner.accountId}`))).toHaveLength(0);
    expect((await api("POST", "/auth/billing/checkout", owner.accessToken, { pack: 100 })).status).toBe(201);
  });

  it("with STRIPE_SECRET_KEY unset, payments are off: the config says so, buying and the webhook answer 404 saying payments are not configured, payments stay readable", async () => {
    const owner = await seedAccount(database.db);
    const off = configurePayments(fake, { STRIPE_SECRET_KEY: undefined });
    try {
      expect((await api("GET", "/auth/billing/config", owner.accessToken)).body.data).toEqual({
        enabled: false,
        currency: null,
        credit_price_minor: null,
        min_credits: null,
        max_credits: null,
        packs: [],
        debt_credits: 0,
      });
      const message = "Payments are not configured on this server (STRIPE_SECRET_KEY is unset): credits are granted by the operator (`credits grant`)";
      expect(await api("POST", "/auth/billing/checkout", owner.accessToken, { pack: 100 })).toMatchObject({ status: 404, body: { status: "failure", status_code: 404, message } });
      expect(await deliver(fake.event("checkout.session.completed", {}))).toMatchObject({ status: 404, body: { message } });
      expect((await api("GET", "/auth/billing/payments", owner.accessToken)).status).toBe(200);
    } finally {
      off();
    }
  });

  it("the CLI lists an account's payments and shows one", async () => {
    const owner = await seedAccount(database.db);
    const bought = await buyAndPay(owner, { pack: 100 });
    await deliver(fake.event("checkout.session.completed", bought.session));
    const listed = (await runCommand(database.db, ["payments", "list", "--account", owner.accountId])) as { items: Json[]; total: number };
    expect(listed).toMatchObject({ total: 1, items: [{ payment_id: bought.payment.payment_id, status: "succeeded", credits: 100 }] });
    expect(await runCommand(database.db, ["payments", "show", "--id", bought.payment.payment_id])).toMatchObject({ payment_id: bought.payment.payment_id, account_id: owner.accountId });
    await expect(runCommand(database.db, ["payments", "list", "--account", owner.accountId, "--status", "paid"])).rejects.toThrow(/--status must be one of pending, succeeded, failed, expired/);
    await expect(runCommand(database.db, ["payments", "show", "--id", "pay_nope"])).rejects.toThrow(/Payment pay_nope not found/);
  });

  it("audit verify is clean after all of the above", async () => {
    const report = await verifyLedger(database.db);
    expect(report.violations).toEqual([]);
  });
});
