import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { notFound } from "../errors";
import { newId } from "../ids";
import { publicUrl } from "../env";
import { creditsToNumber, credits as toDecimal } from "../money";
import { type Actor, recordActivity } from "../accounts/activity";
import type { PaymentKind, PaymentStatus, ReversalKind } from "../vocab/payments";
import { paymentConfig, paymentConfigOrThrow, pricePurchase, type PaymentConfig } from "./payment-config";
import { stripeClient, stripeFailure, type Stripe } from "./stripe-client";
import { debtCredits } from "./payment-reversals";

/**
 * Buying credits through Stripe Checkout (docs/billing.md, Buying credits). This module starts a
 * purchase and reads payments; the grant is written only from Stripe's signed webhook
 * (lib/payments/stripe-events.ts), never here.
 */

/** The keys of the Checkout session's and payment intent's metadata: how a webhook finds its payment, even one Tollgate never recorded. */
export const METADATA = { paymentId: "tollgate_payment_id", accountId: "tollgate_account_id", credits: "tollgate_credits" } as const;

export interface PaymentReversalItem {
  reversal_id: string;
  kind: ReversalKind;
  stripe_id: string;
  amount_minor: number;
  currency: string;
  credits: number;
  credits_recovered: number;
  ledger_entry_id: string | null;
  /** Stripe failed the refund: the reversal is undone (what it took given back, its debt cancelled). */
  failed_at: string | null;
  created_at: string;
}

export interface PaymentItem {
  payment_id: string;
  account_id: string;
  kind: PaymentKind;
  status: PaymentStatus;
  credits: number;
  amount_minor: number;
  currency: string;
  ledger_entry_id: string | null;
  receipt_url: string | null;
  checkout_url: string | null;
  failure_code: string | null;
  failure_message: string | null;
  stripe_checkout_session_id: string | null;
  stripe_payment_intent_id: string | null;
  refunded_minor: number;
  reversed_credits: number;
  reversals: PaymentReversalItem[];
  created_at: string;
  updated_at: string;
  succeeded_at: string | null;
}

interface PaymentRow {
  id: string;
  account_id: string;
  kind: PaymentKind;
  status: PaymentStatus;
  credits: string;
  amount_minor: string | number;
  currency: string;
  ledger_entry_id: string | null;
  receipt_url: string | null;
  checkout_url: string | null;
  stripe_checkout_session_id: string | null;
  stripe_payment_intent_id: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  succeeded_at: Date | string | null;
  failure_code: string | null;
  failure_message: string | null;
  reversals: (Omit<PaymentReversalItem, "credits" | "credits_recovered" | "amount_minor" | "failed_at"> & { credits: string; credits_recovered: string; amount_minor: string | number; failed_at: string | null })[] | null;
}

const iso = (v: Date | string) => new Date(v).toISOString();

function paymentItem(r: PaymentRow): PaymentItem {
  const reversals = (r.reversals ?? []).map((v) => ({
    ...v,
    amount_minor: Number(v.amount_minor),
    credits: creditsToNumber(String(v.credits)),
    credits_recovered: creditsToNumber(String(v.credits_recovered)),
    failed_at: v.failed_at ? iso(v.failed_at) : null,
    created_at: iso(v.created_at),
  }));
  const standing = reversals.filter((v) => v.failed_at === null);
  return {
    payment_id: r.id,
    account_id: r.account_id,
    kind: r.kind,
    status: r.status,
    credits: creditsToNumber(r.credits),
    amount_minor: Number(r.amount_minor),
    currency: r.currency,
    ledger_entry_id: r.ledger_entry_id,
    receipt_url: r.receipt_url,
    checkout_url: r.status === "pending" ? r.checkout_url : null,
    failure_code: r.failure_code,
    failure_message: r.failure_message,
    stripe_checkout_session_id: r.stripe_checkout_session_id,
    stripe_payment_intent_id: r.stripe_payment_intent_id,
    refunded_minor: standing.reduce((sum, v) => sum + v.amount_minor, 0),
    reversed_credits: creditsToNumber((r.reversals ?? []).filter((v) => !v.failed_at).reduce((sum, v) => sum.plus(v.credits), toDecimal(0))),
    reversals,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    succeeded_at: r.succeeded_at ? iso(r.succeeded_at) : null,
  };
}

const SELECT_PAYMENTS = sql`
  SELECT p.id, p.account_id, p.kind, p.status, p.failure_code, p.failure_message, p.credits::text AS credits, p.amount_minor, p.currency, p.ledger_entry_id, p.receipt_url,
         p.checkout_url, p.stripe_checkout_session_id, p.stripe_payment_intent_id, p.created_at, p.updated_at, p.succeeded_at,
         (SELECT jsonb_agg(jsonb_build_object('reversal_id', v.id, 'kind', v.kind, 'stripe_id', v.stripe_id, 'amount_minor', v.amount_minor,
                                              'currency', v.currency, 'credits', v.credits::text, 'credits_recovered', v.credits_recovered::text,
                                              'ledger_entry_id', v.ledger_entry_id, 'failed_at', v.failed_at, 'created_at', v.created_at) ORDER BY v.created_at, v.id)
            FROM payment_reversals v WHERE v.payment_id = p.id) AS reversals
    FROM payments p`;

