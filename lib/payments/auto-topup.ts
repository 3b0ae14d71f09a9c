import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { DomainError, invalidInput } from "../errors";
import { newId } from "../ids";
import { logger } from "../log";
import { publicUrl } from "../env";
import { credits as toDecimal, creditsToNumber, creditsToSql, isCreditString, type CreditAmount } from "../money";
import { type Actor, recordActivity } from "../accounts/activity";
import { notify } from "../alerts/notify-sql";
import { startTicker } from "../ticker";
import { AUTO_TOPUP_MAX_FAILURES, type AutoTopupState } from "../vocab/payments";
import { paymentConfig, paymentConfigOrThrow, pricePurchase, type PaymentConfig } from "./payment-config";
import { METADATA } from "./payments";
import { isStripeError, stripeClient, stripeFailure, type Stripe } from "./stripe-client";

/**
 * Auto top-up (docs/billing.md, Auto top-up): when an account's available balance falls below its
 * threshold, buy the set amount with the card its owner saved through Checkout in setup mode.
 *
 * - One top-up in flight per account: the trigger locks the settings row, and a partial unique index
 *   admits one `pending` auto top-up payment per account, whatever the number of Calls, instances
 *   or sweeps that cross the threshold at once.
 * - The payment row is written before Stripe is asked, and its id is the idempotency key of the
 *   PaymentIntent: a retry after a timeout (the sweeper's) is the same charge, never a second one.
 * - The grant is written by Stripe's signed webhook (`payment_intent.succeeded`), as for Checkout.
 * - A declined or authentication-required charge fails the payment, notifies the owner
 *   (`auto_topup_failed`: notification, webhook event) and writes an activity entry; three failures
 *   in a row pause auto top-up until the owner saves a card or enables it again.
 * - At most `daily_limit_credits` are bought in any 24 hours; reaching it notifies once a day.
 */

/** Who auto top-up's activity entries name. */
export const AUTO_TOPUP_ACTOR: Actor = { type: "system", label: "Auto top-up" };

/** Metadata of the setup session and intent that save a card: the account, and what the card is for. */
const SETUP_PURPOSE = "auto_topup_card";
export const SETUP_METADATA = { accountId: METADATA.accountId, purpose: "tollgate_purpose" } as const;
/** The payment intent's metadata key saying a payment is an auto top-up. */
export const KIND_METADATA = "tollgate_kind";

/** A pending top-up older than this is retried (same idempotency key) or, once Stripe has its intent, read back. */
const RETRY_AFTER_SECONDS = 60;
const SWEEP_EVERY_MS = 60_000;
const DAY_WINDOW = "24 hours";

export interface AutoTopupCard {
  brand: string | null;
  last4: string | null;
  exp_month: number | null;
  exp_year: number | null;
}

export interface AutoTopupView {
  account_id: string;
  state: AutoTopupState;
  enabled: boolean;
  threshold_credits: number | null;
  amount_credits: number | null;
  daily_limit_credits: number | null;
  /** The price of one top-up, in the currency's minor unit (null until an amount is set). */
  amount_minor: number | null;
  currency: string;
  card: AutoTopupCard | null;
  consecutive_failures: number;
  paused_at: string | null;
  last_failure: { code: string | null; message: string | null; at: string } | null;
  /** Credits auto top-up bought (or is buying) in the last 24 hours, against the daily limit. */
  bought_last_24h_credits: number;
  /** The top-up waiting for Stripe, if any. */
  in_flight_payment_id: string | null;
  updated_at: string | null;
}

interface SettingsRow {
  account_id: string;
  enabled: boolean;
  threshold_credits: string | null;
  amount_credits: string | null;
  daily_limit_credits: string | null;
  stripe_customer_id: string | null;
  payment_method_id: string | null;
  card_brand: string | null;
  card_last4: string | null;
  card_exp_month: number | null;
  card_exp_year: number | null;
  consecutive_failures: number;
  paused_at: Date | string | null;
  last_failure_code: string | null;
  last_failure_message: string | null;
  last_failure_at: Date | string | null;
  updated_at: Date | string;
}

const SETTINGS_COLUMNS = sql`account_id, enabled, threshold_credits::text AS threshold_credits, amount_credits::text AS amount_credits,
  daily_limit_credits::text AS daily_limit_credits, stripe_customer_id, payment_method_id, card_brand, card_last4, card_exp_month, card_exp_year,
  consecutive_failures, paused_at, last_failure_code, last_failure_message, last_failure_at, updated_at`;

const iso = (v: Date | string) => new Date(v).toISOString();
const num = (v: string | null) => (v === null ? null : creditsToNumber(v));

