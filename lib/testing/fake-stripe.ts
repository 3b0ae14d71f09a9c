import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

/**
 * A local stand-in for the few Stripe endpoints Tollgate uses, good enough for the real `stripe`
 * SDK pointed at it (STRIPE_API_URL): Checkout Sessions (create, retrieve), Payment Intents
 * (retrieve, `expand[]=latest_charge`), Charges (retrieve), Refunds (list by charge, create) and
 * Customers (create), Setup Intents (retrieve, `expand[]=payment_method`), Payment Methods (detach),
 * off-session Payment Intents (create with `confirm`: the saved card's behaviour decides — it pays,
 * is declined, or needs authentication, answered 402 as Stripe does), and
 * Balance Transactions (list with `created[gte|lt]`, `limit`/`starting_after`, `expand[]=data.source`;
 * retrieve): a charge and a succeeded refund each make one, with a fee on charges (2.9 % + 30,
 * `fee_details`), a refund failed later (`failRefund`) a `refund_failure` giving the money back,
 * a dispute a withdrawal when first seen and a reinstatement if won (Disputes:
 * retrieve, with its `balance_transactions`), and tests add Stripe fees and payouts (`addFee`,
 * `addPayout`), and the account itself (`GET /v1/account`). It
 * keeps the objects in memory, honours Idempotency-Key like Stripe (the same key and body answer
 * the first response; another body is an idempotency_error), records every request, and can be
 * made unreachable or slow. Tests move money with its helpers (`pay`, `refund`, `failRefund`,
 * `dispute`, `expire`), which return the objects Stripe's events would carry, and deliver those events signed
 * by the SDK's own `generateTestHeaderString`. `GET /checkout/<session id>` is a hosted page whose
 * Pay button pays (or, in setup mode, saves the test card picked), delivers the events to `webhook`
 * (when set) and goes back to the success URL. With `webhook` set, an off-session charge delivers
 * its `payment_intent.succeeded` or `payment_intent.payment_failed` too, as Stripe would.
 */

type Json = Record<string, unknown>;

export interface FakeStripeRequest {
  method: string;
  path: string;
  params: Json;
  idempotencyKey: string | null;
  authorization: string | null;
}

export interface FakeStripe {
  url: string;
  /** The Stripe account the key belongs to, as `GET /v1/account` answers it. */
  accountId: string;
  /** For STRIPE_API_URL. */
  apiUrl: string;
  requests: FakeStripeRequest[];
  /** `down`: every API connection is dropped; `slow`: answers after `delayMs`. */
  mode: "up" | "down" | "slow";
  delayMs: number;
  /** Where the hosted page's Pay button delivers the session's events. */
  webhook?: { url: string; secret: string };
  sessions: Map<string, Json>;
  paymentIntents: Map<string, Json>;
  charges: Map<string, Json>;
  refunds: Map<string, Json>;
  /** Balance transactions by id (tests may change one, e.g. its amount or `created`). */
  balanceTransactions: Map<string, Json>;
  customers: Map<string, Json>;
  setupIntents: Map<string, Json>;
  /** Saved cards by id; `_behaviour` decides what charging one does (tests may change it). */
  paymentMethods: Map<string, Json>;
  /** Completes an open setup session with a test card that pays, is declined, or needs authentication. */
  saveCard(sessionId: string, behaviour?: CardBehaviour): { session: Json; setupIntent: Json; paymentMethod: Json };
  /** Pays an open session: its payment intent and charge (with a receipt) succeed. */
  pay(sessionId: string): { session: Json; paymentIntent: Json; charge: Json };
  /** Expires an open session. */
  expire(sessionId: string): Json;
  /** A succeeded refund of part (or all) of a payment intent's charge. */
  refund(paymentIntentId: string, amount?: number, status?: string): Json;
  /**
   * Fails a refund, as Stripe does when the card it was sent to is closed: status `failed`, its
   * `failure_reason`, the charge's refunded amount given back, and for a refund that had moved money
   * a `refund_failure` balance transaction (positive, its source the refund) named by
   * `failure_balance_transaction`. Returns the refund as `refund.failed` carries it.
   */
  failRefund(refundId: string, reason?: string, created?: number): Json;
  /** A dispute of a payment intent's charge, in the given status (`needs_response` when opened, `lost` or `won` when closed). */
  dispute(paymentIntentId: string, status: string, amount?: number, id?: string): Json;
  /**
   * A succeeded payment intent and charge made on Stripe directly, with no Checkout session: e.g. a
   * charge whose webhook never reached Tollgate (give Tollgate's metadata) or another product's.
   */
  charge(input: { amount: number; currency?: string; metadata?: Json }): { paymentIntent: Json; charge: Json };
  /** A balance transaction of Stripe's own fees (`stripe_fee`, negative `amount`). */
  addFee(amount: number, currency?: string, created?: number): Json;
  /** A payout to the bank (`payout`, negative `amount`, its `po_…` source). */
  addPayout(amount: number, currency?: string, created?: number): Json;
  /** A Stripe event carrying `object`. */
  event(type: string, object: Json, id?: string): Json;
  close(): Promise<void>;
}

