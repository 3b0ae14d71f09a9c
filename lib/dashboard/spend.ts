import type { z } from "zod";
import type { BreakdownSchema } from "../audit/breakdown-schemas";
import { apiData } from "./api-client";
import { clean, type AuditQuery } from "./audit-api";
import { resolveRange, type ResolvedRange } from "./date-range";
import { addDays, todayIn } from "./format";
import { enumParam, type ParamReader } from "./url-state";

/**
 * Spend attribution as the dashboard reads it: `GET /auth/usage/breakdown` (JWT), its group-by
 * dimensions and the Usage filter that narrows the list to one group. Types come from the API's
 * own response schema.
 */
export type Breakdown = z.infer<typeof BreakdownSchema>;
export type BreakdownGroup = Breakdown["groups"][number];

/** Kept in the same order as the API's `breakdownDimensions` (lib/audit/breakdown.ts). */
export const spendDimensions = ["tool", "provider", "api_key", "oauth_client", "model", "run_id", "channel", "charge_outcome"] as const;
export type SpendDimension = (typeof spendDimensions)[number];
export const DEFAULT_DIMENSION: SpendDimension = "tool";

export const spendBuckets = ["hour", "day", "week", "month"] as const;
export type SpendBucket = (typeof spendBuckets)[number];

/** How many groups the page asks for; the rest come back summed as "other". */
export const spendLimits = [10, 20, 50] as const;
export const DEFAULT_SPEND_LIMIT = 10;

/** The Usage list's parameter that selects one group of a dimension (the API's own names). */
export const usageParamOf: Record<SpendDimension, string> = {
  tool: "tool_id",
  provider: "provider_id",
  api_key: "api_key_id",
  oauth_client: "oauth_client_id",
  model: "model",
  run_id: "run_id",
  channel: "channel",
  charge_outcome: "charge_outcome",
};

/** The breakdown's filters a Spend URL may carry (a drill-down from a group), under the API's names. */
export const spendFilterParams = ["tool_id", "provider_id", "api_key_id", "oauth_client_id", "model", "run_id", "channel", "charge_outcome", "account_id"] as const;

export const breakdownQueryKey = (query: AuditQuery) => ["usage", "breakdown", query] as const;

export function fetchBreakdown(query: AuditQuery, signal?: AbortSignal): Promise<Breakdown> {
  return apiData<Breakdown>("/auth/usage/breakdown", { query: clean(query), signal });
}

/**
 * The chart's bucket when the URL does not name one: hours for a day or two, days up to about
 * two months, weeks up to a year, months beyond (so a chart stays under ~100 bars).
 */
export function autoSpendBucket(range: ResolvedRange, today: string): SpendBucket {
  const start = range.startDate ?? addDays(today, -29);
  const end = range.endDate ?? today;
  const days = Math.round((Date.parse(`${end.slice(0, 10)}T00:00:00Z`) - Date.parse(`${start.slice(0, 10)}T00:00:00Z`)) / 86_400_000) + 1;
  if (days <= 2) return "hour";
  if (days <= 62) return "day";
  if (days <= 366) return "week";
  return "month";
}

/** "2026-11-01": the first day of `today`'s month (YYYY-MM-DD). */
export function monthStart(today: string): string {
  return `${today.slice(0, 7)}-01`;
}

export interface SpendView {
  range: ResolvedRange;
  dimension: SpendDimension;
  /** The chart's bucket: the URL's, else one that suits the window. */
  bucket: SpendBucket;
  bucketFromUrl: boolean;
  limit: number;
  /** The window and the drill-down filters, as the Usage list takes them too. */
  filter: AuditQuery;
  /** The breakdown request (and its CSV export): the filter plus group_by, bucket and limit. */
  query: AuditQuery;
}

/** The Spend page's state from its URL: `group_by`, the range (30 days by default), `bucket`, `limit`, `tz` and the filters. */
export function readSpendView(params: ParamReader, timeZone: string, now: Date = new Date()): SpendView {
  const range = resolveRange(params, timeZone, now, "30d");
  const dimension = enumParam(params, "group_by", spendDimensions) ?? DEFAULT_DIMENSION;
  const urlBucket = enumParam(params, "bucket", spendBuckets);
  const bucket = urlBucket ?? autoSpendBucket(range, todayIn(timeZone, now));
  const rawLimit = Number(params.get("limit"));
  const limit = (spendLimits as readonly number[]).includes(rawLimit) ? rawLimit : DEFAULT_SPEND_LIMIT;
  const filter: AuditQuery = { start_date: range.startDate, end_date: range.endDate, tz: timeZone };
  for (const name of spendFilterParams) filter[name] = params.get(name) ?? undefined;
  return { range, dimension, bucket, bucketFromUrl: urlBucket !== undefined, limit, filter, query: { ...filter, group_by: dimension, bucket, limit: String(limit) } };
}

/**
 * The Usage page narrowed to one group, over the same window and filters: the link of a Spend
 * row. Null for a group that Usage cannot select (no value: e.g. the tool of a search).
 */
export function usageHrefForGroup(view: SpendView, params: ParamReader, group: BreakdownGroup): string | null {
  const value = group.key[view.dimension];
  if (group.other || value === null || value === undefined) return null;
  const qs = new URLSearchParams();
  qs.set("range", view.range.preset);
  for (const name of ["start_date", "end_date", "tz"]) {
    const v = params.get(name);
    if (v) qs.set(name, v);
  }
  for (const name of spendFilterParams) if (view.filter[name]) qs.set(name, view.filter[name]!);
  qs.set(usageParamOf[view.dimension], value);
  return `/usage?${qs.toString()}`;
}
