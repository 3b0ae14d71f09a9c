import { z } from "@hono/zod-openapi";
import { autoTopupStates, paymentKinds, paymentStatuses, reconcileKinds, reconcileStatuses, reversalKinds } from "../../vocab/payments";
import { accountId } from "../../audit/query-schemas";

export const BILLING_EXTENSION =
  "Extension (not in the published contract): buying credits through Stripe Checkout. The grant is written only from Stripe's signed webhook, once per payment (docs/billing.md, Buying credits). While payments are not configured (STRIPE_SECRET_KEY unset) every billing operation but the configuration answers 404 saying so.";

export const PaymentReversalSchema = z
  .object({
    reversal_id: z.string(),
    kind: z.enum(reversalKinds).openapi({ description: "A refund, or a dispute the operator lost" }),
    stripe_id: z.string().openapi({ description: "Stripe's refund (`re_…`) or dispute (`dp_…`) id" }),
    amount_minor: z.number().int().openapi({ description: "Money given back, in the currency's minor unit" }),
    currency: z.string(),
    credits: z.number().openapi({ description: "Credits it takes back: its share of the payment's credits" }),
    credits_recovered: z.number().openapi({ description: "What the ledger has taken so far; the rest is a debt the next purchase settles first" }),
    ledger_entry_id: z.string().nullable().openapi({ description: "The first `consume_payment_refund` row (null while nothing could be taken)" }),
    failed_at: z
      .string()
      .nullable()
      .openapi({ description: "When Stripe failed the refund (`refund.failed`): the reversal is undone, what it took given back, its debt cancelled; it counts in neither refunded_minor nor reversed_credits" }),
    created_at: z.string(),
  })
  .openapi("PaymentReversal");

export const PaymentSchema = z
  .object({
    payment_id: z.string(),
    account_id: z.string(),
    kind: z.enum(paymentKinds).openapi({ description: "checkout: an owner paid on Stripe Checkout; auto_topup: auto top-up charged the saved card" }),
    status: z.enum(paymentStatuses).openapi({ description: "pending until Stripe's webhook says it was paid (succeeded: granted), or its Checkout expired or its payment failed" }),
    credits: z.number(),
    amount_minor: z.number().int().openapi({ description: "The price in the currency's minor unit (cents for usd)" }),
    currency: z.string().openapi({ description: "ISO 4217, lowercase as Stripe writes it" }),
    ledger_entry_id: z.string().nullable().openapi({ description: "The grant's `grant_payment_recharge` ledger row, once succeeded" }),
    receipt_url: z.string().nullable().openapi({ description: "Stripe's receipt, once the payment's charge is known" }),
    checkout_url: z.string().nullable().openapi({ description: "Stripe's hosted Checkout page, while pending" }),
    failure_code: z.string().nullable().openapi({ description: "Why a payment failed, in Stripe's words (card_declined, authentication_required, …)" }),
    failure_message: z.string().nullable(),
    stripe_checkout_session_id: z.string().nullable(),
    stripe_payment_intent_id: z.string().nullable(),
    refunded_minor: z.number().int().openapi({ description: "Money refunds and lost disputes gave back (refunds Stripe failed since excluded)" }),
    reversed_credits: z.number().openapi({ description: "Credits those take back" }),
    reversals: z.array(PaymentReversalSchema),
    created_at: z.string(),
    updated_at: z.string(),
    succeeded_at: z.string().nullable(),
  })
  .openapi("Payment");
export type Payment = z.infer<typeof PaymentSchema>;

export const PaymentListSchema = z
  .object({
    items: z.array(PaymentSchema),
    total: z.number().int(),
    page: z.number().int(),
    page_size: z.number().int(),
    debt_credits: z.number().openapi({ description: "Credits refunds and lost disputes could not take back when they came (already spent): the next purchase settles them first" }),
  })
  .openapi("PaymentList");