/** What charging a saved test card does: Stripe's 4242 (pays), 0002 (declined) and 3184 (always needs its holder to authenticate). */
export type CardBehaviour = "succeeds" | "declines" | "authentication_required";
const TEST_CARDS: Record<CardBehaviour, { last4: string; label: string }> = {
  succeeds: { last4: "4242", label: "Visa 4242 (pays)" },
  declines: { last4: "0002", label: "Visa 0002 (declined)" },
  authentication_required: { last4: "3184", label: "Visa 3184 (needs authentication)" },
};

const random = (n = 12) => crypto.randomBytes(n).toString("hex").slice(0, n * 2);
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** `a[b][0][c]=v` form encoding (what the SDK sends) into nested objects; numbered keys become arrays. */
export function parseStripeForm(text: string): Json {
  const out: Json = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.split(/\[|\]\[|\]/).filter((p) => p !== "");
    let node: Json = out;
    path.forEach((part, i) => {
      if (i === path.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Json;
    });
  }
  const arrays = (v: unknown): unknown => {
    if (v === null || typeof v !== "object") return v;
    const o = v as Json;
    const keys = Object.keys(o);
    if (keys.length > 0 && keys.every((k, i) => k === String(i))) return keys.map((k) => arrays(o[k]));
    return Object.fromEntries(keys.map((k) => [k, arrays(o[k])]));
  };
  return arrays(out) as Json;
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), "request-id": `req_${random(7)}` });
  res.end(text);
}

const invalid = (res: http.ServerResponse, message: string, status = 400, type = "invalid_request_error") => send(res, status, { error: { type, message } });