function stateOf(r: SettingsRow | undefined): AutoTopupState {
  if (!r?.enabled) return "off";
  if (r.paused_at) return "paused";
  return r.payment_method_id ? "active" : "needs_card";
}

async function readSettings(db: Db, accountId: string): Promise<SettingsRow | undefined> {
  return rows<SettingsRow>(await db.execute(sql`SELECT ${SETTINGS_COLUMNS} FROM auto_topups WHERE account_id = ${accountId}`))[0];
}

/** The account's auto top-up: its settings, card, state, failures and the last 24 hours' purchases. */
export async function getAutoTopup(db: Db, accountId: string): Promise<AutoTopupView> {
  const config = paymentConfigOrThrow();
  const [r, window] = await Promise.all([readSettings(db, accountId), boughtLately(db, accountId)]);
  let amountMinor: number | null = null;
  if (r?.amount_credits) {
    try {
      amountMinor = pricePurchase(config, { credits: r.amount_credits }).amountMinor;
    } catch {
      // The operator's price or bounds changed since: the amount is shown, its price is not.
    }
  }
  return {
    account_id: accountId,
    state: stateOf(r),
    enabled: r?.enabled ?? false,
    threshold_credits: num(r?.threshold_credits ?? null),
    amount_credits: num(r?.amount_credits ?? null),
    daily_limit_credits: num(r?.daily_limit_credits ?? null),
    amount_minor: amountMinor,
    currency: config.currency,
    card: r?.payment_method_id ? { brand: r.card_brand, last4: r.card_last4, exp_month: r.card_exp_month, exp_year: r.card_exp_year } : null,
    consecutive_failures: r?.consecutive_failures ?? 0,
    paused_at: r?.paused_at ? iso(r.paused_at) : null,
    last_failure: r?.last_failure_at ? { code: r.last_failure_code, message: r.last_failure_message, at: iso(r.last_failure_at) } : null,
    bought_last_24h_credits: creditsToNumber(window.bought),
    in_flight_payment_id: window.inFlight,
    updated_at: r ? iso(r.updated_at) : null,
  };
}

async function boughtLately(db: Db, accountId: string): Promise<{ bought: string; inFlight: string | null }> {
  const r = rows<{ bought: string; in_flight: string | null }>(
    await db.execute(sql`
      SELECT coalesce(sum(credits) FILTER (WHERE status IN ('pending', 'succeeded') AND created_at > now() - interval '${sql.raw(DAY_WINDOW)}'), 0)::text AS bought,
             max(id) FILTER (WHERE status = 'pending') AS in_flight
        FROM payments WHERE account_id = ${accountId} AND kind = 'auto_topup' AND (status = 'pending' OR created_at > now() - interval '${sql.raw(DAY_WINDOW)}')`),
  )[0];
  return { bought: r?.bought ?? "0", inFlight: r?.in_flight ?? null };
}

function creditInput(name: string, value: string | number, opts: { positive: boolean }): CreditAmount {
  const text = typeof value === "number" ? String(value) : value;
  if (!isCreditString(text) || (opts.positive ? toDecimal(text).lte(0) : toDecimal(text).lt(0))) {
    throw invalidInput(`${name} must be a ${opts.positive ? "positive" : "non-negative"} number of credits with at most 6 decimals, got "${text}"`);
  }
  return toDecimal(text);
}

export interface AutoTopupChange {
  enabled?: boolean;
  threshold_credits?: string | number;
  amount_credits?: string | number;
  daily_limit_credits?: string | number;
}

/**
 * Changes the settings (absent fields are kept). The amount must be a purchase the operator sells
 * (bounds, whole minor units); the daily limit at least one top-up. Enabling it again resumes a
 * paused auto top-up (its failures are forgotten). When it is on and the balance is already below
 * the threshold, a top-up starts now, and the answer waits for Stripe's reply to its charge (at most
 * STRIPE_TIMEOUT_MS), so that a declined card shows at once.
 */
