import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { DomainError, invalidInput } from "../errors";
import { newId } from "../ids";
import { logger } from "../log";
import { systemClock, type Clock } from "../clock";
import { credits as toDecimal, creditsToSql, isCreditString } from "../money";
import type { Actor } from "../accounts/activity";
import { notify } from "../alerts/notify-sql";
import type { ReversalKind } from "../vocab/payments";
import { grantCredits } from "../billing/grant-credits";
import { paymentConfigOrThrow, priceRefusal, type PaymentConfig } from "./payment-config";
import { METADATA } from "./payments";
import { lockBalance, reversePayment, settleDebts, undoRefund } from "./payment-reversals";
import { isStripeError, stripeClient, stripeFailure, type Stripe } from "./stripe-client";
import { ownStripeAccountId } from "./stripe-account";
import { type HandledEvent, type Refund, RefundSchema, type Session, type StripeEventIn, parseStripeEvent } from "./stripe-event-schema";
import { KIND_METADATA, SETUP_METADATA, type SavedCard, detachQuietly, recordTopupFailureIn, resetTopupFailures, saveCard, triggerQuietly } from "./auto-topup";

/**
 * Stripe's webhook (docs/billing.md, Buying credits): the only writer of payment grants and
 * reversals. An event is accepted once its signature checks against STRIPE_WEBHOOK_SECRET (the
 * SDK's `constructEvent`, 300 s tolerance); each event id is recorded in `stripe_events` in the
 * transaction of its effect, so a redelivery does nothing again, and the effect itself is
 * idempotent on the payment (its status moves to `succeeded` once, by a conditional UPDATE, in the
 * transaction that writes the grant) or on the refund's or dispute's id (unique; a failed refund's
 * reversal is undone once, by its `failed_at`).
 *
 * Nothing is granted beyond what was paid: an event must be of the server's own Stripe account and
 * mode, a payment Tollgate recorded must have been paid its own amount in its own currency, and one
 * it never recorded must be priced as this server sells credits (`priceRefusal`); a refund or lost
 * dispute must be in its payment's currency. A refused event is recorded (`refused_…`, with what it
 * said of money), answered 200 so that Stripe stops retrying it, logged, and listed by the
 * reconciliation as `refused_event`.
 */

const STRIPE: Actor = { type: "system", label: "Stripe" };

export interface WebhookResult {
  event_id: string;
  type: string;
  /** What the event did: granted, duplicate_grant, expired, failed, awaiting_payment, reversed, duplicate_reversal, reversal_undone, refund_failure_recorded, duplicate_refund_failure, dispute_opened, refused_…, ignored_…. */
  outcome: string;
  /** The event id was seen before: nothing was done again. */
  duplicate: boolean;
  payment_id: string | null;
  ledger_entry_id: string | null;
}

interface Effect {
  outcome: string;
  accountId?: string | null;
  paymentId?: string | null;
  ledgerEntryId?: string | null;
  detail?: string;
  /** A card saved for auto top-up replaced this one (detached after the commit). */
  replacedCard?: string | null;
}

/** Refusals of an event that does not match what was paid, or whose it is: logged as errors, for the operator. */
const MONEY_REFUSALS: ReadonlySet<string> = new Set(["refused_amount_mismatch", "refused_price_mismatch", "refused_currency_mismatch", "refused_livemode_mismatch", "refused_stripe_account_mismatch"]);

/**
 * Verifies a delivery's signature and applies its event. Refused deliveries (unsigned, badly signed,
 * or signed but not an event Tollgate can use) throw invalid_input (400) and are logged.
 */
export async function receiveStripeWebhook(db: Db, input: { payload: Uint8Array; signature: string | undefined }, clock: Clock = systemClock): Promise<WebhookResult> {
  const config = paymentConfigOrThrow();
  if (!input.signature) return refuse("no Stripe-Signature header");
  const stripe = await stripeClient(config);
  let raw: unknown;
  try {
    raw = stripe.webhooks.constructEvent(Buffer.from(input.payload), input.signature, config.webhookSecret, undefined, undefined, clock.now().getTime());
  } catch (err) {
    return refuse(isStripeError(err, "StripeSignatureVerificationError") ? err.message : `the body is not a Stripe event (${(err as Error).message})`);
  }
  return applyStripeEvent(db, raw, config);
}

function refuse(reason: string): never {
  logger.warn({ reason }, "stripe webhook refused");
  throw invalidInput(`Stripe webhook refused: ${reason}`);
}

