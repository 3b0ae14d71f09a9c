import { sql } from "drizzle-orm";
import { bigint, boolean, check, date, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { paymentKinds, paymentStatuses, reversalKinds } from "../../vocab/payments";
import { accounts } from "./accounts";
import { createdAt, credits, tsz, updatedAt } from "./columns";

/**
 * A purchase of credits through Stripe Checkout (lib/payments/payments.ts). The grant is written only
 * from Stripe's signed webhook, in the transaction that moves the row from `pending` to `succeeded`
 * (lib/payments/stripe-events.ts): a succeeded payment names its one `grant_payment_recharge` row,
 * and no other payment does (CHECK below, and the ledger's unique index on the grant's source).
 * Amounts of money are integers in the currency's minor unit, as Stripe counts them.
 */
export const payments = pgTable(
  "payments",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    status: text("status", { enum: paymentStatuses }).notNull().default("pending"),
    kind: text("kind", { enum: paymentKinds }).notNull().default("checkout"),
    credits: credits("credits").notNull(),
    amountMinor: bigint("amount_minor", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    stripeCheckoutSessionId: text("stripe_checkout_session_id"),
    stripePaymentIntentId: text("stripe_payment_intent_id"),
    stripeChargeId: text("stripe_charge_id"),
    /** The saved card an auto top-up charges (its retries reuse it with the same idempotency key). */
    stripePaymentMethodId: text("stripe_payment_method_id"),
    /** Stripe's hosted Checkout page while the payment is pending. */
    checkoutUrl: text("checkout_url"),
    receiptUrl: text("receipt_url"),
    ledgerEntryId: text("ledger_entry_id"),
    /** The user who started the Checkout (null when the row was made from a webhook's metadata). */
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    succeededAt: tsz("succeeded_at"),
    /** Why a payment failed: Stripe's code (`card_declined`, `authentication_required`, …) and message. */
    failureCode: text("failure_code"),
    failureMessage: text("failure_message"),
  },
  (t) => [
    uniqueIndex("payments_checkout_session_uq").on(t.stripeCheckoutSessionId),
    // One auto top-up in flight per account, whatever the number of Calls or instances that cross the threshold at once.
    uniqueIndex("payments_auto_topup_in_flight_uq").on(t.accountId).where(sql`${t.kind} = 'auto_topup' AND ${t.status} = 'pending'`),
    uniqueIndex("payments_payment_intent_uq").on(t.stripePaymentIntentId),
    index("payments_charge_idx").on(t.stripeChargeId),
    index("payments_account_created_idx").on(t.accountId, t.createdAt.desc(), t.id.desc()),
    check("payments_amounts_positive", sql`${t.amountMinor} > 0 AND ${t.credits} > 0`),
    check("payments_grant_iff_succeeded", sql`(${t.status} = 'succeeded') = (${t.ledgerEntryId} IS NOT NULL)`),
  ],
);

/**
 * An account's auto top-up (lib/payments/auto-topup.ts): when the available balance falls below
 * `threshold_credits`, buy `amount_credits` with the card saved through Checkout in setup mode,
 * at most `daily_limit_credits` in any 24 hours. Three failed charges in a row pause it.
 */
export const autoTopups = pgTable(
  "auto_topups",
  {
    accountId: text("account_id")
      .primaryKey()
      .references(() => accounts.id),
    enabled: boolean("enabled").notNull().default(false),
    thresholdCredits: credits("threshold_credits"),
    amountCredits: credits("amount_credits"),
    dailyLimitCredits: credits("daily_limit_credits"),
    stripeCustomerId: text("stripe_customer_id"),
    paymentMethodId: text("payment_method_id"),
    cardBrand: text("card_brand"),
    cardLast4: text("card_last4"),
    cardExpMonth: integer("card_exp_month"),
    cardExpYear: integer("card_exp_year"),
    /** The Checkout session (setup mode) that saves the next card. */
    setupSessionId: text("setup_session_id"),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    pausedAt: tsz("paused_at"),
    lastFailureCode: text("last_failure_code"),
    lastFailureMessage: text("last_failure_message"),
    lastFailureAt: tsz("last_failure_at"),
    updatedBy: text("updated_by"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check(
      "auto_topups_settings",
      sql`(${t.thresholdCredits} IS NULL OR ${t.thresholdCredits} >= 0) AND (${t.amountCredits} IS NULL OR ${t.amountCredits} > 0)
          AND (${t.dailyLimitCredits} IS NULL OR ${t.dailyLimitCredits} >= ${t.amountCredits})
          AND (NOT ${t.enabled} OR (${t.thresholdCredits} IS NOT NULL AND ${t.amountCredits} IS NOT NULL AND ${t.dailyLimitCredits} IS NOT NULL))`,
    ),
    index("auto_topups_enabled_idx").on(t.accountId).where(sql`${t.enabled} AND ${t.pausedAt} IS NULL AND ${t.paymentMethodId} IS NOT NULL`),
  ],
);

/**
 * Money a payment gave back: a refund or a lost dispute, once per Stripe id. `credits` is what it
 * takes back (its share of the payment's credits); `credits_recovered` what the ledger's
 * `consume_payment_refund` rows (source_ref_id = this id) have taken so far. The rest is the
 * account's debt, which its next purchase settles first (docs/billing.md).
 *
 * A refund Stripe fails later (`refund.failed`) is undone once: `failed_at` set, what was taken given
 * back by one `grant_payment_recharge` row (source_ref_type `payment_reversal_undo`, source_ref_id
 * this id, named by `undo_ledger_entry_id`; none when nothing had been taken), and its debt no longer
 * owed. A refund that failed before it was reversed here is recorded already undone, with 0 credits.
 */
export const paymentReversals = pgTable(
  "payment_reversals",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    paymentId: text("payment_id")
      .notNull()
      .references(() => payments.id),
    kind: text("kind", { enum: reversalKinds }).notNull(),
    stripeId: text("stripe_id").notNull(),
    amountMinor: bigint("amount_minor", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    credits: credits("credits").notNull(),
    creditsRecovered: credits("credits_recovered").notNull().default("0"),
    /** The first reversal row (null while nothing could be taken yet). */
    ledgerEntryId: text("ledger_entry_id"),
    /** When Stripe failed the refund and the reversal was undone (null: it stands). */
    failedAt: tsz("failed_at"),
    /** The grant that gave back what the reversal had taken (null when it had taken nothing). */
    undoLedgerEntryId: text("undo_ledger_entry_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("payment_reversals_stripe_uq").on(t.stripeId),
    index("payment_reversals_payment_idx").on(t.paymentId),
    index("payment_reversals_debt_idx").on(t.accountId, t.createdAt).where(sql`${t.creditsRecovered} < ${t.credits} AND ${t.failedAt} IS NULL`),
    check("payment_reversals_amounts", sql`${t.amountMinor} >= 0 AND ${t.credits} >= 0 AND ${t.creditsRecovered} >= 0 AND ${t.creditsRecovered} <= ${t.credits}`),
    // An undone reversal names its undo grant exactly when it had taken something; a standing one has none.
    check(
      "payment_reversals_undo",
      sql`CASE WHEN ${t.failedAt} IS NULL THEN ${t.undoLedgerEntryId} IS NULL ELSE (${t.undoLedgerEntryId} IS NOT NULL) = (${t.creditsRecovered} > 0) END`,
    ),
  ],
);

/**
 * Every Stripe event the webhook accepted (signature checked), once by its id: a redelivery finds
 * its row (the insert is in the transaction of the event's effect), counts a replay and does
 * nothing again. `outcome` says what the event did (granted, duplicate_grant, reversed, refused_…).
 * What the event's object said of money (amount, currency, the credits its metadata asks, Stripe's
 * ids) is kept beside it, so a refused event is listed by the reconciliation as it came.
 */
export const stripeEvents = pgTable(
  "stripe_events",
  {
    eventId: text("event_id").primaryKey(),
    type: text("type").notNull(),
    accountId: text("account_id"),
    paymentId: text("payment_id"),
    outcome: text("outcome").notNull(),
    detail: text("detail"),
    /** The event's object: the Checkout session, payment intent, refund, charge or dispute (`cs_…`, `pi_…`, `re_…`, `ch_…`, `dp_…`). */
    stripeObjectId: text("stripe_object_id"),
    stripePaymentIntentId: text("stripe_payment_intent_id"),
    /** The money the object names, in its currency's minor unit. */
    amountMinor: bigint("amount_minor", { mode: "number" }),
    currency: text("currency"),
    /** The credits its Tollgate metadata asks for (null when it has none, or not a number of credits). */
    credits: credits("credits"),
    replays: integer("replays").notNull().default(0),
    receivedAt: tsz("received_at").notNull().defaultNow(),
    lastReplayedAt: tsz("last_replayed_at"),
  },
  (t) => [
    index("stripe_events_payment_idx").on(t.paymentId),
    // The reconciliation lists the refused events of a period.
    index("stripe_events_refused_idx").on(t.receivedAt).where(sql`${t.outcome} LIKE 'refused\\_%'`),
  ],
);

/**
 * The nightly reconciliation, one row per UTC day (lib/payments/reconcile-nightly.ts): the instance
 * whose insert (or takeover of a claim older than the lease) returns the row runs it; the others
 * find it claimed or finished. A lease, not a lock held in a transaction, because the run waits on
 * Stripe and the embedded database has one connection.
 */
export const paymentReconciliationRuns = pgTable("payment_reconciliation_runs", {
  day: date("day", { mode: "string" }).primaryKey(),
  claimedAt: tsz("claimed_at"),
  finishedAt: tsz("finished_at"),
  attempts: integer("attempts").notNull().default(1),
  lines: integer("lines"),
  unmatched: integer("unmatched"),
  notified: integer("notified"),
  error: text("error"),
});
