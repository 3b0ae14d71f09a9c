/** The closed vocabularies of the audit API (contract 2.4b, 2.6, 3, 7), for filters and badges. */
export const chargeOutcomes = ["charged", "included", "failed_not_charged", "failed_charged_review"] as const;
export type ChargeOutcome = (typeof chargeOutcomes)[number];

/** Chart colours per charge outcome (Tailwind palette values, so charts match the badges). */
export const chargeOutcomeColors: Record<ChargeOutcome, string> = {
  charged: "#4f46e5",
  included: "#10b981",
  failed_not_charged: "#a1a1aa",
  failed_charged_review: "#dc2626",
};

export function isChargeOutcome(value: unknown): value is ChargeOutcome {
  return typeof value === "string" && (chargeOutcomes as readonly string[]).includes(value);
}

export const eventTypes = ["search", "search_by_ids", "tool_execute", "capabilities_query", "model_call"] as const;
export const eventKinds = ["discover", "call", "model"] as const;
/** How requests arrived: REST or the MCP endpoint (usage events' `channel`). */
export const channels = ["api", "mcp"] as const;
export const anomalies = ["failed_charged_review", "missing_ledger_link", "missing_billing_snapshot"] as const;

export const reasonCodes = [
  "result.valid",
  "result.partial_success",
  "result.empty",
  "provider.error",
  "provider.http_error",
  "provider.rate_limited",
  "provider.auth_or_permission",
  "transport.timeout",
  "transport.no_response",
  "transport.execution_failed",
  "validation_error",
  "tool_unavailable",
  "region_restricted",
  "oauth_signin_required",
] as const;

export const ledgerEntryTypes = [
  "grant_payment_recharge",
  "grant_welcome_bonus",
  "grant_invitation_reward",
  "consume_tool_search",
  "consume_tool_execute",
  "consume_model_call",
  "consume_payment_refund",
  "expire_payment_recharge",
  "expire_welcome_bonus",
  "expire_invitation_reward",
  "refund_tool_execute",
] as const;
export const ledgerScopes = ["account_history"] as const;
export const ledgerDirections = ["consume", "grant", "any"] as const;
export const buckets = ["hour", "day", "week"] as const;
export type Bucket = (typeof buckets)[number];
