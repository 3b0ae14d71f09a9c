/**
 * Payments through Stripe (docs/billing.md, Buying credits): the closed vocabularies the payments
 * tables, the API's schemas, the CLI and the dashboard share. Imports nothing.
 */

/** A payment's life: `pending` until Stripe's signed webhook says it was paid (then `succeeded`, with its grant), or its Checkout session expired or its payment failed. */
export const paymentStatuses = ["pending", "succeeded", "failed", "expired"] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

/** How a payment was started: an owner on Stripe Checkout, or auto top-up charging the account's saved card off-session. */
export const paymentKinds = ["checkout", "auto_topup"] as const;
export type PaymentKind = (typeof paymentKinds)[number];

/**
 * Auto top-up's state (docs/billing.md, Auto top-up): `off` (not enabled), `needs_card` (enabled
 * settings wait for a saved card), `active`, or `paused` after three failed charges in a row (an
 * owner resumes it by saving a card or enabling it again).
 */
export const autoTopupStates = ["off", "needs_card", "active", "paused"] as const;
export type AutoTopupState = (typeof autoTopupStates)[number];

/** Failures after which auto top-up pauses itself rather than keep charging a card that fails. */
export const AUTO_TOPUP_MAX_FAILURES = 3;

/** What took a payment's money back: a refund (by its `re_…` id) or a dispute the operator lost (`dp_…`). */
export const reversalKinds = ["refund", "dispute_lost"] as const;
export type ReversalKind = (typeof reversalKinds)[number];

/**
 * A reconciliation line's status (docs/billing.md, Reconciliation): `refused_event` is a Stripe event
 * the webhook refused (another price, currency, account or mode), kept for the operator; the last is
 * payouts' and Stripe's fees', which have no ledger side.
 */
export const reconcileStatuses = ["matched", "missing_in_ledger", "missing_in_stripe", "amount_differs", "refused_event", "no_ledger_side"] as const;
export type ReconcileStatus = (typeof reconcileStatuses)[number];

/** What a reconciliation line is: Stripe's balance transaction types as Tollgate matches them (`refund_failure`: a refund Stripe failed gave its money back). */
export const reconcileKinds = ["charge", "refund", "refund_failure", "dispute_loss", "payout", "fee", "other"] as const;
export type ReconcileKind = (typeof reconcileKinds)[number];
