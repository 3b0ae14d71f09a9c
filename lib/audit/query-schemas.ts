import { z } from "@hono/zod-openapi";
import { chargeOutcomes, ledgerEntryTypes, usageChannels, usageEventTypes } from "../db/schema";
import { type LedgerFilters, ledgerScopes, parseDirection } from "./ledger-filters";
import { type UsageFilters, anomalies, parseCreditBounds, usageKinds } from "./usage-filters";

/**
 * Query parameters of the audit endpoints, written once for validation, types and the OpenAPI
 * description. Type errors (a non-number page, an unknown enum value) are 422 HTTPValidationError;
 * the contract's 400 -7 cases (dates, bucket, direction, invalid or negative credit bounds, tz) are
 * checked by the domain code so they answer with the -7 wrapper and its message.
 */

/** A boolean query parameter: `true` or `false` (also `1`, `0`), published as a boolean so generated clients send one. */
const bool = z.stringbool({ truthy: ["true", "1"], falsy: ["false", "0"] }).openapi({ type: "boolean" });
/** A flag that is off unless sent (the generator drops a default set before `.openapi`, so it is stated again). */
const flag = (description: string) => bool.default(false).openapi({ type: "boolean", default: false, description });
const intIn = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
/** A credit bound: its format and sign are checked by `parseCreditBounds`, so a bad one is a 400 -7. */
const creditBound = z.string().max(64);

const date = (what: string) =>
  z.string().max(64).optional().openapi({ description: `${what}: YYYY-MM-DD or an ISO-8601 datetime (a datetime without offset is read in tz)` });

export const TZ_DESCRIPTION =
  "Extension: an IANA time zone (default UTC). It sets bucket boundaries and the meaning of date-only and offset-less dates, and is echoed in the summary.";

export const accountId = z
  .string()
  .max(64)
  .optional()
  .openapi({
    description:
      "Support users only: the account to read (`acc_…`). Without it, a support user's read of a specific execution_id, search_id, event or ledger id is answered from the account owning it. Each such cross-account read is recorded in the support access log. Other users get 403 for another account.",
  });

/** Spend attribution filters (extension), shared with the breakdown. */
export const attributionFilterFields = {
  tool_id: z.string().min(1).max(200).optional().openapi({ description: "Extension: events of this tool" }),
  provider_id: z.string().min(1).max(200).optional().openapi({ description: "Extension: events of this provider's tools" }),
  oauth_client_id: z.string().min(1).max(200).optional().openapi({ description: "Extension: events made with tokens of this OAuth client (agents' delegation tokens)" }),
  model: z.string().min(1).max(128).optional().openapi({ description: "Extension: events whose Call named this model" }),
  run_id: z.string().min(1).max(128).optional().openapi({ description: "Extension: events of this agent run (a delegation token's run_id)" }),
};

const usageFilterFields = {
  start_date: date("Start of the window (inclusive)"),
  end_date: date("End of the window (inclusive; a date-only end_date covers that whole day)"),
  event_type: z.enum(usageEventTypes).optional(),
  channel: z.enum(usageChannels).optional().openapi({ description: "Extension: how the requests arrived, `api` (REST) or `mcp` (the MCP endpoint)" }),
  kind: z.enum(Object.keys(usageKinds) as [keyof typeof usageKinds, ...(keyof typeof usageKinds)[]]).optional().openapi({
    description: "discover = search + search_by_ids; call = tool_execute + capabilities_query; model = model_call",
  }),
  success: bool.optional().openapi({ description: "Recorded success flag" }),
  billable_success: bool.optional().openapi({ description: "Billing-side success flag" }),
  outcome: z.string().max(64).optional().openapi({ description: "Normalised execution_outcome.outcome" }),
  reason_code: z.string().max(64).optional(),
  has_execution_outcome: bool.optional(),
  charge_outcome: z.enum(chargeOutcomes).optional(),
  anomaly: z.enum(anomalies).optional().openapi({ description: "Computed on read: failed_charged_review, missing_ledger_link (charged event without ledger row), missing_billing_snapshot (tool_execute event whose billing snapshot was not captured)" }),
  search_id: z.string().min(1).max(200).optional(),
  execution_id: z.string().min(1).max(200).optional(),
  api_key_id: z.guid().optional(),
  ...attributionFilterFields,
  min_credits: creditBound.optional().openapi({ description: "Lower bound (>= 0) on actual_amount_credits" }),
  max_credits: creditBound.optional().openapi({ description: "Upper bound (>= 0) on actual_amount_credits" }),
  tz: z.string().max(64).optional().openapi({ description: TZ_DESCRIPTION }),
  account_id: accountId,
};

export const UsageFilterQuery = z.object(usageFilterFields);