/**
 * Applies one verified event (the parsed JSON of a delivery, or the reconciliation's), once by its
 * id. `actor` is who the grant's activity names: Stripe for the webhook, the operator when the
 * reconciliation applies a grant Stripe's events never delivered.
 */
export async function applyStripeEvent(db: Db, raw: unknown, config: PaymentConfig = paymentConfigOrThrow(), actor: Actor = STRIPE): Promise<WebhookResult> {
  const parsed = parseStripeEvent(raw);
  if ("unusable" in parsed) return refuse(parsed.unusable);
  const { event } = parsed;
  if (await seen(db, event.id)) return replayed(db, event);
  const refusal = parsed.handled ? await identityRefusal(parsed.event, config) : undefined;
  const prepared = parsed.handled && !refusal ? await prepare(db, parsed.event, config) : {};
  const figures = figuresOf(parsed);
  const effect = await db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const claimed = rows(await tx.execute(sql`INSERT INTO stripe_events (event_id, type, outcome) VALUES (${event.id}, ${event.type}, 'processing') ON CONFLICT (event_id) DO NOTHING RETURNING event_id`));
    // Another delivery of this event got here first and has committed (this insert waited for it).
    if (claimed.length === 0) return null;
    const done = refusal ?? (parsed.handled ? await apply(tx, parsed.event, prepared, actor, config) : { outcome: "ignored_type" });
    await tx.execute(sql`
      UPDATE stripe_events SET outcome = ${done.outcome}, detail = ${done.detail ?? null}, account_id = ${done.accountId ?? null}, payment_id = ${done.paymentId ?? null},
                               stripe_object_id = ${figures.objectId}, stripe_payment_intent_id = ${figures.paymentIntentId}, amount_minor = ${figures.amountMinor},
                               currency = ${figures.currency}, credits = ${figures.credits}::numeric
       WHERE event_id = ${event.id}`);
    return done;
  });
  if (!effect) return replayed(db, event);
  const log = { event_id: event.id, type: event.type, outcome: effect.outcome, payment_id: effect.paymentId ?? null, account_id: effect.accountId ?? null, detail: effect.detail };
  if (MONEY_REFUSALS.has(effect.outcome)) logger.error(log, "stripe event refused: it does not match what was paid or whose it is; nothing granted or taken (listed by payments reconcile)");
  else if (effect.outcome.startsWith("refused_")) logger.warn(log, "stripe event refused");
  else if (effect.outcome.startsWith("dispute_")) logger.warn(log, "stripe dispute: the account's owner was notified");
  else if (effect.outcome === "reversal_undone" || effect.outcome === "refund_failure_recorded") logger.warn(log, "stripe refund failed: the customer was not paid back");
  else logger.info(log, "stripe event applied");
  if ((effect.outcome === "granted" || effect.outcome === "duplicate_grant") && effect.paymentId) await fetchReceipt(db, config, effect.paymentId);
  if (effect.outcome === "card_saved" && effect.accountId) {
    if (effect.replacedCard) await detachQuietly(config, effect.replacedCard);
    // The balance may already be below the threshold: the new card is used now, without Stripe's delivery waiting on the charge.
    void triggerQuietly(db, effect.accountId);
  }
  return { event_id: event.id, type: event.type, outcome: effect.outcome, duplicate: false, payment_id: effect.paymentId ?? null, ledger_entry_id: effect.ledgerEntryId ?? null };
}

async function seen(db: Db, eventId: string): Promise<boolean> {
  return rows(await db.execute(sql`SELECT 1 FROM stripe_events WHERE event_id = ${eventId}`)).length > 0;
}

/** A redelivery: counted, logged, and answered with what the first delivery did. */
async function replayed(db: Db, event: { id: string; type: string }): Promise<WebhookResult> {
  const row = rows<{ outcome: string; payment_id: string | null; replays: number }>(
    await db.execute(sql`
      UPDATE stripe_events SET replays = replays + 1, last_replayed_at = now() WHERE event_id = ${event.id}
      RETURNING outcome, payment_id, replays`),
  )[0];
  logger.info({ event_id: event.id, type: event.type, outcome: row?.outcome, replays: row?.replays }, "stripe event replayed: nothing done again");
  return { event_id: event.id, type: event.type, outcome: row?.outcome ?? "processing", duplicate: true, payment_id: row?.payment_id ?? null, ledger_entry_id: null };
}

const idOf = (value: string | { id: string } | null | undefined): string | null => (typeof value === "string" ? value : (value?.id ?? null));