export async function setAutoTopup(db: Db, input: { accountId: string; userId: string; actor: Actor; change: AutoTopupChange }): Promise<AutoTopupView> {
  const config = paymentConfigOrThrow();
  const c = input.change;
  const before = await readSettings(db, input.accountId);
  const threshold = c.threshold_credits !== undefined ? creditInput("threshold_credits", c.threshold_credits, { positive: false }) : before?.threshold_credits ? toDecimal(before.threshold_credits) : null;
  const amount = c.amount_credits !== undefined ? creditInput("amount_credits", c.amount_credits, { positive: true }) : before?.amount_credits ? toDecimal(before.amount_credits) : null;
  const daily =
    c.daily_limit_credits !== undefined ? creditInput("daily_limit_credits", c.daily_limit_credits, { positive: true }) : before?.daily_limit_credits ? toDecimal(before.daily_limit_credits) : null;
  const enabled = c.enabled ?? before?.enabled ?? false;
  if (amount) pricePurchase(config, { credits: creditsToSql(amount) });
  if (amount && daily && daily.lt(amount)) throw invalidInput(`daily_limit_credits (${daily.toFixed()}) must be at least amount_credits (${amount.toFixed()}): one top-up`);
  if (enabled && (!threshold || !amount || !daily)) throw invalidInput("Give threshold_credits, amount_credits and daily_limit_credits to turn auto top-up on");
  const resume = c.enabled === true;
  await db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const sqlOf = (v: CreditAmount | null) => (v === null ? null : creditsToSql(v));
    await tx.execute(sql`
      INSERT INTO auto_topups (account_id, enabled, threshold_credits, amount_credits, daily_limit_credits, updated_by)
      VALUES (${input.accountId}, ${enabled}, ${sqlOf(threshold)}::numeric, ${sqlOf(amount)}::numeric, ${sqlOf(daily)}::numeric, ${input.userId})
      ON CONFLICT (account_id) DO UPDATE SET enabled = EXCLUDED.enabled, threshold_credits = EXCLUDED.threshold_credits, amount_credits = EXCLUDED.amount_credits,
             daily_limit_credits = EXCLUDED.daily_limit_credits, updated_by = EXCLUDED.updated_by, updated_at = now(),
             paused_at = CASE WHEN ${resume} THEN NULL ELSE auto_topups.paused_at END,
             consecutive_failures = CASE WHEN ${resume} THEN 0 ELSE auto_topups.consecutive_failures END`);
    await recordActivity(tx, input.accountId, input.actor, {
      action: "auto_topup.updated",
      objectType: "auto_topup",
      objectId: input.accountId,
      before: before ? { enabled: before.enabled, threshold_credits: before.threshold_credits, amount_credits: before.amount_credits, daily_limit_credits: before.daily_limit_credits, paused: before.paused_at !== null } : null,
      after: { enabled, threshold_credits: sqlOf(threshold), amount_credits: sqlOf(amount), daily_limit_credits: sqlOf(daily) },
    });
  });
  forgetThreshold(input.accountId);
  if (enabled) await triggerQuietly(db, input.accountId);
  return getAutoTopup(db, input.accountId);
}

/**
 * Starts saving a card: the account's Stripe customer (made once), then a Checkout session in setup
 * mode whose completion (the webhook) stores the card. Stripe down or slow: 502/504, nothing saved.
 */
export async function startCardSetup(db: Db, input: { accountId: string; userId: string; actor: Actor; email?: string | null }): Promise<{ checkout_url: string; setup_session_id: string }> {
  const config = paymentConfigOrThrow();
  const stripe = await stripeClient(config);
  const setupId = newId("set");
  let customerId = (await readSettings(db, input.accountId))?.stripe_customer_id ?? null;
  if (!customerId) {
    try {
      const customer = await stripe.customers.create(
        { metadata: { [METADATA.accountId]: input.accountId }, ...(input.email ? { email: input.email } : {}), description: `Tollgate account ${input.accountId}` },
        { idempotencyKey: `tollgate-customer-${setupId}`, maxNetworkRetries: 0 },
      );
      customerId = customer.id;
    } catch (err) {
      throw stripeFailure(err, "creating the customer the card is saved to", config, "no card was saved; try again shortly");
    }
    // A concurrent setup may have stored its customer first: that one is kept.
    const stored = rows<{ stripe_customer_id: string }>(
      await db.execute(sql`
        INSERT INTO auto_topups (account_id, stripe_customer_id, updated_by) VALUES (${input.accountId}, ${customerId}, ${input.userId})
        ON CONFLICT (account_id) DO UPDATE SET stripe_customer_id = coalesce(auto_topups.stripe_customer_id, EXCLUDED.stripe_customer_id), updated_at = now()
        RETURNING stripe_customer_id`),
    )[0];
    customerId = stored.stripe_customer_id;
  }
  const metadata = { [SETUP_METADATA.accountId]: input.accountId, [SETUP_METADATA.purpose]: SETUP_PURPOSE };
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.create(
      {
        mode: "setup",
        customer: customerId,
        currency: config.currency,
        metadata,
        setup_intent_data: { metadata, description: "Tollgate auto top-up" },
        success_url: `${publicUrl()}/billing?card=saved`,
        cancel_url: `${publicUrl()}/billing?card=canceled`,
      },
      { idempotencyKey: `tollgate-setup-${setupId}`, maxNetworkRetries: 0 },
    );
  } catch (err) {
    throw stripeFailure(err, "creating the Checkout session that saves a card", config, "no card was saved; try again shortly");
  }
  if (!session.url) throw new DomainError("upstream_unavailable", "Stripe's setup session has no URL");
  await db.execute(sql`UPDATE auto_topups SET setup_session_id = ${session.id}, updated_at = now() WHERE account_id = ${input.accountId}`);
  return { checkout_url: session.url, setup_session_id: session.id };
}