export const PaymentListQuerySchema = z.object({
  status: z.enum(paymentStatuses).optional(),
  kind: z.enum(paymentKinds).optional(),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: "1 to 100, default 20" }),
  account_id: accountId,
});

export const BillingConfigSchema = z
  .object({
    enabled: z.boolean().openapi({ description: "false while payments are not configured on this server: offer no purchase" }),
    currency: z.string().nullable(),
    credit_price_minor: z.string().nullable().openapi({ description: "The price of one credit in the currency's minor unit, as an exact decimal" }),
    min_credits: z.number().nullable(),
    max_credits: z.number().nullable(),
    packs: z.array(z.object({ credits: z.number(), amount_minor: z.number().int() })),
    debt_credits: z.number().openapi({ description: "Credits the account owes from refunds and lost disputes: its next purchase settles them first" }),
  })
  .openapi("BillingConfig");

const amount = (description: string) => z.union([z.number().positive().max(1e14), z.string().max(30)]).optional().openapi({ description });

export const CheckoutBodySchema = z
  .object({
    credits: amount("Credits to buy (at most 6 decimals), within the server's minimum and maximum; the price must come to a whole number of minor units"),
    pack: amount("One of the packs the configuration lists, by its credits"),
  })
  .openapi("CheckoutBody");

export const StripeWebhookResultSchema = z
  .object({
    event_id: z.string(),
    type: z.string(),
    outcome: z.string().openapi({
      description:
        "What the event did: granted, duplicate_grant, awaiting_payment, expired, failed, reversed, duplicate_reversal, dispute_opened, dispute_lost_reversed, " +
        "refused_… (nothing granted or taken; logged, listed by the reconciliation: refused_price_mismatch, refused_currency_mismatch, refused_amount_mismatch, " +
        "refused_livemode_mismatch, refused_stripe_account_mismatch, refused_unknown_account, refused_foreign_account, refused_bad_metadata), ignored_…",
    }),
    duplicate: z.boolean().openapi({ description: "This event id was received before: nothing was done again" }),
    payment_id: z.string().nullable(),
    ledger_entry_id: z.string().nullable(),
  })
  .openapi("StripeWebhookResult");

export const ReconciliationQuerySchema = z.object({
  from: z.string().min(1).max(40).openapi({ description: "Start of the period, included: YYYY-MM-DD (midnight UTC) or an ISO-8601 time" }),
  to: z.string().min(1).max(40).openapi({ description: "End of the period, excluded; at most 366 days after from" }),
  format: z.enum(["json", "csv"]).optional().openapi({ description: "csv: the report as CSV (as `Accept: text/csv` asks)" }),
  account_id: accountId,
});

export const ReconciliationLineSchema = z
  .object({
    status: z.enum(reconcileStatuses).openapi({
      description:
        "matched; missing_in_ledger (in Stripe, not in the ledger); missing_in_stripe (in the ledger, not in Stripe); amount_differs; refused_event (a Stripe event the webhook refused: another price, currency, Stripe account or mode; nothing granted or taken); no_ledger_side (payouts, Stripe's fees: listed and summed)",
    }),
    kind: z.enum(reconcileKinds),
    created_at: z.string(),
    currency: z.string(),
    amount_minor: z.number().int().nullable().openapi({ description: "Stripe's balance transaction, signed (money out negative); null when not in Stripe" }),
    fee_minor: z.number().int().nullable(),
    net_minor: z.number().int().nullable(),
    stripe_source_amount_minor: z.number().int().nullable().openapi({ description: "The charge's, refund's or dispute's own amount: what is compared with ours" }),
    ledger_amount_minor: z.number().int().nullable().openapi({ description: "Our payment's or reversal's amount, signed like Stripe's; null when we have none" }),
    credits: z.number().nullable().openapi({ description: "Credits granted (positive) or taken back (negative)" }),
    account_id: z.string().nullable(),
    payment_id: z.string().nullable(),
    reversal_id: z.string().nullable(),
    ledger_entry_ids: z.array(z.string()),
    stripe_balance_transaction_id: z.string().nullable(),
    stripe_source_id: z.string().nullable(),
    stripe_payment_intent_id: z.string().nullable(),
    stripe_event_id: z.string().nullable().openapi({ description: "The refused Stripe event (`evt_…`) of a refused_event line; null on the others" }),
    detail: z.string().nullable(),
  })
  .openapi("ReconciliationLine");

