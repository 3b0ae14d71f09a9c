import { resolveRange, type ResolvedRange } from "./date-range";
import type { AuditQuery } from "./audit-api";
import { buckets, type Bucket } from "./audit-vocab";
import { enumParam, pagingParams, type ParamReader } from "./url-state";

/**
 * The Usage page's filters are exactly the API's query parameters, kept in the page URL under the
 * same names, so a shared link reproduces the view and the CSV export sends the same filter.
 */
export const usageFilterParams = [
  "event_type",
  "channel",
  "kind",
  "success",
  "billable_success",
  "outcome",
  "reason_code",
  "has_execution_outcome",
  "charge_outcome",
  "anomaly",
  "search_id",
  "execution_id",
  "api_key_id",
  "min_credits",
  "max_credits",
  "account_id",
  "tool_id",
  "provider_id",
  "oauth_client_id",
  "model",
  "run_id",
] as const;
export type UsageFilterParam = (typeof usageFilterParams)[number];

/** Filters that arrive by link (a Spend group, an agent run) and show as chips that clear them. */
export const attributionUsageFilters: readonly UsageFilterParam[] = ["tool_id", "provider_id", "oauth_client_id", "model", "run_id"];

/** Filters that live behind "More filters" (the rest are always visible). */
export const advancedUsageFilters: readonly UsageFilterParam[] = [
  "event_type",
  "channel",
  "kind",
  "success",
  "billable_success",
  "outcome",
  "reason_code",
  "has_execution_outcome",
  "anomaly",
  "search_id",
  "execution_id",
  "api_key_id",
  "min_credits",
  "max_credits",
];

export interface UsageView {
  range: ResolvedRange;
  /** The filter part of every usage request: dates, tz and the filters. */
  filter: AuditQuery;
  page: number;
  pageSize: number;
  bucket: Bucket | undefined;
  /** The event open in the side panel. */
  eventId: string | null;
}

export function readUsageView(params: ParamReader, timeZone: string): UsageView {
  const range = resolveRange(params, timeZone);
  const filter: AuditQuery = { start_date: range.startDate, end_date: range.endDate, tz: timeZone };
  for (const name of usageFilterParams) filter[name] = params.get(name) ?? undefined;
  return {
    range,
    filter,
    ...pagingParams(params),
    bucket: enumParam(params, "bucket", buckets),
    eventId: params.get("event"),
  };
}

export function activeFilterCount(filter: AuditQuery, names: readonly string[]): number {
  return names.filter((name) => filter[name] !== undefined && filter[name] !== "").length;
}