export interface SavedCard {
  accountId: string;
  customerId: string | null;
  sessionId: string;
  paymentMethod: { id: string; brand: string | null; last4: string | null; exp_month: number | null; exp_year: number | null };
}

/**
 * Stores the card a completed setup session saved (in the webhook's transaction): it replaces the
 * previous one, and a paused auto top-up resumes with it. Returns the card it replaced, or a refusal
 * when the session's customer is not the account's.
 */
export async function saveCard(tx: Db, card: SavedCard): Promise<{ saved: true; replaced: string | null } | { saved: false; reason: string }> {
  const row = rows<{ stripe_customer_id: string | null; payment_method_id: string | null; paused_at: Date | string | null }>(
    await tx.execute(sql`SELECT stripe_customer_id, payment_method_id, paused_at FROM auto_topups WHERE account_id = ${card.accountId} FOR UPDATE`),
  )[0];
  if (!row) return { saved: false, reason: `account ${card.accountId} never started saving a card here` };
  if (card.customerId && row.stripe_customer_id && card.customerId !== row.stripe_customer_id) {
    return { saved: false, reason: `the session's customer ${card.customerId} is not the account's (${row.stripe_customer_id})` };
  }
  if (row.payment_method_id === card.paymentMethod.id) return { saved: true, replaced: null };
  const pm = card.paymentMethod;
  await tx.execute(sql`
    UPDATE auto_topups SET payment_method_id = ${pm.id}, card_brand = ${pm.brand}, card_last4 = ${pm.last4}, card_exp_month = ${pm.exp_month}, card_exp_year = ${pm.exp_year},
           stripe_customer_id = coalesce(stripe_customer_id, ${card.customerId}), setup_session_id = NULL, consecutive_failures = 0, paused_at = NULL, updated_at = now()
     WHERE account_id = ${card.accountId}`);
  await recordActivity(tx, card.accountId, { type: "system", label: "Stripe" }, {
    action: "auto_topup.card_saved",
    objectType: "auto_topup",
    objectId: card.accountId,
    before: row.payment_method_id ? { payment_method: row.payment_method_id, paused: row.paused_at !== null } : null,
    after: { payment_method: pm.id, brand: pm.brand, last4: pm.last4, checkout_session: card.sessionId },
  });
  forgetThreshold(card.accountId);
  return { saved: true, replaced: row.payment_method_id };
}

/** Forgets the saved card (detached in Stripe) and turns auto top-up off. */
export async function removeCard(db: Db, input: { accountId: string; actor: Actor }): Promise<AutoTopupView> {
  const config = paymentConfigOrThrow();
  const row = await readSettings(db, input.accountId);
  await db.transaction(async (t) => {
    const tx = t as unknown as Db;
    await tx.execute(sql`
      UPDATE auto_topups SET payment_method_id = NULL, card_brand = NULL, card_last4 = NULL, card_exp_month = NULL, card_exp_year = NULL,
             enabled = false, updated_at = now()
       WHERE account_id = ${input.accountId}`);
    if (row?.payment_method_id) {
      await recordActivity(tx, input.accountId, input.actor, { action: "auto_topup.card_removed", objectType: "auto_topup", objectId: input.accountId, before: { payment_method: row.payment_method_id } });
    }
  });
  forgetThreshold(input.accountId);
  if (row?.payment_method_id) await detachQuietly(config, row.payment_method_id);
  return getAutoTopup(db, input.accountId);
}

/** Detaches a card Tollgate no longer uses; a failure is only logged (the card stays on the customer in Stripe). */
export async function detachQuietly(config: PaymentConfig, paymentMethodId: string): Promise<void> {
  try {
    const stripe = await stripeClient(config);
    await stripe.paymentMethods.detach(paymentMethodId, {}, { idempotencyKey: `tollgate-detach-${paymentMethodId}` });
  } catch (err) {
    logger.warn({ payment_method: paymentMethodId, err: stripeFailure(err, `detaching ${paymentMethodId}`, config).message }, "stripe card not detached");
  }
}

