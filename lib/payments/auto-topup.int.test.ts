// Auto top-up end to end: the real `stripe` SDK against the local stand-in (lib/testing/fake-stripe.ts),
// a card saved through Checkout in setup mode, off-session charges, signed webhooks, real HTTP servers
// on a real database. One charge however many Calls cross the threshold at once; failures notify and
// pause after three; a daily limit; a charge Stripe did not answer is retried as the same charge.
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { testDbKind } from "../testing/database";
import { type TestServer } from "../testing/server";
import { seedAccount } from "../testing/fixtures";
import { assertLedgerInvariants } from "../testing/invariants";
import { paymentsSuite, type Json, type PaymentsSuite, type Seeded } from "../testing/payments-suite";
import { configurePayments, deliverStripeEvent, startFakeStripe, TEST_WEBHOOK_SECRET, type CardBehaviour, type FakeStripe } from "../testing/fake-stripe";
import { openDatabase } from "../db/open";
import { rows } from "../db/row-sql";
import type { Db } from "../db/types";
import { sweepAutoTopups, triggerAutoTopup } from "./auto-topup";

const { suite, api, deliver } = paymentsSuite({ catalog: true });
let database: PaymentsSuite["database"];
let server: TestServer;
let fake: FakeStripe;
beforeAll(() => ({ database, server, fake } = suite));


/** Saves a test card for the owner through the API and the stand-in's setup page, with its webhook delivered. */
async function saveCard(owner: Seeded, behaviour: CardBehaviour = "succeeds") {
  const started = await api("POST", "/auth/billing/auto-topup/card", owner.accessToken);
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const { session } = fake.saveCard(started.body.data.setup_session_id, behaviour);
  const answer = await deliver(fake.event("checkout.session.completed", session));
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return { sessionId: started.body.data.setup_session_id as string, outcome: answer.body.data.outcome as string };
}

async function settings(owner: Seeded) {
  const got = await api("GET", "/auth/billing/auto-topup", owner.accessToken);
  expect(got.status, JSON.stringify(got.body)).toBe(200);
  return got.body.data;
}

async function setUp(owner: Seeded, body: Record<string, unknown>) {
  const put = await api("PUT", "/auth/billing/auto-topup", owner.accessToken, body);
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return put.body.data;
}

/** The off-session payment intents Stripe was asked to create for the account. */
const charges = (accountId: string) => fake.requests.filter((r) => r.method === "POST" && r.path === "/v1/payment_intents" && (r.params.metadata as Json)?.tollgate_account_id === accountId);
/** The payment intents Stripe holds for the account (a retried request with the same key is not a second one). */
const intents = (accountId: string) => [...fake.paymentIntents.values()].filter((p) => (p.metadata as Json)?.tollgate_account_id === accountId);

async function payments(accountId: string) {
  return rows<{ id: string; kind: string; status: string; credits: string; failure_code: string | null; stripe_payment_intent_id: string | null }>(
    await database.db.execute(sql`SELECT id, kind, status, credits::text AS credits, failure_code, stripe_payment_intent_id FROM payments WHERE account_id = ${accountId} ORDER BY created_at, id`),
  );
}

async function notificationsOf(accountId: string) {
  return rows<{ kind: string; payload: Json }>(await database.db.execute(sql`SELECT kind, payload FROM notifications WHERE account_id = ${accountId} ORDER BY created_at, id`));
}

async function available(owner: Seeded): Promise<number> {
  const b = (await api("GET", "/auth/credits", owner.accessToken)).body.data;
  return b.total_credits;
}

