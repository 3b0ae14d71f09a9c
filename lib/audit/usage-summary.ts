import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { analytic } from "./analytic";
import { creditsToNumber } from "../money";
import { type BoundedWindow, bucketPlan, rawRows, sealedHours, sealedPlan } from "./buckets";
import type { UsageSummary } from "./schemas";
import { ensureSealed } from "./seal";
import { spendDays, spendDimConditions, spendDimOf } from "./spend-rollup";
import { type Bucket, chooseBucket, inWindow, rawRemainder } from "./time-window";
import { type UsageFilters, and, usageConditions } from "./usage-filters";
import { outcomeCounts } from "./usage-rollup";
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
 * come from `usage_hourly_totals` without filters, from `usage_hourly_rollup` with them (or whole
 * UTC days from `usage_spend_day` for an attribution filter), the rest (partial edge hours, the unsealed last hour or so, hours
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
  // The summary's rollup answers most filters; one attribution filter (tool, provider, key, client,
  // model, run, channel) is answered by the spend rollup's whole UTC days when the buckets are
  // whole UTC days too; anything else is counted from the events.
  const summaryFilters = usageConditions(filters, "rollup");
  const eventFilters = usageConditions(filters, "events")!;
  const col = sql.raw("e.created_at");
  let rollupPart = sql``;
  let rawPart = sql`${inWindow(col, w.start, w.end)}`;
  if (summaryFilters) {
    const sealed = await sealedPlan(db, accountId, w, bucket);
    if (sealed && summaryFilters.length === 0) {
      // No filter: one row per hour, every dimension summed.
      rollupPart = sql`
        SELECT ${plan.key(sql.raw("r.hour_start"))} AS b, r.event_count AS n, r.succeeded_count AS ok, ${outcomeCounts((o) => `r.${o}_count`)},
               r.pre_settlement_credits AS pre, r.settled_credits AS settled
          FROM usage_hourly_totals r
         WHERE r.account_id = ${accountId} AND ${sealedHours(sealed)}
        UNION ALL`;
    } else if (sealed) {
      rollupPart = sql`
        SELECT ${plan.key(sql.raw("r.hour_start"))} AS b, r.event_count AS n, CASE WHEN r.success THEN r.event_count ELSE 0 END AS ok,
               ${outcomeCounts((o) => `CASE WHEN r.charge_outcome = '${o}' THEN r.event_count ELSE 0 END`)},
               r.pre_settlement_credits AS pre, r.settled_credits AS settled
          FROM usage_hourly_rollup r
         WHERE r.account_id = ${accountId} AND ${sealedHours(sealed)} AND ${and(summaryFilters)}
        UNION ALL`;
    }
    if (sealed) rawPart = rawRows(col, w, sealed);
  } else {
    const dim = w.tz === "UTC" && bucket !== "hour" ? spendDimOf([], filters) : null;
    if (dim) await ensureSealed(db, accountId, w);
    const days = dim ? spendDays(w) : null;
    if (dim && days) {
      rollupPart = sql`
        SELECT ${plan.key(sql.raw("r.day_start"))} AS b, r.event_count AS n, r.succeeded_count AS ok, ${outcomeCounts((o) => `r.${o}_count`)},
               r.pre_settlement_credits AS pre, r.settled_credits AS settled
          FROM usage_spend_day r
         WHERE ${and([...spendDimConditions(accountId, dim, filters), inWindow(sql.raw("r.day_start"), days.lo, days.hi)])}
        UNION ALL`;
      rawPart = rawRemainder(col, w, days);
    }
  }
  const result = await analytic<BucketRow>(
    db,
    sql`
    WITH parts AS (
      ${rollupPart}
      SELECT ${plan.key(col)} AS b, 1 AS n, e.success::int AS ok,
             ${outcomeCounts((o) => `(e.charge_outcome = '${o}')::int`)},
             e.pre_settlement_amount_credits AS pre, e.settled_amount_credits AS settled
        FROM usage_events e
       WHERE e.account_id = ${accountId} AND ${rawPart} AND ${and(eventFilters)}
    ), agg AS (
      SELECT b, grouping(b) = 1 AS is_total, sum(n) AS total, sum(ok) AS ok, sum(charged) AS charged, sum(included) AS included,
             sum(fnc) AS fnc, sum(fcr) AS fcr, sum(pre) AS pre, sum(settled) AS settled
        FROM parts GROUP BY GROUPING SETS ((b), ())
    )
    SELECT false AS is_total, ${plan.labels}, coalesce(a.total, 0)::float8 AS total, coalesce(a.ok, 0)::float8 AS ok,
           coalesce(a.charged, 0)::float8 AS charged, coalesce(a.included, 0)::float8 AS included, coalesce(a.fnc, 0)::float8 AS fnc,
           coalesce(a.fcr, 0)::float8 AS fcr, coalesce(a.pre, 0)::text AS pre, coalesce(a.settled, 0)::text AS settled
      FROM (${plan.series}) s LEFT JOIN agg a ON a.b = s.b AND NOT a.is_total
    UNION ALL
    SELECT true, null, null, coalesce(total, 0)::float8, coalesce(ok, 0)::float8, coalesce(charged, 0)::float8, coalesce(included, 0)::float8,
           coalesce(fnc, 0)::float8, coalesce(fcr, 0)::float8, coalesce(pre, 0)::text, coalesce(settled, 0)::text
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