export type TopupOutcome =
  | { status: "off" | "above_threshold" | "in_flight" | "not_purchasable"; payment_id?: string }
  | { status: "daily_limit"; bought_credits: string; limit_credits: string }
  | { status: "started"; payment_id: string; charge: ChargeResult };

/** What Stripe said of the charge: granted later by the webhook (succeeded, processing), failed, or unknown (retried). */
export type ChargeResult = "succeeded" | "processing" | "failed" | "unknown";

interface Claimed {
  paymentId: string;
  accountId: string;
  credits: string;
  amountMinor: number;
  currency: string;
  customerId: string;
  paymentMethodId: string;
}

/**
 * Starts a top-up when the account's auto top-up is on, its available balance is below the
 * threshold, none is in flight and the daily limit allows one; then charges the saved card. A
 * disabled account's card is never charged.
 */
export async function triggerAutoTopup(db: Db, accountId: string): Promise<TopupOutcome> {
  const config = paymentConfig();
  if (!config) return { status: "off" };
  const claimed = await db.transaction(async (t): Promise<Claimed | Exclude<TopupOutcome, { status: "started" }>> => {
    const tx = t as unknown as Db;
    const s = rows<{ threshold: string; amount: string; daily: string; customer: string | null; pm: string; available: string }>(
      await tx.execute(sql`
        SELECT a.threshold_credits::text AS threshold, a.amount_credits::text AS amount, a.daily_limit_credits::text AS daily,
               a.stripe_customer_id AS customer, a.payment_method_id AS pm,
               (cb.paid_credits + cb.bonus_credits + cb.reward_credits - cb.reserved_credits)::text AS available
          FROM auto_topups a JOIN credit_balances cb ON cb.account_id = a.account_id
               JOIN accounts ac ON ac.id = a.account_id AND ac.disabled_at IS NULL
         WHERE a.account_id = ${accountId} AND a.enabled AND a.paused_at IS NULL AND a.payment_method_id IS NOT NULL
           FOR UPDATE OF a`),
    )[0];
    if (!s || !s.customer) return { status: "off" };
    if (toDecimal(s.available).gte(s.threshold)) return { status: "above_threshold" };
    const window = await boughtLately(tx, accountId);
    if (window.inFlight) return { status: "in_flight", payment_id: window.inFlight };
    if (toDecimal(window.bought).plus(s.amount).gt(s.daily)) {
      const day = new Date().toISOString().slice(0, 10);
      const payload = { limit_credits: creditsToNumber(s.daily), bought_credits: creditsToNumber(window.bought), amount_credits: creditsToNumber(s.amount), balance_credits: creditsToNumber(s.available) };
      await notify(tx, { accountId, kind: "auto_topup_limited", claimKey: `auto_topup_limited:${accountId}:${day}`, payload });
      return { status: "daily_limit", bought_credits: window.bought, limit_credits: s.daily };
    }
    let priced;
    try {
      priced = pricePurchase(config, { credits: s.amount });
    } catch (err) {
      logger.warn({ account_id: accountId, err: (err as Error).message }, "auto top-up: the amount is no longer a purchase this server sells");
      return { status: "not_purchasable" };
    }
    const paymentId = newId("pay");
    const inserted = rows(
      await tx.execute(sql`
        INSERT INTO payments (id, account_id, kind, status, credits, amount_minor, currency, stripe_payment_method_id)
        VALUES (${paymentId}, ${accountId}, 'auto_topup', 'pending', ${priced.credits}::numeric, ${priced.amountMinor}, ${priced.currency}, ${s.pm})
        ON CONFLICT DO NOTHING RETURNING id`),
    );
    if (inserted.length === 0) return { status: "in_flight" };
    await recordActivity(tx, accountId, AUTO_TOPUP_ACTOR, {
      action: "auto_topup.started",
      objectType: "payment",
      objectId: paymentId,
      after: { credits: priced.credits, amount_minor: priced.amountMinor, currency: priced.currency, balance_credits: s.available, threshold_credits: s.threshold },
    });
    return { paymentId, accountId, credits: priced.credits, amountMinor: priced.amountMinor, currency: priced.currency, customerId: s.customer, paymentMethodId: s.pm };
  });
  if ("status" in claimed) return claimed;
  return { status: "started", payment_id: claimed.paymentId, charge: await chargeTopup(db, config, claimed) };
}

/**
 * Charges the saved card off-session for a pending top-up. The payment's id is the idempotency key,
 * so asking again (after a timeout) is the same charge. A decline or a card that needs its holder
 * (authentication) fails the payment; Stripe unreachable or failing leaves it pending for the sweeper.
 */
