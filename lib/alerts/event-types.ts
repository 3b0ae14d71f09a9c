import type { NotificationKind } from "../db/schema/spend-controls";

/**
 * The webhook event type of each notification kind: shared vocabulary of the SQL that queues
 * deliveries, the API's schemas and the dashboard (type-only imports, so the browser bundle can take it).
 */
export const eventTypes = {
  low_balance: "balance.low",
  budget_threshold: "budget.threshold",
  budget_refusing: "budget.refusing",
  credits_expiring: "credits.expiring",
  payment_disputed: "payment.disputed",
  payment_dispute_lost: "payment.dispute_lost",
  payment_unmatched: "payment.unmatched",
  auto_topup_failed: "auto_topup.failed",
  auto_topup_limited: "auto_topup.limited",
  webhook_test: "webhook.test",
  connection_needs_reauth: "connection.needs_reauth",
} as const satisfies Record<NotificationKind, string>;
export type WebhookEventType = (typeof eventTypes)[NotificationKind];
export const webhookEventTypes = Object.values(eventTypes) as WebhookEventType[];