/** Our ids in a Checkout session's or payment intent's metadata; none: not a Tollgate payment. */
function ours(metadata: Record<string, string>): { paymentId: string; accountId: string; credits: string; kind: "checkout" | "auto_topup" } | undefined {
  const paymentId = Object.hasOwn(metadata, METADATA.paymentId) ? metadata[METADATA.paymentId] : undefined;
  if (!paymentId) return undefined;
  const own = (key: string) => (Object.hasOwn(metadata, key) ? metadata[key] : "");
  return { paymentId, accountId: own(METADATA.accountId), credits: own(METADATA.credits), kind: own(KIND_METADATA) === "auto_topup" ? "auto_topup" : "checkout" };
}

/** What an event's object says of money, kept with the event (null where it says nothing). */
interface Figures {
  objectId: string | null;
  paymentIntentId: string | null;
  amountMinor: number | null;
  currency: string | null;
  credits: string | null;
}

function figuresOf(parsed: StripeEventIn): Figures {
  const none: Figures = { objectId: null, paymentIntentId: null, amountMinor: null, currency: null, credits: null };
  if (!parsed.handled) return none;
  const event = parsed.event;
  const asked = (metadata: Record<string, string>) => {
    const credits = ours(metadata)?.credits ?? "";
    return isCreditString(credits) ? creditsToSql(credits) : null;
  };
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
    case "checkout.session.expired":
    case "checkout.session.async_payment_failed": {
      const o = event.data.object;
      return { objectId: o.id, paymentIntentId: o.payment_intent, amountMinor: o.amount_total ?? null, currency: o.currency ?? null, credits: asked(o.metadata) };
    }
    case "payment_intent.succeeded":
    case "payment_intent.payment_failed": {
      const o = event.data.object;
      return { objectId: o.id, paymentIntentId: o.id, amountMinor: o.amount_received, currency: o.currency, credits: asked(o.metadata) };
    }
    case "charge.refunded":
      return { ...none, objectId: event.data.object.id, paymentIntentId: event.data.object.payment_intent };
    default: {
      const o = event.data.object;
      return { ...none, objectId: o.id, paymentIntentId: o.payment_intent, amountMinor: o.amount, currency: o.currency };
    }
  }
}

const modeOf = (livemode: boolean) => (livemode ? "live" : "test");

/**
 * An event of another Stripe account or mode than the server's: refused before anything else reads
 * it (nothing about it is asked of the server's Stripe). Stripe names the account only on events of
 * connected accounts; the server's own is read once (`ownStripeAccountId`) when one does.
 */
async function identityRefusal(event: HandledEvent, config: PaymentConfig): Promise<Effect | undefined> {
  if (event.livemode !== config.livemode) {
    return { outcome: "refused_livemode_mismatch", detail: `a ${modeOf(event.livemode)}-mode event, but STRIPE_SECRET_KEY is a ${modeOf(config.livemode)}-mode key` };
  }
  if (event.account === null) return undefined;
  const own = await ownStripeAccountId(config);
  if (event.account === own) return undefined;
  return { outcome: "refused_stripe_account_mismatch", detail: `an event of Stripe account ${event.account}; this server's account is ${own}` };
}

/** A payment of Tollgate's that a refund or dispute takes money from. */
interface PaymentRef {
  id: string;
  account_id: string;
  currency: string;
}

interface Prepared {
  /** The payment a refund or dispute takes money from. */
  payment?: PaymentRef;
  /** charge.refunded: the charge's refunds, listed from Stripe. */
  refunds?: Refund[];
  /** A completed setup session: the card it saved. */
  card?: SavedCard;
}

/**
 * What an event needs from Stripe or the database before its transaction (no request to Stripe is
 * made while a transaction holds locks): the payment a refund or dispute belongs to, the refunds of a
 * refunded charge. A refund or dispute of a Tollgate payment not granted yet is a conflict (409):
 * Stripe delivers it again later, after the payment's own event.
 */