async function chargeTopup(db: Db, config: PaymentConfig, p: Claimed): Promise<ChargeResult> {
  const metadata = { [METADATA.paymentId]: p.paymentId, [METADATA.accountId]: p.accountId, [METADATA.credits]: p.credits, [KIND_METADATA]: "auto_topup" };
  let intent: Stripe.PaymentIntent;
  try {
    const stripe = await stripeClient(config);
    intent = await stripe.paymentIntents.create(
      {
        amount: p.amountMinor,
        currency: p.currency,
        customer: p.customerId,
        payment_method: p.paymentMethodId,
        off_session: true,
        confirm: true,
        description: `${p.credits} Tollgate credits (auto top-up)`,
        metadata,
      },
      { idempotencyKey: `tollgate-topup-${p.paymentId}` },
    );
  } catch (err) {
    if (isStripeError(err, "StripeCardError")) {
      const intentId = (err.payment_intent as { id?: string } | undefined)?.id ?? null;
      await recordTopupFailure(db, { paymentId: p.paymentId, code: err.code ?? "card_declined", message: err.message, paymentIntentId: intentId });
      return "failed";
    }
    if (isStripeError(err, "StripeInvalidRequestError") && err.code !== "idempotency_key_in_use") {
      await recordTopupFailure(db, { paymentId: p.paymentId, code: err.code ?? "invalid_request", message: err.message, paymentIntentId: null });
      return "failed";
    }
    logger.warn({ payment_id: p.paymentId, err: stripeFailure(err, "charging the saved card", config).message }, "auto top-up: Stripe's answer is unknown; retried with the same idempotency key");
    return "unknown";
  }
  await db.execute(sql`UPDATE payments SET stripe_payment_intent_id = coalesce(stripe_payment_intent_id, ${intent.id}), updated_at = now() WHERE id = ${p.paymentId}`);
  return intentResult(db, p.paymentId, intent);
}

/** A payment intent's status, as auto top-up acts on it: a failure is recorded. */
async function intentResult(db: Db, paymentId: string, intent: Stripe.PaymentIntent): Promise<ChargeResult> {
  if (intent.status === "succeeded") return "succeeded";
  if (intent.status === "processing") return "processing";
  if (intent.status === "requires_action" || intent.status === "requires_payment_method" || intent.status === "canceled") {
    const code = intent.status === "requires_action" ? "authentication_required" : (intent.last_payment_error?.code ?? intent.status);
    const message = intent.last_payment_error?.message ?? (intent.status === "requires_action" ? "The card's bank asks its holder to authenticate the payment" : `The payment ended ${intent.status}`);
    await recordTopupFailure(db, { paymentId, code, message, paymentIntentId: intent.id });
    return "failed";
  }
  return "unknown";
}

export interface TopupFailure {
  paymentId: string;
  code: string;
  message: string;
  paymentIntentId: string | null;
}

/** Records a failed top-up in its own transaction (see `recordTopupFailureIn`). */
export async function recordTopupFailure(db: Db, failure: TopupFailure): Promise<boolean> {
  return db.transaction(async (t) => recordTopupFailureIn(t as unknown as Db, failure));
}

/**
 * A top-up's charge failed: the payment ends `failed` (once: the synchronous answer and the
 * webhook's `payment_intent.payment_failed` may both say it), the failure counts, the owner is told
 * (notification and webhook event `auto_topup.failed`, activity entry), and the third failure in a
 * row pauses auto top-up. Returns false when the payment was no longer pending.
 */