async function until<T>(read: () => Promise<T> | T, done: (v: T) => boolean, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Delivers Stripe's `payment_intent.succeeded` of the account's newest intent (as Stripe would after the charge). */
async function deliverSucceeded(accountId: string) {
  const intent = intents(accountId).at(-1)!;
  expect(intent.status).toBe("succeeded");
  const answer = await deliver(fake.event("payment_intent.succeeded", intent));
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.data;
}

describe("auto top-up", () => {
  it("an owner saves a card through Checkout in setup mode and sets the threshold, amount and daily limit; bad input is refused, members read but cannot set", async () => {
    const owner = await seedAccount(database.db);
    expect(await settings(owner)).toMatchObject({ state: "off", enabled: false, card: null, threshold_credits: null, consecutive_failures: 0, in_flight_payment_id: null, currency: "usd" });

    // Turning it on needs the three amounts; each is checked.
    // The schema's refusals are 422s (validation detail), the domain's 400s (status_code -7), as for a purchase.
    const bad = async (body: unknown, field: RegExp, status = 400) => {
      const put = await api("PUT", "/auth/billing/auto-topup", owner.accessToken, body);
      expect(put.status, JSON.stringify(put.body)).toBe(status);
      expect(JSON.stringify(put.body)).toMatch(field);
    };
    await bad({ enabled: true }, /threshold_credits, amount_credits and daily_limit_credits/);
    await bad({ enabled: true, threshold_credits: 100, amount_credits: 10, daily_limit_credits: 1000 }, /between 50 and 100000 credits/);
    await bad({ enabled: true, threshold_credits: 100, amount_credits: 500, daily_limit_credits: 100 }, /must be at least amount_credits/);
    await bad({ threshold_credits: -1 }, /threshold_credits/, 422);
    await bad({ amount_credits: "1.1234567" }, /amount_credits/, 422);
    await bad({ enabled: true, cap: 3 }, /cap/, 422);

    // On without a card: it waits for one.
    expect(await setUp(owner, { enabled: true, threshold_credits: 100, amount_credits: 500, daily_limit_credits: 1000 })).toMatchObject({
      state: "needs_card",
      threshold_credits: 100,
      amount_credits: 500,
      daily_limit_credits: 1000,
      amount_minor: 500,
    });

    const { sessionId, outcome } = await saveCard(owner);
    expect(outcome).toBe("card_saved");
    const customer = fake.requests.filter((r) => r.path === "/v1/customers").at(-1)!;
    expect(customer.params).toMatchObject({ email: owner.email, metadata: { tollgate_account_id: owner.accountId } });
    expect(customer.idempotencyKey).toMatch(/^tollgate-customer-set_/);
    const setup = fake.requests.find((r) => r.path === "/v1/checkout/sessions" && r.params.mode === "setup" && (r.params.metadata as Json)?.tollgate_account_id === owner.accountId)!;
    expect(setup.params).toMatchObject({ mode: "setup", currency: "usd", success_url: "http://tollgate.test/billing?card=saved", metadata: { tollgate_purpose: "auto_topup_card" } });
    expect(setup.idempotencyKey).toMatch(/^tollgate-setup-set_/);
    expect(fake.sessions.get(sessionId)?.customer).toBe(fake.customers.get(String(fake.sessions.get(sessionId)?.customer))?.id);
    expect(await settings(owner)).toMatchObject({ state: "active", card: { brand: "visa", last4: "4242", exp_month: 12 } });

    // A member reads it; only the owner sets it or saves a card.
    const member = await seedAccount(database.db, { role: "member" });
    expect((await api("PUT", "/auth/billing/auto-topup", member.accessToken, { enabled: false })).status).toBe(403);
    expect((await api("POST", "/auth/billing/auto-topup/card", member.accessToken)).status).toBe(403);

    // A second card replaces the first, which is detached in Stripe.
    const first = (await settings(owner)).card;
    await saveCard(owner);
    expect((await settings(owner)).card.last4).toBe(first.last4);
    expect(fake.requests.filter((r) => /^\/v1\/payment_methods\/pm_\w+\/detach$/.test(r.path))).toHaveLength(1);

    // Forgetting the card turns it off.
    const removed = await api("DELETE", "/auth/billing/auto-topup/card", owner.accessToken);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ state: "off", enabled: false, card: null });
    const activity = (await api("GET", "/auth/account/activity", owner.accessToken)).body.data.items.map((a: Json) => a.action);
    expect(activity).toEqual(expect.arrayContaining(["auto_topup.updated", "auto_topup.card_saved", "auto_topup.card_removed"]));
  });

  it("50 Calls crossing the threshold at once start one charge; its webhook grants the credits once", async () => {
    const owner = await seedAccount(database.db, { credits: "60" });
    await saveCard(owner);
    await setUp(owner, { enabled: true, threshold_credits: 50, amount_credits: 500, daily_limit_credits: 2000 });
    expect(charges(owner.accountId)).toHaveLength(0);

    const calls = await Promise.all(
      Array.from({ length: 50 }, () => api("POST", "/tools/execute", owner.apiKey, { tool_id: "builtin.finance.compound_interest", parameters: { principal: 100, annual_rate_percent: 5, years: 2 } })),
    );
    expect(calls.map((c) => c.status)).toEqual(Array(50).fill(200));
    const [payment] = await until(() => payments(owner.accountId), (p) => p.length > 0 && p[0].stripe_payment_intent_id !== null, "the top-up's payment intent");
    // Time for any other Call's top-up to have started, had one been let through.
    await new Promise((r) => setTimeout(r, 1000));
    console.log(`[auto top-up] 50 concurrent Calls crossing the threshold (${testDbKind()}): ${charges(owner.accountId).length} charge(s) asked of Stripe`);
    expect(charges(owner.accountId)).toHaveLength(1);
    expect(await payments(owner.accountId)).toHaveLength(1);
    expect(payment).toMatchObject({ kind: "auto_topup", status: "pending", credits: "500.000000" });
    const asked = charges(owner.accountId)[0];
    expect(asked.idempotencyKey).toBe(`tollgate-topup-${payment.id}`);
    expect(asked.params).toMatchObject({ amount: "500", currency: "usd", off_session: "true", confirm: "true", metadata: { tollgate_payment_id: payment.id, tollgate_kind: "auto_topup", tollgate_credits: "500" } });
    expect(await available(owner)).toBe(10);

    const granted = await deliverSucceeded(owner.accountId);
    expect(granted).toMatchObject({ outcome: "granted", payment_id: payment.id });
    expect(await available(owner)).toBe(510);
    const listed = (await api("GET", "/auth/billing/payments?kind=auto_topup", owner.accessToken)).body.data;
    expect(listed.items).toMatchObject([{ payment_id: payment.id, kind: "auto_topup", status: "succeeded", ledger_entry_id: granted.ledger_entry_id }]);
    expect(await settings(owner)).toMatchObject({ state: "active", bought_last_24h_credits: 500, in_flight_payment_id: null });
    // Above the threshold now: a sweep starts nothing.
    await sweepAutoTopups(database.db);
    expect(charges(owner.accountId)).toHaveLength(1);
    await assertLedgerInvariants(database.db, owner.accountId);
  });

  it("50 concurrent triggers across 3 instances, none of them sharing a process's memory, start one charge", async () => {
    const extra = testDbKind() === "postgres" ? await Promise.all([0, 1].map(() => openDatabase({ kind: "postgres", url: database.url!, poolSize: 5 }))) : [database, database];
    const dbs: Db[] = [database.db, ...extra.map((d) => d.db)];
    try {
      const owner = await seedAccount(database.db);
      await saveCard(owner);
      await setUp(owner, { enabled: false, threshold_credits: 50, amount_credits: 100, daily_limit_credits: 1000 });
      // Turned on straight in the table, so that no top-up starts before the race.
      await database.db.execute(sql`UPDATE auto_topups SET enabled = true WHERE account_id = ${owner.accountId}`);
      const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => triggerAutoTopup(dbs[i % 3], owner.accountId)));
      const counts = Object.fromEntries([...new Set(outcomes.map((o) => o.status))].map((s) => [s, outcomes.filter((o) => o.status === s).length]));
      console.log(`[auto top-up] 50 concurrent triggers across 3 instances (${testDbKind()}): ${JSON.stringify(counts)}; ${charges(owner.accountId).length} charge(s)`);
      expect(counts).toEqual({ started: 1, in_flight: 49 });
      expect(charges(owner.accountId)).toHaveLength(1);
      expect(intents(owner.accountId)).toHaveLength(1);
    } finally {
      if (testDbKind() === "postgres") await Promise.all(extra.map((d) => d.close()));
    }
  });

  it("a declined or authentication-required charge fails the payment and notifies (notification, webhook event, activity); the third in a row pauses it; a new card resumes it", async () => {
    const owner = await seedAccount(database.db);
    const endpoint = await api("POST", "/auth/webhooks", owner.accessToken, { url: "https://93.184.215.14/hooks", events: ["auto_topup.failed"] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(200);
    await saveCard(owner, "declines");
    // The balance (0) is already below the threshold: turning it on starts the first top-up, which the card declines.
    expect(await setUp(owner, { enabled: true, threshold_credits: 50, amount_credits: 100, daily_limit_credits: 1000 })).toMatchObject({
      state: "active",
      consecutive_failures: 1,
      last_failure: { code: "card_declined", message: "Your card was declined." },
    });
    let [failed] = await payments(owner.accountId);
    expect(failed).toMatchObject({ kind: "auto_topup", status: "failed", failure_code: "card_declined" });
    expect(failed.stripe_payment_intent_id).toMatch(/^pi_/);

    // Stripe's own event of the same failure counts nothing twice.
    const intent = fake.paymentIntents.get(failed.stripe_payment_intent_id!)!;
    const replay = await deliver(fake.event("payment_intent.payment_failed", intent));
    expect(replay.body.data.outcome).toBe("duplicate_failure");
    expect((await settings(owner)).consecutive_failures).toBe(1);

    // The card now needs its holder to authenticate: the second failure.
    const pm = [...fake.paymentMethods.values()].find((p) => p.customer !== null && fake.customers.has(String(p.customer)) && (p.card as Json).last4 === "0002" && charges(owner.accountId).some((c) => c.params.payment_method === p.id))!;
    pm._behaviour = "authentication_required";
    expect(await triggerAutoTopup(database.db, owner.accountId)).toMatchObject({ status: "started", charge: "failed" });
    expect((await settings(owner)).last_failure).toMatchObject({ code: "authentication_required" });
    pm._behaviour = "declines";
    expect(await triggerAutoTopup(database.db, owner.accountId)).toMatchObject({ status: "started", charge: "failed" });

    const paused = await settings(owner);
    expect(paused).toMatchObject({ state: "paused", consecutive_failures: 3 });
    expect(paused.paused_at).not.toBeNull();
    // Paused: neither a trigger nor a sweep charges the card again.
    expect(await triggerAutoTopup(database.db, owner.accountId)).toEqual({ status: "off" });
    await sweepAutoTopups(database.db);
    expect(charges(owner.accountId)).toHaveLength(3);

    const told = (await notificationsOf(owner.accountId)).filter((n) => n.kind === "auto_topup_failed");
    expect(told.map((n) => [n.payload.code, n.payload.consecutive_failures, n.payload.paused])).toEqual([
      ["card_declined", 1, false],
      ["authentication_required", 2, false],
      ["card_declined", 3, true],
    ]);
    const hooks = rows<{ event_type: string; payload: { data: Json } }>(
      await database.db.execute(sql`SELECT event_type, payload FROM webhook_deliveries WHERE account_id = ${owner.accountId} ORDER BY created_at, id`),
    );
    expect(hooks.map((h) => [h.event_type, h.payload.data.code])).toEqual([
      ["auto_topup.failed", "card_declined"],
      ["auto_topup.failed", "authentication_required"],
      ["auto_topup.failed", "card_declined"],
    ]);
    const activity = (await api("GET", "/auth/account/activity", owner.accessToken)).body.data.items.map((a: Json) => a.action);
    expect(activity.filter((a: string) => a === "auto_topup.failed")).toHaveLength(3);
    expect(activity).toContain("auto_topup.paused");

    // A new card resumes it, and the balance being below the threshold, tops up at once.
    await saveCard(owner, "succeeds");
    const resumed = await until(() => settings(owner), (s) => s.in_flight_payment_id !== null, "the top-up with the new card");
    expect(resumed).toMatchObject({ state: "active", consecutive_failures: 0, paused_at: null, card: { last4: "4242" } });
    expect((await deliverSucceeded(owner.accountId)).outcome).toBe("granted");
    expect(await available(owner)).toBe(100);
    [failed] = await payments(owner.accountId);
    expect(failed.status).toBe("failed");
    await assertLedgerInvariants(database.db, owner.accountId);
  });

  it("buys at most the daily limit in 24 hours, and says so once", async () => {
    const owner = await seedAccount(database.db);
    await saveCard(owner);
    // A threshold far above what two top-ups bring: only the limit stops it.
    await setUp(owner, { enabled: true, threshold_credits: 100000, amount_credits: 500, daily_limit_credits: 1000 });
    await until(() => payments(owner.accountId), (p) => p[0]?.stripe_payment_intent_id != null, "the first top-up");
    await deliverSucceeded(owner.accountId);
    expect(await triggerAutoTopup(database.db, owner.accountId)).toMatchObject({ status: "started", charge: "succeeded" });
    await deliverSucceeded(owner.accountId);
    expect(await triggerAutoTopup(database.db, owner.accountId)).toEqual({ status: "daily_limit", bought_credits: "1000.000000", limit_credits: "1000.000000" });
    expect(await triggerAutoTopup(database.db, owner.accountId)).toMatchObject({ status: "daily_limit" });
    expect(charges(owner.accountId)).toHaveLength(2);
    expect(await available(owner)).toBe(1000);
    const limited = (await notificationsOf(owner.accountId)).filter((n) => n.kind === "auto_topup_limited");
    expect(limited).toHaveLength(1);
    expect(limited[0].payload).toMatchObject({ limit_credits: 1000, bought_credits: 1000, amount_credits: 500 });
    expect(await settings(owner)).toMatchObject({ bought_last_24h_credits: 1000 });
  });

  it("a disabled account's card is not charged, by a trigger or the sweeper", async () => {
    const owner = await seedAccount(database.db);
    await saveCard(owner);
    await setUp(owner, { enabled: false, threshold_credits: 50, amount_credits: 100, daily_limit_credits: 1000 });
    await database.db.execute(sql`UPDATE auto_topups SET enabled = true WHERE account_id = ${owner.accountId}`);
    await database.db.execute(sql`UPDATE accounts SET disabled_at = now() WHERE id = ${owner.accountId}`);
    expect(await triggerAutoTopup(database.db, owner.accountId)).toEqual({ status: "off" });
    await sweepAutoTopups(database.db);
    expect(charges(owner.accountId)).toHaveLength(0);
    await database.db.execute(sql`UPDATE accounts SET disabled_at = NULL WHERE id = ${owner.accountId}`);
    expect(await triggerAutoTopup(database.db, owner.accountId)).toMatchObject({ status: "started", charge: "succeeded" });
  });

  it("a charge Stripe did not answer in time stays pending, and the sweeper's retry with the same idempotency key is the same charge", async () => {
    const owner = await seedAccount(database.db);
    await saveCard(owner);
    await setUp(owner, { enabled: false, threshold_credits: 50, amount_credits: 100, daily_limit_credits: 1000 });
    await database.db.execute(sql`UPDATE auto_topups SET enabled = true WHERE account_id = ${owner.accountId}`);
    fake.mode = "slow";
    fake.delayMs = 2500;
    let outcome;
    try {
      outcome = await triggerAutoTopup(database.db, owner.accountId);
    } finally {
      fake.mode = "up";
    }
    expect(outcome).toMatchObject({ status: "started", charge: "unknown" });
    const [pending] = await payments(owner.accountId);
    expect(pending).toMatchObject({ status: "pending", stripe_payment_intent_id: null });
    // Stripe did make the charge, late.
    await until(() => intents(owner.accountId), (i) => i.length === 1, "Stripe's late charge");
    // Another trigger finds it in flight; the sweeper, a minute on, asks again with the same key.
    expect(await triggerAutoTopup(database.db, owner.accountId)).toMatchObject({ status: "in_flight", payment_id: pending.id });
    await database.db.execute(sql`UPDATE payments SET updated_at = now() - interval '2 minutes' WHERE id = ${pending.id}`);
    expect(await sweepAutoTopups(database.db)).toMatchObject({ retried: 1, failed: 0 });
    const keys = new Set(charges(owner.accountId).map((c) => c.idempotencyKey));
    expect([...keys]).toEqual([`tollgate-topup-${pending.id}`]);
    expect(intents(owner.accountId)).toHaveLength(1);
    expect((await payments(owner.accountId))[0].stripe_payment_intent_id).toBe(intents(owner.accountId)[0].id);
    expect((await deliverSucceeded(owner.accountId)).outcome).toBe("granted");
    expect(await available(owner)).toBe(100);
  });
});
