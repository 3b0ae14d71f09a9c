import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { analytic } from "./analytic";
import { creditsToNumber } from "../money";
import { type BoundedWindow, bucketPlan, rawRows, sealedHours, sealedPlan } from "./buckets";
import type { UsageSummary } from "./schemas";
import { type Bucket, chooseBucket } from "./time-window";
import { type UsageFilters, and, usageConditions } from "./usage-filters";
import { spendRollupConditions } from "./breakdown";
import { type UsageEventRecord, usageItem, usageItemColumns } from "./usage-items";

interface BucketRow {
  is_total: boolean;
  bucket_start: string | null;
  bucket_start_local: string | null;
  total: number;
  ok: number;
  charged: number;
  included: number;
  fnc: number;
  fcr: number;
  pre: string;
  settled: string;
}

/**
 * The usage summary of contract 2.7 for a bounded window, aggregated in SQL: sealed whole hours
 * come from `usage_hourly_rollup` (or `usage_spend_hourly` for the attribution filters), the rest (partial edge hours, the unsealed last hour or so, hours
 * cut by a bucket boundary of a half-hour time zone, and filters the rollup cannot answer) from
 * the events themselves.
 */
export async function usageSummary(
  db: Db,
  accountId: string,
  w: BoundedWindow,
  filters: UsageFilters,
  opts: { bucket?: Bucket; limit: number },
): Promise<UsageSummary> {
  const bucket = chooseBucket(opts.bucket, { start: w.startDate, end: w.endDate });
  const plan = bucketPlan(w, bucket);
  // The summary's rollup answers most filters; the attribution filters (tool, provider, client,
  // model, run, channel) are answered by the spend rollup, which has those dimensions.
  const summaryFilters = usageConditions(filters, "rollup");
  const spendFilters = summaryFilters ? null : spendRollupConditions(filters, "r");
  const rollupFilters = summaryFilters ?? spendFilters;
  const rollupTable = sql.raw(summaryFilters ? "usage_hourly_rollup" : "usage_spend_hourly");
  const eventFilters = usageConditions(filters, "events")!;
  const sealed = rollupFilters ? await sealedPlan(db, accountId, w, bucket) : null;
  const rollupPart = sealed
    ? sql`SELECT ${plan.key(sql.raw("r.hour_start"))} AS b, r.event_count AS n, r.success, r.charge_outcome,
                 r.pre_settlement_credits AS pre, r.settled_credits AS settled
            FROM ${rollupTable} r
           WHERE r.account_id = ${accountId} AND ${sealedHours(sealed)} AND ${and(rollupFilters!)}
          UNION ALL`
    : sql``;
  const result = await analytic<BucketRow>(
    db,
    sql`
    WITH parts AS (
      ${rollupPart}
      SELECT ${plan.key(sql.raw("e.created_at"))} AS b, 1 AS n, e.success, e.charge_outcome, e.pre_settlement_amount_credits AS pre,
             e.settled_amount_credits AS settled
        FROM usage_events e
       WHERE e.account_id = ${accountId} AND ${rawRows(sql.raw("e.created_at"), w, sealed)} AND ${and(eventFilters)}
    ), agg AS (
      SELECT b, grouping(b) = 1 AS is_total, sum(n) AS total, coalesce(sum(n) FILTER (WHERE success), 0) AS ok,
             coalesce(sum(n) FILTER (WHERE charge_outcome = 'charged'), 0) AS charged,
             coalesce(sum(n) FILTER (WHERE charge_outcome = 'included'), 0) AS included,
             coalesce(sum(n) FILTER (WHERE charge_outcome = 'failed_not_charged'), 0) AS fnc,
             coalesce(sum(n) FILTER (WHERE charge_outcome = 'failed_charged_review'), 0) AS fcr,
             sum(pre) AS pre, sum(settled) AS settled
        FROM parts GROUP BY GROUPING SETS ((b), ())
    )
    SELECT false AS is_total, ${plan.labels}, coalesce(a.total, 0)::float8 AS total, coalesce(a.ok, 0)::float8 AS ok,
           coalesce(a.charged, 0)::float8 AS charged, coalesce(a.included, 0)::float8 AS included, coalesce(a.fnc, 0)::float8 AS fnc,
           coalesce(a.fcr, 0)::float8 AS fcr, coalesce(a.pre, 0)::text AS pre, coalesce(a.settled, 0)::text AS settled
      FROM (${plan.series}) s LEFT JOIN agg a ON a.b = s.b AND NOT a.is_total
    UNION ALL
    SELECT true, null, null, coalesce(total, 0)::float8, ok::float8, charged::float8, included::float8, fnc::float8, fcr::float8,
           coalesce(pre, 0)::text, coalesce(settled, 0)::text
      FROM agg WHERE is_total
    ORDER BY 1, 2`,
  );
  const all = result;
  const total = all.find((r) => r.is_total);
  const maxItems = opts.limit > 0 ? await maxChargeItems(db, accountId, w, filters, opts.limit) : [];
  return {
    start_date: w.startDate.toISOString(),
    end_date: w.endDate.toISOString(),
    tz: w.tz,
    bucket,
    total_count: total?.total ?? 0,
    success_count: total?.ok ?? 0,
    failure_count: (total?.total ?? 0) - (total?.ok ?? 0),
    charge_outcome_counts: {
      charged: total?.charged ?? 0,
      included: total?.included ?? 0,
      failed_not_charged: total?.fnc ?? 0,
      failed_charged_review: total?.fcr ?? 0,
    },
    pre_settlement_credits: creditsToNumber(total?.pre ?? "0"),
    settled_credits: creditsToNumber(total?.settled ?? "0"),
    max_charge_items: maxItems,
    buckets: all
      .filter((r) => !r.is_total)
      .map((r) => ({
        bucket_start: r.bucket_start!,
        bucket_start_local: r.bucket_start_local!,
        total_count: r.total,
        success_count: r.ok,
        failure_count: r.total - r.ok,
        charged_count: r.charged,
        included_count: r.included,
        failed_not_charged_count: r.fnc,
        failed_charged_review_count: r.fcr,
        pre_settlement_credits: creditsToNumber(r.pre),
        settled_credits: creditsToNumber(r.settled),
      })),
  };
}

/**
 * The window's largest charges, newest first among equal amounts (a partial index serves it). The
 * items' columns are computed over the limited rows, so their subqueries probe per row.
 */
async function maxChargeItems(db: Db, accountId: string, w: BoundedWindow, filters: UsageFilters, limit: number) {
  const largestFirst = sql.raw("ORDER BY e.actual_amount_credits DESC NULLS LAST, e.created_at DESC NULLS LAST");
  const result = await db.execute(sql`
    SELECT ${usageItemColumns(false)} FROM (
      SELECT e.* FROM usage_events e
       WHERE e.account_id = ${accountId} AND e.actual_amount_credits > 0
         AND e.created_at >= ${w.start}::timestamptz AND e.created_at < ${w.end}::timestamptz
         AND ${and(usageConditions(filters, "events")!)}
       ${largestFirst} LIMIT ${limit}) e
     ${largestFirst}`);
  return rows<UsageEventRecord>(result).map((r) => usageItem(r, false));
}