export async function recordTopupFailureIn(tx: Db, f: TopupFailure): Promise<boolean> {
  const failed = rows<{ account_id: string; credits: string; amount_minor: string | number; currency: string }>(
    await tx.execute(sql`
      UPDATE payments SET status = 'failed', failure_code = ${f.code}, failure_message = ${f.message.slice(0, 500)},
             stripe_payment_intent_id = coalesce(stripe_payment_intent_id, ${f.paymentIntentId}), updated_at = now()
       WHERE id = ${f.paymentId} AND kind = 'auto_topup' AND status = 'pending'
      RETURNING account_id, credits::text AS credits, amount_minor, currency`),
  )[0];
  if (!failed) return false;
  const counted = rows<{ consecutive_failures: number; paused: boolean; paused_now: boolean }>(
    await tx.execute(sql`
      UPDATE auto_topups SET consecutive_failures = consecutive_failures + 1, last_failure_code = ${f.code}, last_failure_message = ${f.message.slice(0, 500)},
             last_failure_at = now(), updated_at = now(),
             paused_at = CASE WHEN consecutive_failures + 1 >= ${AUTO_TOPUP_MAX_FAILURES} THEN coalesce(paused_at, now()) ELSE paused_at END
       WHERE account_id = ${failed.account_id}
      RETURNING consecutive_failures, paused_at IS NOT NULL AS paused, consecutive_failures = ${AUTO_TOPUP_MAX_FAILURES} AS paused_now`),
  )[0];
  const failures = counted?.consecutive_failures ?? 1;
  const paused = counted?.paused ?? false;
  const payload = {
    payment_id: f.paymentId,
    code: f.code,
    message: f.message,
    credits: creditsToNumber(failed.credits),
    amount_minor: Number(failed.amount_minor),
    currency: failed.currency,
    consecutive_failures: failures,
    paused,
  };
  await notify(tx, { accountId: failed.account_id, kind: "auto_topup_failed", claimKey: `auto_topup_failed:${f.paymentId}`, payload });
  await recordActivity(tx, failed.account_id, AUTO_TOPUP_ACTOR, { action: "auto_topup.failed", objectType: "payment", objectId: f.paymentId, after: payload });
  if (counted?.paused_now) {
    await recordActivity(tx, failed.account_id, AUTO_TOPUP_ACTOR, {
      action: "auto_topup.paused",
      objectType: "auto_topup",
      objectId: failed.account_id,
      after: { consecutive_failures: failures, last_failure_code: f.code },
    });
  }
  forgetThreshold(failed.account_id);
  logger.warn({ account_id: failed.account_id, payment_id: f.paymentId, code: f.code, consecutive_failures: failures, paused }, "auto top-up failed");
  return true;
}

/** A granted top-up ends the run of failures (in the grant's transaction). */
export async function resetTopupFailures(tx: Db, accountId: string): Promise<void> {
  await tx.execute(sql`UPDATE auto_topups SET consecutive_failures = 0, updated_at = now() WHERE account_id = ${accountId} AND consecutive_failures > 0`);
}

/** Starts a top-up as `triggerAutoTopup` does; a failure to start is logged, not thrown (callers that do not answer for it). */
export async function triggerQuietly(db: Db, accountId: string): Promise<TopupOutcome | undefined> {
  try {
    return await triggerAutoTopup(db, accountId);
  } catch (err) {
    logger.error({ account_id: accountId, err: (err as Error).message }, "auto top-up failed to start");
    return undefined;
  }
}

// The Call path's check: each instance keeps every account's threshold for a short while, so a Call
// of an account without auto top-up costs a map lookup; the sweeper catches what a stale entry misses.
const THRESHOLD_TTL_MS = 30_000;
const thresholds = new Map<string, { threshold: CreditAmount | null; until: number }>();
const starting = new Set<string>();
/** Accounts whose last trigger found a top-up in flight or the daily limit reached: not asked again on every Call for a while. */
const quietUntil = new Map<string, number>();
const QUIET_MS: Partial<Record<TopupOutcome["status"], number>> = { in_flight: 10_000, daily_limit: 5 * 60_000, not_purchasable: 5 * 60_000 };

function forgetThreshold(accountId: string): void {
  thresholds.delete(accountId);
  quietUntil.delete(accountId);
}

const MAX_REMEMBERED = 10_000;

/** Drops the entries whose time has passed once a map holds many accounts: each instance keeps only the accounts it serves lately. */
function pruneExpired<V>(map: Map<string, V>, until: (v: V) => number): void {
  if (map.size < MAX_REMEMBERED) return;
  const now = Date.now();
  for (const [k, v] of map) if (until(v) <= now) map.delete(k);
}

/**
 * After a Call's settlement: when the account's available balance is now below its auto top-up
 * threshold, a top-up starts in the background (the Call's answer does not wait for Stripe).
 */
export function autoTopupAfterCharge(db: Db, accountId: string, availableAfter: string | null): void {
  if (availableAfter === null || !process.env.STRIPE_SECRET_KEY) return;
  const known = thresholds.get(accountId);
  const fresh = known !== undefined && known.until > Date.now();
  if (fresh && (known.threshold === null || toDecimal(availableAfter).gte(known.threshold))) return;
  if (starting.has(accountId) || (quietUntil.get(accountId) ?? 0) > Date.now()) return;
  starting.add(accountId);
  void (async () => {
    try {
      if (!fresh) {
        const r = rows<{ threshold: string | null }>(
          await db.execute(sql`
            SELECT threshold_credits::text AS threshold FROM auto_topups
             WHERE account_id = ${accountId} AND enabled AND paused_at IS NULL AND payment_method_id IS NOT NULL`),
        )[0];
        const threshold = r?.threshold ? toDecimal(r.threshold) : null;
        pruneExpired(thresholds, (v) => v.until);
        thresholds.set(accountId, { threshold, until: Date.now() + THRESHOLD_TTL_MS });
        if (threshold === null || toDecimal(availableAfter).gte(threshold)) return;
      }
      const outcome = await triggerQuietly(db, accountId);
      const quiet = outcome ? QUIET_MS[outcome.status] : undefined;
      if (quiet) {
        pruneExpired(quietUntil, (until) => until);
        quietUntil.set(accountId, Date.now() + quiet);
      }
    } finally {
      starting.delete(accountId);
    }
  })().catch((err: Error) => logger.error({ account_id: accountId, err: err.message }, "auto top-up check failed"));
}