export async function startFakeStripe(): Promise<FakeStripe> {
  const idempotent = new Map<string, { body: string; status: number; response: unknown }>();
  const fake = {
    url: "",
    accountId: `acct_${random(8)}`,
    apiUrl: "",
    requests: [] as FakeStripeRequest[],
    mode: "up" as FakeStripe["mode"],
    delayMs: 0,
    webhook: undefined as FakeStripe["webhook"],
    sessions: new Map<string, Json>(),
    paymentIntents: new Map<string, Json>(),
    charges: new Map<string, Json>(),
    refunds: new Map<string, Json>(),
    balanceTransactions: new Map<string, Json>(),
    customers: new Map<string, Json>(),
    setupIntents: new Map<string, Json>(),
    paymentMethods: new Map<string, Json>(),
  } as FakeStripe;

  /** One balance transaction: `fee` is taken from `amount`, `net` is what is left. */
  function ledgerTxn(type: string, category: string, amount: number, currency: string, source: string | null, fee = 0, created = nowSeconds()): Json {
    const txn: Json = {
      id: `txn_${random(12)}`,
      object: "balance_transaction",
      amount,
      currency,
      fee,
      fee_details: fee === 0 ? [] : [{ amount: fee, currency, type: "stripe_fee", description: "Stripe processing fees", application: null }],
      net: amount - fee,
      type,
      reporting_category: category,
      source,
      status: "available",
      created,
      available_on: created,
      description: null,
      exchange_rate: null,
    };
    fake.balanceTransactions.set(String(txn.id), txn);
    return txn;
  }

  function succeededCharge(amount: number, currency: string, metadata: Json) {
    const intentId = `pi_${random(12)}`;
    const chargeId = `ch_${random(12)}`;
    const txn = ledgerTxn("charge", "charge", amount, currency, chargeId, Math.round(amount * 0.029) + 30);
    const charge: Json = {
      id: chargeId,
      object: "charge",
      amount,
      amount_refunded: 0,
      currency,
      payment_intent: intentId,
      balance_transaction: txn.id,
      paid: true,
      refunded: false,
      status: "succeeded",
      receipt_url: `https://pay.stripe.test/receipts/${chargeId}`,
      created: nowSeconds(),
      livemode: false,
    };
    const paymentIntent: Json = { id: intentId, object: "payment_intent", amount, amount_received: amount, currency, status: "succeeded", metadata, latest_charge: chargeId, created: nowSeconds(), livemode: false };
    fake.charges.set(chargeId, charge);
    fake.paymentIntents.set(intentId, paymentIntent);
    return { paymentIntent, charge };
  }

  const base = () => fake.url;

  function createSession(params: Json): Json {
    const items = (params.line_items as Json[] | undefined) ?? [];
    let amount = 0;
    let currency = "";
    for (const item of items) {
      const price = item.price_data as Json | undefined;
      if (!price || !/^\d+$/.test(String(price.unit_amount))) throw new Error("line_items[].price_data.unit_amount must be an integer");
      amount += Number(price.unit_amount) * Number(item.quantity ?? 1);
      currency = String(price.currency);
    }
    if (params.mode !== "payment" && params.mode !== "setup") throw new Error("only mode=payment and mode=setup are played here");
    if (params.mode === "setup") {
      if (items.length > 0) throw new Error("line_items cannot be given in setup mode");
      if (!params.currency) throw new Error("currency is required in setup mode");
      if (params.customer && !fake.customers.has(String(params.customer))) throw new Error(`No such customer: '${String(params.customer)}'`);
      currency = String(params.currency);
    }
    if (!params.success_url || !params.cancel_url) throw new Error("success_url and cancel_url are required");
    const id = `cs_test_${random(16)}`;
    const session: Json = {
      id,
      object: "checkout.session",
      mode: params.mode,
      customer: params.customer ?? null,
      setup_intent: null,
      status: "open",
      payment_status: "unpaid",
      amount_subtotal: amount,
      amount_total: amount,
      currency,
      client_reference_id: params.client_reference_id ?? null,
      customer_email: params.customer_email ?? null,
      metadata: (params.metadata as Json) ?? {},
      payment_intent: null,
      url: `${base()}/checkout/${id}`,
      success_url: params.success_url,
      cancel_url: params.cancel_url,
      created: nowSeconds(),
      expires_at: nowSeconds() + 86400,
      livemode: false,
      // Kept for `pay` and `saveCard`: what the payment or setup intent will carry (Stripe copies it there).
      _intent_metadata: ((params.payment_intent_data as Json | undefined)?.metadata as Json) ?? ((params.setup_intent_data as Json | undefined)?.metadata as Json) ?? {},
    };
    fake.sessions.set(id, session);
    return session;
  }

  const visible = (o: Json) => Object.fromEntries(Object.entries(o).filter(([k]) => !k.startsWith("_")));

  fake.pay = (sessionId) => {
    const session = fake.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    if (session.status !== "open") throw new Error(`session ${sessionId} is ${String(session.status)}`);
    const { paymentIntent, charge } = succeededCharge(Number(session.amount_total), String(session.currency), session._intent_metadata as Json);
    const intentId = paymentIntent.id;
    Object.assign(session, { status: "complete", payment_status: "paid", payment_intent: intentId });
    return { session: visible(session), paymentIntent, charge };
  };

  fake.saveCard = (sessionId, behaviour = "succeeds") => {
    const session = fake.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    if (session.mode !== "setup" || session.status !== "open") throw new Error(`session ${sessionId} is not an open setup session`);
    const customer = session.customer === null ? null : String(session.customer);
    const paymentMethod: Json = {
      id: `pm_${random(12)}`,
      object: "payment_method",
      type: "card",
      card: { brand: "visa", last4: TEST_CARDS[behaviour].last4, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3 },
      customer,
      created: nowSeconds(),
      livemode: false,
      _behaviour: behaviour,
    };
    fake.paymentMethods.set(String(paymentMethod.id), paymentMethod);
    const setupIntent: Json = { id: `seti_${random(12)}`, object: "setup_intent", status: "succeeded", customer, payment_method: paymentMethod.id, usage: "off_session", metadata: session._intent_metadata, created: nowSeconds(), livemode: false };
    fake.setupIntents.set(String(setupIntent.id), setupIntent);
    Object.assign(session, { status: "complete", setup_intent: setupIntent.id });
    return { session: visible(session), setupIntent, paymentMethod: visible(paymentMethod) };
  };

  /** An off-session charge of a saved card: it pays, or fails as Stripe answers a decline (402, the intent in the error). */
  function chargeSavedCard(params: Json): { status: number; body: Json; event: Json } {
    const pm = fake.paymentMethods.get(String(params.payment_method));
    if (!pm) return { status: 400, body: { error: { type: "invalid_request_error", code: "resource_missing", message: `No such PaymentMethod: '${String(params.payment_method)}'` } }, event: {} };
    if (pm.customer !== params.customer) {
      return { status: 400, body: { error: { type: "invalid_request_error", message: "The provided PaymentMethod does not belong to the customer" } }, event: {} };
    }
    const amount = Number(params.amount);
    const currency = String(params.currency);
    const metadata = (params.metadata as Json | undefined) ?? {};
    if (pm._behaviour === "succeeds") {
      const { paymentIntent } = succeededCharge(amount, currency, metadata);
      Object.assign(paymentIntent, { customer: params.customer, payment_method: pm.id, description: params.description ?? null });
      return { status: 200, body: paymentIntent, event: fake.event("payment_intent.succeeded", paymentIntent) };
    }
    const declined = pm._behaviour === "declines";
    const error = declined
      ? { type: "card_error", code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." }
      : { type: "card_error", code: "authentication_required", decline_code: "authentication_required", message: "Your card was declined. This transaction requires authentication." };
    const paymentIntent: Json = {
      id: `pi_${random(12)}`,
      object: "payment_intent",
      amount,
      amount_received: 0,
      currency,
      customer: params.customer,
      payment_method: null,
      status: "requires_payment_method",
      last_payment_error: { ...error, payment_method: visible(pm) },
      metadata,
      latest_charge: null,
      created: nowSeconds(),
      livemode: false,
    };
    fake.paymentIntents.set(String(paymentIntent.id), paymentIntent);
    return { status: 402, body: { error: { ...error, payment_intent: paymentIntent } }, event: fake.event("payment_intent.payment_failed", paymentIntent) };
  }

  fake.charge = ({ amount, currency = "usd", metadata = {} }) => succeededCharge(amount, currency, metadata);
  fake.addFee = (amount, currency = "usd", created) => ledgerTxn("stripe_fee", "fee", -Math.abs(amount), currency, null, 0, created);
  fake.addPayout = (amount, currency = "usd", created) => ledgerTxn("payout", "payout", -Math.abs(amount), currency, `po_${random(12)}`, 0, created);

  fake.expire = (sessionId) => {
    const session = fake.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    Object.assign(session, { status: "expired" });
    return visible(session);
  };

  const chargeOf = (paymentIntentId: string) => {
    const intent = fake.paymentIntents.get(paymentIntentId);
    if (!intent) throw new Error(`no payment intent ${paymentIntentId}`);
    return fake.charges.get(String(intent.latest_charge))!;
  };

  fake.refund = (paymentIntentId, amount, status = "succeeded") => {
    const charge = chargeOf(paymentIntentId);
    const value = amount ?? Number(charge.amount) - Number(charge.amount_refunded);
    if (Number(charge.amount_refunded) + value > Number(charge.amount)) throw new Error("refund larger than what is left of the charge");
    const refund: Json = { id: `re_${random(12)}`, object: "refund", amount: value, currency: charge.currency, charge: charge.id, payment_intent: paymentIntentId, status, metadata: {}, created: nowSeconds() };
    if (status === "succeeded") {
      charge.amount_refunded = Number(charge.amount_refunded) + value;
      charge.refunded = charge.amount_refunded === charge.amount;
      refund.balance_transaction = ledgerTxn("refund", "refund", -value, String(charge.currency), String(refund.id)).id;
    }
    fake.refunds.set(String(refund.id), refund);
    return refund;
  };

  fake.failRefund = (refundId, reason = "expired_or_canceled_card", created) => {
    const refund = fake.refunds.get(refundId);
    if (!refund) throw new Error(`no refund ${refundId}`);
    if (refund.status !== "succeeded" && refund.status !== "pending") throw new Error(`refund ${refundId} is ${String(refund.status)}`);
    if (refund.status === "succeeded") {
      const charge = fake.charges.get(String(refund.charge))!;
      charge.amount_refunded = Number(charge.amount_refunded) - Number(refund.amount);
      charge.refunded = false;
      refund.failure_balance_transaction = ledgerTxn("refund_failure", "refund_failure", Number(refund.amount), String(refund.currency), refundId, 0, created).id;
    }
    Object.assign(refund, { status: "failed", failure_reason: reason });
    return { ...refund };
  };

  const disputes = new Map<string, Json>();
  fake.dispute = (paymentIntentId, status, amount, id) => {
    const charge = chargeOf(paymentIntentId);
    const disputeId = id ?? `dp_${random(12)}`;
    const value = amount ?? Number(charge.amount);
    // As Stripe does: the amount is withdrawn when the dispute is first seen, and reinstated if it is won.
    const txns = ((disputes.get(disputeId)?.balance_transactions as string[] | undefined) ?? []).slice();
    if (txns.length === 0) txns.push(String(ledgerTxn("adjustment", "dispute", -value, String(charge.currency), disputeId).id));
    if (status === "won" && txns.length === 1) txns.push(String(ledgerTxn("adjustment", "dispute_reversal", value, String(charge.currency), disputeId).id));
    const dispute: Json = {
      id: disputeId,
      object: "dispute",
      amount: amount ?? charge.amount,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: paymentIntentId,
      reason: "fraudulent",
      status,
      balance_transactions: txns,
      created: nowSeconds(),
      livemode: false,
    };
    disputes.set(disputeId, dispute);
    return dispute;
  };

  /** A balance transaction's `source`, expanded into its object. */
  const sourceOf = (txn: Json): unknown => {
    const id = txn.source === null ? null : String(txn.source);
    if (id === null) return null;
    return fake.charges.get(id) ?? fake.refunds.get(id) ?? disputes.get(id) ?? (id.startsWith("po_") ? { id, object: "payout", amount: -Number(txn.amount), currency: txn.currency, status: "paid" } : id);
  };

  fake.event = (type, object, id) => ({
    id: id ?? `evt_${random(12)}`,
    object: "event",
    api_version: "2026-10-28.endive",
    created: nowSeconds(),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  });

  function api(method: string, path: string, params: Json, res: http.ServerResponse) {
    let m: RegExpExecArray | null;
    if (method === "GET" && path === "/v1/account") {
      return send(res, 200, { id: fake.accountId, object: "account", type: "standard", country: "US", default_currency: "usd", charges_enabled: true, payouts_enabled: true });
    }
    if (method === "POST" && path === "/v1/checkout/sessions") {
      try {
        return send(res, 200, visible(createSession(params)));
      } catch (err) {
        return invalid(res, (err as Error).message);
      }
    }
    if (method === "POST" && path === "/v1/customers") {
      const customer: Json = { id: `cus_${random(12)}`, object: "customer", email: params.email ?? null, description: params.description ?? null, metadata: params.metadata ?? {}, created: nowSeconds(), livemode: false };
      fake.customers.set(String(customer.id), customer);
      return send(res, 200, customer);
    }
    if (method === "GET" && (m = /^\/v1\/setup_intents\/([\w]+)$/.exec(path))) {
      const intent = fake.setupIntents.get(m[1]);
      if (!intent) return invalid(res, `No such setupintent: '${m[1]}'`, 404);
      const expand = ([] as unknown[]).concat(params.expand ?? []);
      const pm = fake.paymentMethods.get(String(intent.payment_method));
      return send(res, 200, expand.includes("payment_method") && pm ? { ...intent, payment_method: visible(pm) } : intent);
    }
    if (method === "POST" && (m = /^\/v1\/payment_methods\/([\w]+)\/detach$/.exec(path))) {
      const pm = fake.paymentMethods.get(m[1]);
      if (!pm) return invalid(res, `No such PaymentMethod: '${m[1]}'`, 404);
      pm.customer = null;
      return send(res, 200, visible(pm));
    }
    if (method === "POST" && path === "/v1/payment_intents") {
      if (params.confirm !== "true" || params.off_session !== "true") return invalid(res, "only confirmed off-session payment intents are played here");
      const charged = chargeSavedCard(params);
      send(res, charged.status, charged.body);
      const event = charged.event;
      if (fake.webhook && event.id) setTimeout(() => void deliverStripeEvent(fake.webhook!.url, event, { secret: fake.webhook!.secret }).catch(() => undefined), 0);
      return;
    }
    if (method === "GET" && (m = /^\/v1\/checkout\/sessions\/([\w]+)$/.exec(path))) {
      const session = fake.sessions.get(m[1]);
      return session ? send(res, 200, visible(session)) : invalid(res, `No such checkout.session: '${m[1]}'`, 404);
    }
    if (method === "GET" && (m = /^\/v1\/payment_intents\/([\w]+)$/.exec(path))) {
      const intent = fake.paymentIntents.get(m[1]);
      if (!intent) return invalid(res, `No such payment_intent: '${m[1]}'`, 404);
      const expand = ([] as unknown[]).concat(params.expand ?? []);
      return send(res, 200, expand.includes("latest_charge") ? { ...intent, latest_charge: fake.charges.get(String(intent.latest_charge)) ?? null } : intent);
    }
    if (method === "GET" && (m = /^\/v1\/disputes\/([\w]+)$/.exec(path))) {
      const dispute = disputes.get(m[1]);
      if (!dispute) return invalid(res, `No such dispute: '${m[1]}'`, 404);
      return send(res, 200, { ...dispute, balance_transactions: (dispute.balance_transactions as string[]).map((t) => fake.balanceTransactions.get(t)).filter(Boolean) });
    }
    if (method === "GET" && (m = /^\/v1\/charges\/([\w]+)$/.exec(path))) {
      const charge = fake.charges.get(m[1]);
      return charge ? send(res, 200, charge) : invalid(res, `No such charge: '${m[1]}'`, 404);
    }
    if (method === "GET" && path === "/v1/balance_transactions") {
      const created = (params.created as Json | undefined) ?? {};
      const bound = (k: string) => (created[k] === undefined ? undefined : Number(created[k]));
      const [gte, gt, lte, lt] = [bound("gte"), bound("gt"), bound("lte"), bound("lt")];
      const expand = ([] as unknown[]).concat(params.expand ?? []).includes("data.source");
      // Newest first, as Stripe lists; ties by id so pages are stable.
      const all = [...fake.balanceTransactions.values()]
        .filter((t) => {
          const c = Number(t.created);
          return (gte === undefined || c >= gte) && (gt === undefined || c > gt) && (lte === undefined || c <= lte) && (lt === undefined || c < lt);
        })
        .filter((t) => (params.type ? t.type === params.type : true))
        .sort((a, b) => Number(b.created) - Number(a.created) || String(b.id).localeCompare(String(a.id)));
      const after = params.starting_after ? all.findIndex((t) => t.id === params.starting_after) + 1 : 0;
      const limit = Math.min(Number(params.limit ?? 10), 100);
      const page = all.slice(after, after + limit);
      const data = page.map((t) => (expand ? { ...t, source: sourceOf(t) } : t));
      return send(res, 200, { object: "list", data, has_more: after + limit < all.length, url: "/v1/balance_transactions" });
    }
    if (method === "GET" && (m = /^\/v1\/balance_transactions\/([\w]+)$/.exec(path))) {
      const txn = fake.balanceTransactions.get(m[1]);
      if (!txn) return invalid(res, `No such balance_transaction: '${m[1]}'`, 404);
      const expand = ([] as unknown[]).concat(params.expand ?? []).includes("source");
      return send(res, 200, expand ? { ...txn, source: sourceOf(txn) } : txn);
    }
    if (method === "GET" && path === "/v1/refunds") {
      const data = [...fake.refunds.values()].filter((r) => (params.charge ? r.charge === params.charge : true) && (params.payment_intent ? r.payment_intent === params.payment_intent : true));
      return send(res, 200, { object: "list", data, has_more: false, url: "/v1/refunds" });
    }
    if (method === "POST" && path === "/v1/refunds") {
      try {
        return send(res, 200, fake.refund(String(params.payment_intent), params.amount === undefined ? undefined : Number(params.amount)));
      } catch (err) {
        return invalid(res, (err as Error).message);
      }
    }
    return invalid(res, `Unrecognized request URL (${method}: ${path}) in the fake`, 404);
  }

  async function hosted(method: string, path: string, form: string, res: http.ServerResponse) {
    const m = /^\/checkout\/(cs_test_\w+)(\/pay|\/cancel)?$/.exec(path);
    const session = m ? fake.sessions.get(m[1]) : undefined;
    if (!m || !session) {
      res.writeHead(404, { "content-type": "text/plain" });
      return res.end("no such checkout session");
    }
    if (method === "GET" && !m[2] && session.mode === "setup") {
      const choices = (Object.keys(TEST_CARDS) as CardBehaviour[])
        .map((b, i) => `<p><label><input type="radio" name="card" value="${b}"${i === 0 ? " checked" : ""}> ${TEST_CARDS[b].label}</label></p>`)
        .join("");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(
        `<!doctype html><html lang="en"><head><title>Test checkout: save a card</title></head><body><main><h1>Save a card</h1>` +
          `<form method="post" action="/checkout/${session.id}/pay"><fieldset><legend>Test card</legend>${choices}</fieldset><button type="submit">Save card</button></form>` +
          `<p><a href="/checkout/${session.id}/cancel">Cancel</a></p></main></body></html>`,
      );
    }
    if (method === "GET" && !m[2]) {
      const amount = `${(Number(session.amount_total) / 100).toFixed(2)} ${String(session.currency).toUpperCase()}`;
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(
        `<!doctype html><html lang="en"><head><title>Test checkout</title></head><body><main><h1>Test checkout</h1>` +
          `<p>Pay <strong>${amount}</strong> (${session.status})</p>` +
          `<form method="post" action="/checkout/${session.id}/pay"><button type="submit">Pay</button></form>` +
          `<p><a href="/checkout/${session.id}/cancel">Cancel</a></p></main></body></html>`,
      );
    }
    if (m[2] === "/cancel") {
      res.writeHead(303, { location: String(session.cancel_url) });
      return res.end();
    }
    if (method === "POST" && m[2] === "/pay" && session.mode === "setup") {
      const picked = new URLSearchParams(form).get("card") as CardBehaviour | null;
      const saved = session.status === "open" ? fake.saveCard(String(session.id), picked && picked in TEST_CARDS ? picked : "succeeds") : undefined;
      if (saved && fake.webhook) await deliverStripeEvent(fake.webhook.url, fake.event("checkout.session.completed", saved.session), { secret: fake.webhook.secret }).catch(() => undefined);
      res.writeHead(303, { location: String(session.success_url) });
      return res.end();
    }
    if (method === "POST" && m[2] === "/pay") {
      const paid = session.status === "open" ? fake.pay(String(session.id)) : undefined;
      if (paid && fake.webhook) {
        for (const event of [fake.event("checkout.session.completed", paid.session), fake.event("payment_intent.succeeded", paid.paymentIntent)]) {
          await deliverStripeEvent(fake.webhook.url, event, { secret: fake.webhook.secret }).catch(() => undefined);
        }
      }
      res.writeHead(303, { location: String(session.success_url) });
      return res.end();
    }
    res.writeHead(405, { "content-type": "text/plain" });
    res.end("method not allowed");
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        if (url.pathname.startsWith("/checkout/")) return hosted(req.method ?? "GET", url.pathname, Buffer.concat(chunks).toString("utf8"), res);
        if (fake.mode === "down") return req.socket.destroy();
        if (fake.mode === "slow") await new Promise((r) => setTimeout(r, fake.delayMs));
        // A client that gave up does not stop Stripe: the request is still carried out, its answer lost.
        const body = Buffer.concat(chunks).toString("utf8");
        const params = parseStripeForm(req.method === "GET" ? url.search.slice(1) : body);
        const key = typeof req.headers["idempotency-key"] === "string" ? req.headers["idempotency-key"] : null;
        fake.requests.push({ method: req.method ?? "GET", path: url.pathname, params, idempotencyKey: key, authorization: req.headers.authorization ?? null });
        if (!/^Bearer sk_/.test(req.headers.authorization ?? "")) return invalid(res, "Invalid API Key provided", 401, "invalid_request_error");
        if (key && req.method === "POST") {
          const seen = idempotent.get(key);
          if (seen && seen.body !== body) return invalid(res, "Keys for idempotent requests can only be used with the same parameters they were first used with.", 400, "idempotency_error");
          if (seen) return send(res, seen.status, seen.response);
          const capture = { status: 200, response: undefined as unknown };
          const real = res.end.bind(res);
          const writeHead = res.writeHead.bind(res);
          res.writeHead = ((status: number, ...rest: never[]) => {
            capture.status = status;
            return writeHead(status, ...rest);
          }) as typeof res.writeHead;
          res.end = ((text: string) => {
            capture.response = JSON.parse(text);
            idempotent.set(key, { body, status: capture.status, response: capture.response });
            return real(text);
          }) as typeof res.end;
        }
        api(req.method ?? "GET", url.pathname, params, res);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.apiUrl = fake.url;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

const signer = new Stripe("sk_test_signer");

/** The `Stripe-Signature` header of `payload`, made by the SDK's own test helper (`timestamp` in seconds; default now). */
export function stripeSignature(payload: string, secret: string, timestamp?: number): string {
  return signer.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

/**
 * POSTs an event to a webhook endpoint as Stripe does: the JSON body and its signature (`signature:
 * null` sends none; a string sends that header as it is).
 */
export async function deliverStripeEvent(
  url: string,
  event: Json,
  options: { secret: string; timestamp?: number; signature?: string | null },
): Promise<{ status: number; body: ReturnType<typeof JSON.parse> }> {
  const payload = JSON.stringify(event, null, 2);
  const signature = options.signature === undefined ? stripeSignature(payload, options.secret, options.timestamp) : options.signature;
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(signature === null ? {} : { "stripe-signature": signature }) },
    body: payload,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Left as text.
  }
  return { status: res.status, body };
}

export const TEST_STRIPE_KEY = "sk_test_tollgate";
export const TEST_WEBHOOK_SECRET = "whsec_test_tollgate_0123456789";

/**
 * Turns payments on for this test process, against `fake` (the variables are read at each use),
 * with a price of 1 minor unit per credit, purchases of 50 to 100,000 credits, packs of 100, 500
 * and 2,000, and a 1.5 s timeout; `overrides` change any of them. Returns the undo.
 */
export function configurePayments(fake: FakeStripe, overrides: Record<string, string | undefined> = {}): () => void {
  const values: Record<string, string | undefined> = {
    STRIPE_SECRET_KEY: TEST_STRIPE_KEY,
    STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    STRIPE_API_URL: fake.apiUrl,
    STRIPE_TIMEOUT_MS: "1500",
    CREDIT_PRICE_MINOR: "1",
    BILLING_CURRENCY: "usd",
    CREDIT_PURCHASE_MIN: "50",
    CREDIT_PURCHASE_MAX: "100000",
    CREDIT_PACKS: "100,500,2000",
    ...overrides,
  };
  const before = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  const set = (entries: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(entries)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  set(values);
  return () => set(before);
}