async function prepare(db: Db, event: HandledEvent, config: PaymentConfig): Promise<Prepared> {
  switch (event.type) {
    case "checkout.session.completed": {
      const session = event.data.object;
      return session.mode === "setup" ? { card: await savedCardOf(config, session) } : {};
    }
    case "refund.created":
    case "refund.updated":
    case "refund.failed": {
      const refund = event.data.object;
      if (event.type !== "refund.failed" && refund.status !== "succeeded" && refund.status !== "failed") return {};
      return { payment: await paymentOf(db, config, refund.payment_intent, refund.charge) };
    }
    case "charge.refunded": {
      const charge = event.data.object;
      const payment = await paymentOf(db, config, charge.payment_intent, charge.id);
      if (!payment) return {};
      let listed: unknown[];
      try {
        const stripe = await stripeClient(config);
        listed = (await stripe.refunds.list({ charge: charge.id, limit: 100 })).data;
      } catch (err) {
        throw stripeFailure(err, `listing the refunds of ${charge.id}`, config, "the event is answered with an error so that Stripe delivers it again");
      }
      const refunds = listed.map((r) => RefundSchema.safeParse(r));
      const unreadable = refunds.find((r) => !r.success);
      if (unreadable) throw new DomainError("upstream_unavailable", `Stripe listed a refund of ${charge.id} that Tollgate cannot read (${unreadable.error?.issues[0]?.message}): the event is answered with an error so that Stripe delivers it again`);
      return { payment, refunds: refunds.flatMap((r) => (r.success ? [r.data] : [])) };
    }
    case "charge.dispute.created":
    case "charge.dispute.closed": {
      const dispute = event.data.object;
      return { payment: await paymentOf(db, config, dispute.payment_intent, dispute.charge) };
    }
    default:
      return {};
  }
}

/** The card a completed setup session saved for auto top-up (read from its setup intent); undefined when the session is not Tollgate's. */
async function savedCardOf(config: PaymentConfig, session: Session): Promise<SavedCard | undefined> {
  const accountId = Object.hasOwn(session.metadata, SETUP_METADATA.accountId) ? session.metadata[SETUP_METADATA.accountId] : undefined;
  const setupIntentId = session.setup_intent;
  if (!accountId || !Object.hasOwn(session.metadata, SETUP_METADATA.purpose) || !setupIntentId) return undefined;
  let intent: Stripe.SetupIntent;
  try {
    const stripe = await stripeClient(config);
    intent = await stripe.setupIntents.retrieve(setupIntentId, { expand: ["payment_method"] });
  } catch (err) {
    throw stripeFailure(err, `reading setup intent ${setupIntentId}`, config, "the event is answered with an error so that Stripe delivers it again");
  }
  const pm = intent.payment_method;
  if (!pm || intent.status !== "succeeded") return undefined;
  const card = typeof pm === "object" ? pm.card : null;
  return {
    accountId,
    customerId: session.customer,
    sessionId: session.id,
    paymentMethod: { id: idOf(pm)!, brand: card?.brand ?? null, last4: card?.last4 ?? null, exp_month: card?.exp_month ?? null, exp_year: card?.exp_year ?? null },
  };
}

/** The succeeded payment behind a payment intent or charge; undefined when it is not a Tollgate payment. */
async function paymentOf(db: Db, config: PaymentConfig, paymentIntentId: string | null, chargeId: string | null): Promise<PaymentRef | undefined> {
  const found = rows<PaymentRef & { status: string }>(
    await db.execute(sql`
      SELECT id, account_id, currency, status FROM payments
       WHERE (${paymentIntentId}::text IS NOT NULL AND stripe_payment_intent_id = ${paymentIntentId}) OR (${chargeId}::text IS NOT NULL AND stripe_charge_id = ${chargeId})
       LIMIT 1`),
  )[0];
  if (found?.status === "succeeded") return { id: found.id, account_id: found.account_id, currency: found.currency };
  if (found) throw new DomainError("conflict", `Payment ${found.id} has not been granted yet (${found.status}): deliver this event again later`);
  if (!paymentIntentId) return undefined;
  let intent: Stripe.PaymentIntent;
  try {
    const stripe = await stripeClient(config);
    intent = await stripe.paymentIntents.retrieve(paymentIntentId);
  } catch (err) {
    throw stripeFailure(err, `reading payment intent ${paymentIntentId}`, config, "the event is answered with an error so that Stripe delivers it again");
  }
  const meta = ours(intent.metadata);
  if (!meta) return undefined;
  throw new DomainError("conflict", `Payment ${meta.paymentId} has not been granted yet: deliver this event again later`);
}

/** A refusal when a refund, failed refund or lost dispute is not in its payment's currency: its share of the credits would be another currency's. */
function currencyRefusal(payment: PaymentRef, what: string, currency: string): ReversalEffect | undefined {
  if (currency === payment.currency) return undefined;
  return {
    outcome: "refused_currency_mismatch",
    accountId: payment.account_id,
    paymentId: payment.id,
    detail: `${what} is in ${currency}, its payment ${payment.id} in ${payment.currency}: nothing is taken back`,
    figures: { credits_reversed: "0", credits_recovered: "0", debt_credits: "0" },
  };
}