export interface SweepOutcome {
  retried: number;
  started: number;
  failed: number;
}

/**
 * The safety net, on every instance each minute: pending top-ups Stripe has not answered are asked
 * again (same idempotency key) or read back, and every account whose balance is below its
 * threshold with none in flight gets its top-up (a balance that fell by expiry, a refund or a
 * Call on an instance whose threshold entry was stale).
 */
export async function sweepAutoTopups(db: Db): Promise<SweepOutcome> {
  const config = paymentConfig();
  const outcome: SweepOutcome = { retried: 0, started: 0, failed: 0 };
  if (!config) return outcome;
  const stale = rows<{ id: string; account_id: string; credits: string; amount_minor: string | number; currency: string; pm: string | null; intent: string | null; customer: string | null }>(
    await db.execute(sql`
      SELECT p.id, p.account_id, p.credits::text AS credits, p.amount_minor, p.currency, p.stripe_payment_method_id AS pm, p.stripe_payment_intent_id AS intent, a.stripe_customer_id AS customer
        FROM payments p LEFT JOIN auto_topups a ON a.account_id = p.account_id
       WHERE p.kind = 'auto_topup' AND p.status = 'pending' AND p.updated_at < now() - make_interval(secs => ${RETRY_AFTER_SECONDS})
       ORDER BY p.created_at LIMIT 100`),
  );
  for (const p of stale) {
    let result: ChargeResult;
    if (p.intent) {
      try {
        const stripe = await stripeClient(config);
        result = await intentResult(db, p.id, await stripe.paymentIntents.retrieve(p.intent));
      } catch (err) {
        logger.warn({ payment_id: p.id, err: stripeFailure(err, `reading ${p.intent}`, config).message }, "auto top-up: payment intent not read");
        continue;
      }
    } else if (p.pm && p.customer) {
      // The same request as the first, byte for byte (credits written as the trigger wrote them), or Stripe refuses the key.
      result = await chargeTopup(db, config, {
        paymentId: p.id,
        accountId: p.account_id,
        credits: creditsToSql(p.credits),
        amountMinor: Number(p.amount_minor),
        currency: p.currency,
        customerId: p.customer,
        paymentMethodId: p.pm,
      });
    } else {
      await recordTopupFailure(db, { paymentId: p.id, code: "no_card", message: "The saved card was removed before the charge", paymentIntentId: null });
      result = "failed";
    }
    await db.execute(sql`UPDATE payments SET updated_at = now() WHERE id = ${p.id} AND status = 'pending'`);
    outcome.retried += 1;
    if (result === "failed") outcome.failed += 1;
  }
  const below = rows<{ account_id: string }>(
    await db.execute(sql`
      SELECT a.account_id FROM auto_topups a JOIN credit_balances cb ON cb.account_id = a.account_id
             JOIN accounts ac ON ac.id = a.account_id AND ac.disabled_at IS NULL
       WHERE a.enabled AND a.paused_at IS NULL AND a.payment_method_id IS NOT NULL
         AND cb.paid_credits + cb.bonus_credits + cb.reward_credits - cb.reserved_credits < a.threshold_credits
         AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.account_id = a.account_id AND p.kind = 'auto_topup' AND p.status = 'pending')
       LIMIT 100`),
  );
  for (const { account_id } of below) {
    const started = await triggerQuietly(db, account_id);
    if (started?.status === "started") {
      outcome.started += 1;
      if (started.charge === "failed") outcome.failed += 1;
    }
  }
  return outcome;
}

/** Every instance sweeps each minute (at most one sweep at a time per instance). */
export function startAutoTopups(db: Db, on: { error?: (err: Error) => void } = {}): () => void {
  return startTicker(() => sweepAutoTopups(db), { firstMs: 20_000, everyMs: SWEEP_EVERY_MS }, {
    result: (o) => {
      if (o.retried + o.started > 0) logger.info(o, "auto top-ups swept");
    },
    error: on.error,
  });
}
