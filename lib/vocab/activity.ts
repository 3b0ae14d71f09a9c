/**
 * The activity log's closed vocabularies: who can act and what they can do. A module that imports
 * nothing, so the database code, the API's schemas and the dashboard's pages (browser side) all
 * take the same lists from here.
 */

export const actorTypes = ["user", "api_key", "operator", "support", "system"] as const;
export type ActorType = (typeof actorTypes)[number];

export const activityActions = [
  "api_key.created",
  "api_key.revoked",
  "budget.set",
  "budget.removed",
  "alerts.updated",
  "webhook.created",
  "webhook.removed",
  "member.invited",
  "invitation.revoked",
  "member.joined",
  "member.role_changed",
  "member.removed",
  "refund.created",
  "credits.granted",
  "credits.expired",
  "credits.reversed",
  "credits.reversal_undone",
  "payment.started",
  "auto_topup.updated",
  "auto_topup.card_saved",
  "auto_topup.card_removed",
  "auto_topup.started",
  "auto_topup.failed",
  "auto_topup.paused",
  "user.signed_in",
  "user.sign_in_failed",
  "two_factor.enabled",
  "two_factor.disabled",
  "two_factor.reset",
  "two_factor.required",
  "support.accessed",
  "connection.connected",
  "connection.reconnected",
  "connection.disconnected",
  "connection.needs_reauth",
  "connection.policy_set",
  "account.region_set",
] as const;
export type ActivityAction = (typeof activityActions)[number];