async function apply(tx: Db, event: HandledEvent, prepared: Prepared, actor: Actor, config: PaymentConfig): Promise<Effect> {
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      const session = event.data.object;
      if (session.mode === "setup") {
        if (!prepared.card) return { outcome: "ignored_not_tollgate" };
        const saved = await saveCard(tx, prepared.card);
        if (!saved.saved) return { outcome: "refused_card", accountId: null, detail: saved.reason };
        return { outcome: "card_saved", accountId: prepared.card.accountId, replacedCard: saved.replaced, detail: `card ${prepared.card.paymentMethod.id} saved for auto top-up` };
      }
      const meta = ours(session.metadata);
      if (!meta) return { outcome: "ignored_not_tollgate" };
      const paid = { ...meta, amountMinor: session.amount_total ?? 0, currency: session.currency ?? "", sessionId: session.id, paymentIntentId: session.payment_intent, chargeId: null };
      if (session.payment_status !== "paid") return recordPending(tx, paid, config);
      return grantPayment(tx, paid, actor, config);
    }
    case "payment_intent.succeeded": {
      const intent = event.data.object;
      const meta = ours(intent.metadata);
      if (!meta) return { outcome: "ignored_not_tollgate" };
      return grantPayment(tx, { ...meta, amountMinor: intent.amount_received, currency: intent.currency, sessionId: null, paymentIntentId: intent.id, chargeId: intent.latest_charge }, actor, config);
    }
    case "payment_intent.payment_failed": {
      // A Checkout customer tries again on the same page; only an auto top-up's charge fails for good.
      const intent = event.data.object;
      const meta = ours(intent.metadata);
      if (!meta || meta.kind !== "auto_topup") return { outcome: "ignored_not_auto_topup" };
      const error = intent.last_payment_error;
      const failed = await recordTopupFailureIn(tx, { paymentId: meta.paymentId, code: error?.code ?? "payment_failed", message: error?.message ?? "The charge failed", paymentIntentId: intent.id });
      return { outcome: failed ? "auto_topup_failed" : "duplicate_failure", accountId: meta.accountId, paymentId: meta.paymentId };
    }
    case "checkout.session.expired":
    case "checkout.session.async_payment_failed": {
      const session = event.data.object;
      const meta = ours(session.metadata);
      if (!meta) return { outcome: "ignored_not_tollgate" };
      const status = event.type === "checkout.session.expired" ? "expired" : "failed";
      return endPayment(tx, { ...meta, amountMinor: session.amount_total ?? 0, currency: session.currency ?? "", sessionId: session.id, paymentIntentId: session.payment_intent, chargeId: null }, status, config);
    }
    case "refund.failed":
    case "refund.created":
    case "refund.updated": {
      const refund = event.data.object;
      if (event.type === "refund.failed" || refund.status === "failed") {
        if (!prepared.payment) return { outcome: "ignored_not_tollgate" };
        return currencyRefusal(prepared.payment, `refund ${refund.id}`, refund.currency) ?? failRefund(tx, prepared.payment, refund);
      }
      if (refund.status !== "succeeded") return { outcome: `refund_${refund.status ?? "unknown"}`, detail: `refund ${refund.id}: reversed once it has succeeded` };
      if (!prepared.payment) return { outcome: "ignored_not_tollgate" };
      return reverse(tx, prepared.payment, { kind: "refund", stripeId: refund.id, amountMinor: refund.amount, currency: refund.currency });
    }
    case "charge.refunded": {
      if (!prepared.payment || !prepared.refunds) return { outcome: "ignored_not_tollgate" };
      const effects: Effect[] = [];
      for (const refund of prepared.refunds.filter((r) => r.status === "succeeded")) {
        effects.push(await reverse(tx, prepared.payment, { kind: "refund", stripeId: refund.id, amountMinor: refund.amount, currency: refund.currency }));
      }
      const created = effects.filter((e) => e.outcome === "reversed");
      const refused = effects.find((e) => e.outcome.startsWith("refused_"));
      return {
        outcome: created.length > 0 ? "reversed" : (refused?.outcome ?? "duplicate_reversal"),
        accountId: prepared.payment.account_id,
        paymentId: prepared.payment.id,
        ledgerEntryId: created[0]?.ledgerEntryId ?? null,
        detail: effects.map((e) => e.detail).join("; "),
      };
    }
    case "charge.dispute.created": {
      const dispute = event.data.object;
      if (!prepared.payment) return { outcome: "ignored_not_tollgate" };
      const payload = { payment_id: prepared.payment.id, dispute_id: dispute.id, amount_minor: dispute.amount, currency: dispute.currency, reason: dispute.reason, status: dispute.status };
      await notify(tx, { accountId: prepared.payment.account_id, kind: "payment_disputed", claimKey: `payment_disputed:${dispute.id}`, payload });
      return { outcome: "dispute_opened", accountId: prepared.payment.account_id, paymentId: prepared.payment.id, detail: `dispute ${dispute.id} (${dispute.reason}): nothing is taken back unless it is lost` };
    }
    case "charge.dispute.closed": {
      const dispute = event.data.object;
      if (!prepared.payment) return { outcome: "ignored_not_tollgate" };
      if (dispute.status !== "lost") return { outcome: `dispute_${dispute.status}`, accountId: prepared.payment.account_id, paymentId: prepared.payment.id, detail: `dispute ${dispute.id} closed ${dispute.status}` };
      const effect = await reverse(tx, prepared.payment, { kind: "dispute_lost", stripeId: dispute.id, amountMinor: dispute.amount, currency: dispute.currency });
      if (effect.outcome.startsWith("refused_")) return effect;
      const payload = { payment_id: prepared.payment.id, dispute_id: dispute.id, amount_minor: dispute.amount, currency: dispute.currency, reason: dispute.reason, ...effect.figures };
      await notify(tx, { accountId: prepared.payment.account_id, kind: "payment_dispute_lost", claimKey: `payment_dispute_lost:${dispute.id}`, payload });
      return { ...effect, outcome: effect.outcome === "reversed" ? "dispute_lost_reversed" : effect.outcome };
    }
  }
}