export const ReconciliationSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    account_id: z.string().nullable(),
    generated_at: z.string(),
    counts: z.object(Object.fromEntries(reconcileStatuses.map((s) => [s, z.number().int()])) as Record<(typeof reconcileStatuses)[number], z.ZodNumber>),
    unmatched: z.number().int(),
    totals: z.array(
      z.object({
        currency: z.string(),
        gross_minor: z.number().int(),
        fee_minor: z.number().int(),
        net_minor: z.number().int(),
        payouts_minor: z.number().int(),
        credits_granted: z.number(),
        credits_reversed: z.number(),
        lines: z.number().int(),
        unmatched: z.number().int(),
      }),
    ),
    lines: z.array(ReconciliationLineSchema),
  })
  .openapi("PaymentReconciliation");

const creditsInput = (description: string) =>
  z
    .union([z.number().min(0), z.string().regex(/^\d{1,14}(\.\d{1,6})?$/)])
    .optional()
    .openapi({ description: `${description} (a number of credits, at most 6 decimals); absent keeps it` });

export const AutoTopupSchema = z
  .object({
    account_id: z.string(),
    state: z.enum(autoTopupStates).openapi({ description: "off; needs_card (on, but no card saved); active; paused after three failed charges in a row" }),
    enabled: z.boolean(),
    threshold_credits: z.number().nullable().openapi({ description: "A top-up starts when the available balance falls below this" }),
    amount_credits: z.number().nullable().openapi({ description: "Credits each top-up buys" }),
    daily_limit_credits: z.number().nullable().openapi({ description: "At most this many credits bought by auto top-up in any 24 hours" }),
    amount_minor: z.number().int().nullable().openapi({ description: "The price of one top-up in the currency's minor unit" }),
    currency: z.string(),
    card: z
      .object({ brand: z.string().nullable(), last4: z.string().nullable(), exp_month: z.number().int().nullable(), exp_year: z.number().int().nullable() })
      .nullable()
      .openapi({ description: "The saved card (through Checkout in setup mode); null when none" }),
    consecutive_failures: z.number().int(),
    paused_at: z.string().nullable(),
    last_failure: z.object({ code: z.string().nullable(), message: z.string().nullable(), at: z.string() }).nullable(),
    bought_last_24h_credits: z.number().openapi({ description: "Credits auto top-up bought or is buying in the last 24 hours" }),
    in_flight_payment_id: z.string().nullable().openapi({ description: "The top-up waiting for Stripe (one at a time)" }),
    updated_at: z.string().nullable(),
  })
  .openapi("AutoTopup");

export const AutoTopupBodySchema = z
  .object({
    enabled: z.boolean().optional().openapi({ description: "true turns it on (and resumes a paused one); needs the three amounts" }),
    threshold_credits: creditsInput("Start a top-up when the available balance falls below this"),
    amount_credits: creditsInput("Credits each top-up buys: a purchase this server sells"),
    daily_limit_credits: creditsInput("At most this many credits in any 24 hours; at least amount_credits"),
  })
  .strict()
  .openapi("AutoTopupRequest");

export const CardSetupSchema = z
  .object({
    checkout_url: z.string().openapi({ description: "Stripe's Checkout page (setup mode) where the owner saves a card; it comes back to PUBLIC_URL/billing?card=saved" }),
    setup_session_id: z.string(),
  })
  .openapi("CardSetup");