/** The account's payments, newest first, a page at a time, with what refunds and lost disputes took back. */
export async function listPayments(
  db: Db,
  accountId: string,
  input: { status?: PaymentStatus; kind?: PaymentKind; page: number; pageSize: number },
): Promise<{ items: PaymentItem[]; total: number; page: number; page_size: number; debt_credits: number }> {
  const where = sql`p.account_id = ${accountId} ${input.status ? sql`AND p.status = ${input.status}` : sql``} ${input.kind ? sql`AND p.kind = ${input.kind}` : sql``}`;
  const [found, counted, debt] = await Promise.all([
    db.execute(sql`${SELECT_PAYMENTS} WHERE ${where} ORDER BY p.created_at DESC, p.id DESC LIMIT ${input.pageSize} OFFSET ${(input.page - 1) * input.pageSize}`),
    db.execute(sql`SELECT count(*)::int AS n FROM payments p WHERE ${where}`),
    debtCredits(db, accountId),
  ]);
  return {
    items: rows<PaymentRow>(found).map(paymentItem),
    total: Number(rows<{ n: number }>(counted)[0].n),
    page: input.page,
    page_size: input.pageSize,
    debt_credits: creditsToNumber(debt),
  };
}

/** One payment of the account (another account's id is not found either). */
export async function getPayment(db: Db, accountId: string, paymentId: string): Promise<PaymentItem> {
  const found = rows<PaymentRow>(await db.execute(sql`${SELECT_PAYMENTS} WHERE p.id = ${paymentId} AND p.account_id = ${accountId}`))[0];
  if (!found) throw notFound(`Payment ${paymentId} not found`);
  return paymentItem(found);
}

/** The accounts holding a payment id (support's reads without account_id). */
export async function ownersOfPayment(db: Db, paymentId: string): Promise<string[]> {
  return rows<{ account_id: string }>(await db.execute(sql`SELECT account_id FROM payments WHERE id = ${paymentId}`)).map((r) => r.account_id);
}

/** What the dashboard needs to offer a purchase: off while payments are not configured. */
export async function billingConfig(db: Db, accountId: string) {
  const config = paymentConfig();
  if (!config) return { enabled: false as const, currency: null, credit_price_minor: null, min_credits: null, max_credits: null, packs: [], debt_credits: 0 };
  return {
    enabled: true as const,
    currency: config.currency,
    credit_price_minor: config.priceMinor,
    min_credits: creditsToNumber(config.minCredits),
    max_credits: creditsToNumber(config.maxCredits),
    packs: config.packs.map((pack) => ({ credits: creditsToNumber(pack), amount_minor: pricePurchase(config, { pack }).amountMinor })),
    debt_credits: creditsToNumber(await debtCredits(db, accountId)),
  };
}

/**
 * Starts a purchase: prices it, asks Stripe for a Checkout session (one line item at the price of
 * the credits, our ids in its metadata and its payment intent's, an idempotency key), and records
 * the pending payment once Stripe has answered. Stripe down, slow (STRIPE_TIMEOUT_MS) or refusing:
 * an error, and no row at all, so nothing is left pending. A crash between Stripe's answer and the
 * insert leaves no row either; the session's webhook then makes it from the metadata.
 */
export async function startCheckout(db: Db, input: { accountId: string; userId: string; credits?: string; pack?: string; actor: Actor }) {
  const config = paymentConfigOrThrow();
  const priced = pricePurchase(config, { credits: input.credits, pack: input.pack });
  const paymentId = newId("pay");
  const metadata = { [METADATA.paymentId]: paymentId, [METADATA.accountId]: input.accountId, [METADATA.credits]: priced.credits };
  const back = `${publicUrl()}/billing?payment=${paymentId}`;
  const session = await createSession(config, paymentId, {
    mode: "payment",
    line_items: [{ quantity: 1, price_data: { currency: priced.currency, unit_amount: priced.amountMinor, product_data: { name: `${priced.credits} Tollgate credits` } } }],
    client_reference_id: paymentId,
    metadata,
    payment_intent_data: { metadata },
    success_url: back,
    cancel_url: `${back}&canceled=1`,
    ...(input.actor.type === "user" && input.actor.label?.includes("@") ? { customer_email: input.actor.label } : {}),
  });
  await db.transaction(async (t) => {
    const tx = t as unknown as Db;
    await tx.execute(sql`
      INSERT INTO payments (id, account_id, status, credits, amount_minor, currency, stripe_checkout_session_id, checkout_url, created_by)
      VALUES (${paymentId}, ${input.accountId}, 'pending', ${priced.credits}::numeric, ${priced.amountMinor}, ${priced.currency}, ${session.id}, ${session.url}, ${input.userId})
      ON CONFLICT (id) DO NOTHING`);
    await recordActivity(tx, input.accountId, input.actor, {
      action: "payment.started",
      objectType: "payment",
      objectId: paymentId,
      after: { credits: priced.credits, amount_minor: priced.amountMinor, currency: priced.currency, checkout_session: session.id },
    });
  });
  return { ...(await getPayment(db, input.accountId, paymentId)), checkout_url: session.url };
}

async function createSession(config: PaymentConfig, paymentId: string, params: Stripe.Checkout.SessionCreateParams) {
  try {
    // No retry of our own: the owner hears within the timeout. The key makes any retry the same session.
    const stripe = await stripeClient(config);
    const session = await stripe.checkout.sessions.create(params, { idempotencyKey: `tollgate-checkout-${paymentId}`, maxNetworkRetries: 0 });
    if (!session.url) throw new Error("the Checkout session has no URL");
    return { id: session.id, url: session.url };
  } catch (err) {
    throw stripeFailure(err, "creating the Checkout session", config, "nothing was charged; try again shortly");
  }
}