interface PaidInput {
  paymentId: string;
  kind: "checkout" | "auto_topup";
  accountId: string;
  credits: string;
  amountMinor: number;
  currency: string;
  sessionId: string | null;
  paymentIntentId: string | null;
  chargeId: string | null;
}

interface Known {
  status: string;
  credits: string;
  amountMinor: number;
  currency: string;
}

/**
 * The payment the event is about, checked against its metadata, with the account's balance row
 * locked; or the refusal. A recorded payment must have been paid its own amount in its own
 * currency: the price when it was recorded, whatever CREDIT_PRICE_MINOR says now. A payment
 * Tollgate has no row of (the Checkout request ended after Stripe answered) is made from the
 * metadata — when the account exists here and its credits cost what was paid at today's price.
 */
async function claimPayment(tx: Db, p: PaidInput, status: "pending" | "expired" | "failed", config: PaymentConfig): Promise<{ known: Known } | { refused: Effect }> {
  const refused = (outcome: string, detail: string) => ({ refused: { outcome, accountId: null, paymentId: p.paymentId, detail } });
  const row = rows<{ account_id: string; status: string; credits: string; amount_minor: string | number; currency: string }>(
    await tx.execute(sql`SELECT account_id, status, credits::text AS credits, amount_minor, currency FROM payments WHERE id = ${p.paymentId}`),
  )[0];
  if (row && row.account_id !== p.accountId) return refused("refused_foreign_account", `the metadata names account ${p.accountId}, the payment belongs to another`);
  if (!row && !(isCreditString(p.credits) && toDecimal(p.credits).gt(0) && p.amountMinor > 0 && p.currency)) return refused("refused_bad_metadata", `credits "${p.credits}", amount ${p.amountMinor} ${p.currency}`);
  if (!(await lockBalance(tx, p.accountId))) return refused("refused_unknown_account", `account ${p.accountId} does not exist here`);
  if (row && (Number(row.amount_minor) !== p.amountMinor || row.currency !== p.currency)) {
    return { refused: { outcome: "refused_amount_mismatch", accountId: p.accountId, paymentId: p.paymentId, detail: `paid ${p.amountMinor} ${p.currency}, the payment is ${row.amount_minor} ${row.currency}` } };
  }
  if (!row) {
    const price = priceRefusal(config, p);
    if (price) return { refused: { ...price, accountId: p.accountId, paymentId: p.paymentId } };
    await tx.execute(sql`
      INSERT INTO payments (id, account_id, kind, status, credits, amount_minor, currency, stripe_checkout_session_id, stripe_payment_intent_id, stripe_charge_id)
      VALUES (${p.paymentId}, ${p.accountId}, ${p.kind}, ${status}, ${creditsToSql(p.credits)}::numeric, ${p.amountMinor}, ${p.currency}, ${p.sessionId}, ${p.paymentIntentId}, ${p.chargeId})
      ON CONFLICT DO NOTHING`);
    return { known: { status, credits: creditsToSql(p.credits), amountMinor: p.amountMinor, currency: p.currency } };
  }
  return { known: { status: row.status, credits: row.credits, amountMinor: Number(row.amount_minor), currency: row.currency } };
}