export const UsageListQuery = z.object({
  ...usageFilterFields,
  page: intIn(1, 10_000_000).default(1),
  page_size: intIn(1, 50_000).default(50).openapi({ description: "1 to 50000, default 50; applies when limit is absent" }),
  include_details: flag("Return request_payload and response_payload_summary in list items"),
  summary: flag("Return the 2.7 usage summary; without dates it covers the last 24 hours"),
  bucket: z.string().max(16).optional().openapi({ description: "hour, day or week; automatic: day when the window exceeds 3 days, else hour" }),
  limit: z.coerce.number().int().min(1).optional().openapi({ description: "1 to 50 (larger values are capped at 50): overrides page_size and the summary sample (default 10)" }),
});

export const UsageFeedQuery = z.object({
  ...usageFilterFields,
  cursor: z.string().max(512).optional().openapi({ description: "next_cursor of the previous page" }),
  page_size: intIn(1, 500).default(100),
});

export const UsageExportQuery = z.object({
  ...usageFilterFields,
  include_details: flag("Add request_payload and response_payload_summary columns"),
});

export const CreditsSpentQuery = z.object({
  start_date: usageFilterFields.start_date,
  end_date: usageFilterFields.end_date,
  kind: usageFilterFields.kind,
  charge_outcome: usageFilterFields.charge_outcome,
  tz: usageFilterFields.tz,
  account_id: accountId,
});

export function usageFilters(q: z.infer<typeof UsageFilterQuery>): UsageFilters {
  return {
    eventType: q.event_type,
    channel: q.channel,
    kind: q.kind,
    success: q.success,
    billableSuccess: q.billable_success,
    outcome: q.outcome,
    reasonCode: q.reason_code,
    hasExecutionOutcome: q.has_execution_outcome,
    chargeOutcome: q.charge_outcome,
    anomaly: q.anomaly,
    searchId: q.search_id,
    executionId: q.execution_id,
    apiKeyId: q.api_key_id,
    ...attributionFilters(q),
    ...parseCreditBounds(q.min_credits, q.max_credits),
  };
}

export function attributionFilters(q: { tool_id?: string; provider_id?: string; oauth_client_id?: string; model?: string; run_id?: string }): Partial<UsageFilters> {
  return { toolId: q.tool_id, providerId: q.provider_id, oauthClientId: q.oauth_client_id, model: q.model, runId: q.run_id };
}

const ledgerFilterFields = {
  start_date: usageFilterFields.start_date,
  end_date: usageFilterFields.end_date,
  entry_type: z.enum(ledgerEntryTypes).optional().openapi({ description: "Exact ledger entry type" }),
  scope: z.enum(Object.keys(ledgerScopes) as [keyof typeof ledgerScopes, ...(keyof typeof ledgerScopes)[]]).optional().openapi({
    description:
      "account_history = grant_payment_recharge, consume_tool_search, consume_tool_execute, consume_model_call; expiry = expire_payment_recharge, expire_welcome_bonus, expire_invitation_reward (extension); all = every type (extension)",
  }),
  direction: z.string().max(16).optional().openapi({ description: "consume (negative), grant (positive) or any (default)" }),
  min_credits: creditBound.optional().openapi({ description: "Absolute lower bound (>= 0): min_credits=5 matches -5 and +5" }),
  max_credits: creditBound.optional().openapi({ description: "Absolute upper bound (>= 0)" }),
  tz: usageFilterFields.tz,
  account_id: accountId,
};

export const LedgerListQuery = z.object({
  ...ledgerFilterFields,
  page: intIn(1, 10_000_000).default(1),
  page_size: intIn(1, 500).default(50),
  summary: flag("Return the 2.7 ledger summary; without dates it covers the last 24 hours"),
  bucket: z.string().max(16).optional().openapi({ description: "hour, day or week; automatic: day when the window exceeds 3 days, else hour" }),
  limit: z.coerce.number().int().min(1).optional().openapi({ description: "1 to 50 (capped): overrides page_size and the summary sample (default 10)" }),
});

export const LedgerExportQuery = z.object(ledgerFilterFields);

export function ledgerFilters(q: { entry_type?: LedgerFilters["entryType"]; scope?: LedgerFilters["scope"]; direction?: string; min_credits?: string; max_credits?: string }): LedgerFilters {
  return {
    entryType: q.entry_type,
    scope: q.scope,
    direction: parseDirection(q.direction),
    ...parseCreditBounds(q.min_credits, q.max_credits),
  };
}

export const ReadinessQuery = z.object({
  start_date: usageFilterFields.start_date,
  end_date: usageFilterFields.end_date,
  tz: usageFilterFields.tz,
  account_id: accountId,
});

export const SettlementHistoryQuery = z.object({
  start_date: z.string().max(64).optional().openapi({ description: "First UTC day (YYYY-MM-DD, or a datetime: its UTC day)" }),
  end_date: z.string().max(64).optional().openapi({ description: "Last UTC day, inclusive" }),
  scope: ledgerFilterFields.scope.default("account_history"),
  cursor: z.string().max(512).optional(),
  page_size: intIn(1, 500).default(100),
  account_id: accountId,
});

export const LookupQuery = z.object({
  id: z.string().min(1).max(200).openapi({ description: "An execution_id, search_id, usage event id, ledger entry id or session_id" }),
  account_id: accountId,
});