/** Stripe's ids the row does not have yet (a session completed after its payment intent's event, say). */
async function noteStripeIds(tx: Db, p: PaidInput) {
  await tx.execute(sql`
    UPDATE payments SET stripe_checkout_session_id = coalesce(stripe_checkout_session_id, ${p.sessionId}),
                        stripe_payment_intent_id = coalesce(stripe_payment_intent_id, ${p.paymentIntentId}),
                        stripe_charge_id = coalesce(stripe_charge_id, ${p.chargeId}), updated_at = now()
     WHERE id = ${p.paymentId}`);
}

/**
 * The grant, once per payment: the conditional UPDATE moves the payment to `succeeded` only from
 * another status; under concurrent deliveries the others wait for its row lock, re-read it
 * succeeded and grant nothing. The grant's ledger row (its source the payment's id, unique for
 * Stripe grants) and the account's debts settled from it commit with that UPDATE.
 */
async function grantPayment(tx: Db, p: PaidInput, actor: Actor, config: PaymentConfig): Promise<Effect> {
  const claimed = await claimPayment(tx, p, "pending", config);
  if ("refused" in claimed) return claimed.refused;
  const ledgerId = newId("led");
  const won = rows<{ credits: string; amount_minor: string | number; currency: string; kind: string }>(
    await tx.execute(sql`
      UPDATE payments SET status = 'succeeded', ledger_entry_id = ${ledgerId}, succeeded_at = now(), updated_at = now(), checkout_url = NULL,
                          stripe_checkout_session_id = coalesce(stripe_checkout_session_id, ${p.sessionId}),
                          stripe_payment_intent_id = coalesce(stripe_payment_intent_id, ${p.paymentIntentId}),
                          stripe_charge_id = coalesce(stripe_charge_id, ${p.chargeId})
       WHERE id = ${p.paymentId} AND account_id = ${p.accountId} AND status <> 'succeeded'
      RETURNING credits::text AS credits, amount_minor, currency, kind`),
  )[0];
  if (!won) {
    await noteStripeIds(tx, p);
    return { outcome: "duplicate_grant", accountId: p.accountId, paymentId: p.paymentId, detail: "the payment was granted before" };
  }
  const amountMinor = Number(won.amount_minor);
  await grantCredits(tx, {
    id: ledgerId,
    accountId: p.accountId,
    amount: won.credits,
    type: "payment_recharge",
    description: `Purchase ${p.paymentId} through Stripe (${amountMinor} ${won.currency.toUpperCase()} minor units)`,
    source: { system: "stripe", refType: "payment", refId: p.paymentId },
    metadata: { payment_id: p.paymentId, payment_intent: p.paymentIntentId, checkout_session: p.sessionId, amount_minor: amountMinor, currency: won.currency },
    actor,
  });
  const settled = await settleDebts(tx, p.accountId, { paymentId: p.paymentId });
  if (won.kind === "auto_topup") await resetTopupFailures(tx, p.accountId);
  const detail = settled.length > 0 ? `granted ${won.credits}; settled debts: ${settled.map((s) => `${s.credits} for ${s.reversal_id}`).join(", ")}` : `granted ${won.credits}`;
  return { outcome: "granted", accountId: p.accountId, paymentId: p.paymentId, ledgerEntryId: ledgerId, detail };
}

/** A completed session whose payment is still on its way (delayed methods): the payment stays pending. */
async function recordPending(tx: Db, p: PaidInput, config: PaymentConfig): Promise<Effect> {
  const claimed = await claimPayment(tx, p, "pending", config);
  if ("refused" in claimed) return claimed.refused;
  await noteStripeIds(tx, p);
  return { outcome: "awaiting_payment", accountId: p.accountId, paymentId: p.paymentId };
}

/** An expired session or a failed delayed payment: a pending payment ends so (a succeeded one is kept). */
async function endPayment(tx: Db, p: PaidInput, status: "expired" | "failed", config: PaymentConfig): Promise<Effect> {
  const claimed = await claimPayment(tx, p, status, config);
  if ("refused" in claimed) return claimed.refused;
  const ended = rows(
    await tx.execute(sql`
      UPDATE payments SET status = ${status}, checkout_url = NULL, updated_at = now()
       WHERE id = ${p.paymentId} AND status = 'pending' RETURNING id`),
  );
  const now = claimed.known.status === status || ended.length > 0;
  return { outcome: now ? status : `ignored_${claimed.known.status}`, accountId: p.accountId, paymentId: p.paymentId };
}

interface ReversalEffect extends Effect {
  figures: { credits_reversed: string; credits_recovered: string; debt_credits: string };
}

async function reverse(tx: Db, payment: PaymentRef, r: { kind: ReversalKind; stripeId: string; amountMinor: number; currency: string }): Promise<ReversalEffect> {
  const refused = currencyRefusal(payment, `${r.kind === "refund" ? "refund" : "lost dispute"} ${r.stripeId}`, r.currency);
  if (refused) return refused;
  await lockBalance(tx, payment.account_id);
  const done = await reversePayment(tx, { accountId: payment.account_id, paymentId: payment.id, kind: r.kind, stripeId: r.stripeId, amountMinor: r.amountMinor, currency: r.currency });
  const ledger = rows<{ ledger_entry_id: string | null }>(await tx.execute(sql`SELECT ledger_entry_id FROM payment_reversals WHERE id = ${done.reversal_id}`))[0];
  if (done.undone) {
    // An event older than the refund's failure (Stripe's events carry the object as it was): the failure stands.
    return {
      outcome: "ignored_refund_failed",
      accountId: payment.account_id,
      paymentId: payment.id,
      detail: `${r.stripeId} failed since: its reversal is undone and is not made again`,
      figures: { credits_reversed: "0", credits_recovered: "0", debt_credits: done.debt_credits },
    };
  }
  return {
    outcome: done.created ? "reversed" : "duplicate_reversal",
    accountId: payment.account_id,
    paymentId: payment.id,
    ledgerEntryId: ledger?.ledger_entry_id ?? null,
    detail: `${r.stripeId}: ${done.credits} credits, ${done.credits_recovered} taken, debt ${done.debt_credits}`,
    figures: { credits_reversed: done.credits, credits_recovered: done.credits_recovered, debt_credits: done.debt_credits },
  };
}

/**
 * A refund Stripe failed (`refund.failed`, or `refund.updated` / `refund.created` with status
 * `failed`): its reversal undone once by the refund's id, whatever the events and deliveries; a
 * refund never reversed here has its failure recorded and nothing else.
 */
async function failRefund(tx: Db, payment: PaymentRef, refund: Refund): Promise<Effect> {
  await lockBalance(tx, payment.account_id);
  const done = await undoRefund(tx, {
    accountId: payment.account_id,
    paymentId: payment.id,
    stripeId: refund.id,
    amountMinor: refund.amount,
    currency: refund.currency,
    reason: refund.failure_reason ?? null,
  });
  const base = { accountId: payment.account_id, paymentId: payment.id, ledgerEntryId: done.ledger_entry_id };
  const reason = refund.failure_reason ?? "no reason given";
  switch (done.outcome) {
    case "undone":
      return { ...base, outcome: "reversal_undone", detail: `${refund.id} failed (${reason}): ${done.credits_returned} credits given back, ${done.debt_cancelled} of debt cancelled, debt now ${done.debt_credits}` };
    case "recorded":
      return { ...base, outcome: "refund_failure_recorded", detail: `${refund.id} failed (${reason}) before it was reversed here: nothing to give back` };
    default:
      return { ...base, ledgerEntryId: null, outcome: "duplicate_refund_failure", detail: `${refund.id}: its failure was applied before` };
  }
}

/** Stripe's receipt and the charge's id, once the payment is granted; a failure leaves them for the next event and is only logged. */
async function fetchReceipt(db: Db, config: PaymentConfig, paymentId: string): Promise<void> {
  const row = rows<{ stripe_payment_intent_id: string | null; receipt_url: string | null }>(
    await db.execute(sql`SELECT stripe_payment_intent_id, receipt_url FROM payments WHERE id = ${paymentId}`),
  )[0];
  if (!row?.stripe_payment_intent_id || row.receipt_url) return;
  try {
    const stripe = await stripeClient(config);
    const intent = await stripe.paymentIntents.retrieve(row.stripe_payment_intent_id, { expand: ["latest_charge"] }, { maxNetworkRetries: 0 });
    const charge = typeof intent.latest_charge === "object" ? intent.latest_charge : null;
    await db.execute(sql`
      UPDATE payments SET receipt_url = coalesce(receipt_url, ${charge?.receipt_url ?? null}),
                          stripe_charge_id = coalesce(stripe_charge_id, ${charge?.id ?? idOf(intent.latest_charge)}), updated_at = now()
       WHERE id = ${paymentId}`);
  } catch (err) {
    logger.warn({ payment_id: paymentId, err: stripeFailure(err, `reading the receipt of ${paymentId}`, config).message }, "stripe receipt not read");
  }
}
