import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { beforeHour, spendDays, spendDimConditions, spendDimOf } from "./spend-rollup";
import { type TimeWindow, inWindow, sealedSpan, wholeDays } from "./time-window";
import { type UsageFilters, and, usageConditions } from "./usage-filters";

const HOUR = 3_600_000;
/** Beyond this many hours the page is deep; the plain walk of the list index is then as good. */
const MAX_HOURS = 200;

/** [from, to): instants; null = unbounded. */
export type WalkRange = [Date | null, Date | null];

/**
 * Filters without an index of their own — event type, kind, reason code, API key, outcome, the
 * success flags, a common charge outcome — are answered by the list index (account, created_at,
 * id) walked newest first. For a rare value that walk would read the account's history; the sealed
 * rollups know which hours hold a match, so a page visits only those hours (and the raw remainder
 * the rollups do not cover): its cost depends on the page, not on how long the account has lived.
 *
 * Returns the time ranges to visit, newest first — the unsealed tail, then the sealed hours with a
 * match until they hold `need` events, then the partial first hour of the window — or null when
 * the filter has an index of its own, the rollups cannot answer it, or the page is deep.
 */
export async function guidedRanges(db: Db, accountId: string, w: TimeWindow, f: UsageFilters, need: number): Promise<WalkRange[] | null> {
  if (!walksListIndex(f)) return null;
  const summary = usageConditions(f, "rollup");
  const dim = summary ? null : spendDimOf([], f);
  const found = summary ? summaryHours(accountId, w, summary, need) : dim ? spendHours(accountId, w, spendDimConditions(accountId, dim, f), need) : null;
  if (!found) return null;
  const { lo, hi, parts } = found;
  const hours = rows<{ hour_start: Date | string; before: number }>(
    await db.execute(sql`
      SELECT hour_start, before FROM (
        SELECT h.hour_start, (sum(h.n) OVER (ORDER BY h.hour_start DESC) - h.n)::float8 AS before
          FROM (${sql.join(parts, sql` UNION ALL `)}) h) x
       WHERE x.before < ${need}
       ORDER BY hour_start DESC`),
  );
  if (hours.length > MAX_HOURS) return null;

  const ranges: WalkRange[] = [];
  const end = w.endDate;
  if (end === null || end.getTime() > hi.getTime()) ranges.push([hi, end]);
  for (const h of hours) {
    const from = new Date(h.hour_start);
    ranges.push([from, new Date(from.getTime() + HOUR)]);
  }
  // The part of the window before the first whole sealed hour (a start in the middle of an hour).
  if (lo !== null && w.startDate !== null && w.startDate.getTime() < lo.getTime()) ranges.push([w.startDate, lo]);
  return ranges;
}

/** Sealed hours with a match: [lo, hi) and the SELECTs of (hour_start, n) that list them. */
interface MatchingHours {
  lo: Date | null;
  hi: Date;
  parts: SQL[];
}

/**
 * From the summary's rollups: whole UTC days of the sealed span from the daily rollup first (a
 * year is ~365 x a few rows), and only the newest days that can hold the page opened into hours.
 */
function summaryHours(accountId: string, w: TimeWindow, conditions: SQL[], need: number): MatchingHours | null {
  const span = sealedSpan(w);
  if (!span) return null;
  const { lo, hi } = span;
  const { lo: dayLo, hi: dayHi } = wholeDays(span);
  const where = and(conditions);
  const hour = sql.raw("r.hour_start");
  const edgeHours = (from: Date | null, to: Date) => sql`
    SELECT r.hour_start, sum(r.event_count) AS n FROM usage_hourly_rollup r
     WHERE r.account_id = ${accountId} AND ${inWindow(hour, from, to)} AND ${where} GROUP BY r.hour_start`;
  if (dayLo !== null && dayLo >= dayHi) return { lo, hi, parts: [edgeHours(lo, hi)] };
  const parts = [edgeHours(dayHi, hi)];
  if (lo !== null && dayLo !== null && dayLo > lo) parts.push(edgeHours(lo, dayLo));
  parts.push(sql`
    SELECT r.hour_start, sum(r.event_count) AS n
      FROM (${newestDays(sql`
              SELECT r.day_start, sum(r.event_count) AS n FROM usage_daily_rollup r
               WHERE r.account_id = ${accountId} AND ${inWindow(sql.raw("r.day_start"), dayLo, dayHi)} AND ${where} GROUP BY r.day_start`, need)}) p
      JOIN usage_hourly_rollup r ON r.account_id = ${accountId} AND r.hour_start >= p.day_start AND r.hour_start < p.day_start + interval '1 day'
     WHERE ${where}
     GROUP BY r.hour_start`);
  return { lo, hi, parts };
}

/**
 * From the spend rollup (one dimension): its whole UTC days, and the newest that can hold the page
 * opened into hours by their running sums. The sealed hours of today are walked with the tail.
 */
function spendHours(accountId: string, w: TimeWindow, conditions: SQL[], need: number): MatchingHours | null {
  const days = spendDays(w);
  if (!days) return null;
  const where = and(conditions);
  const hr = sql.raw("x.hr");
  return {
    lo: days.lo,
    hi: days.hi,
    parts: [
      sql`
      SELECT r.day_start + make_interval(hours => x.hr) AS hour_start, sum(${beforeHour("events", sql`${hr} + 1`)} - ${beforeHour("events", hr)}) AS n
        FROM (${newestDays(sql`
                SELECT r.day_start, sum(r.event_count) AS n FROM usage_spend_day r
                 WHERE ${where} AND ${inWindow(sql.raw("r.day_start"), days.lo, days.hi)} GROUP BY r.day_start`, need)}) p
        JOIN usage_spend_day r ON r.day_start = p.day_start AND ${where}
        CROSS JOIN generate_series(0, 23) x(hr)
       GROUP BY 1
      HAVING sum(${beforeHour("events", sql`${hr} + 1`)} - ${beforeHour("events", hr)}) > 0`,
    ],
  };
}

/** The newest days of `perDay` (day_start, n) that can hold the page: those with fewer than `need` events after them. */
function newestDays(perDay: SQL, need: number): SQL {
  return sql`SELECT day_start FROM (SELECT d.day_start, sum(d.n) OVER (ORDER BY d.day_start DESC) - d.n AS before FROM (${perDay}) d) x WHERE x.before < ${need}`;
}

/** Whether a filter is served by walking the list index (no index of its own narrows it). */
function walksListIndex(f: UsageFilters): boolean {
  // Ids with an index of their own (an agent run's events too: usage_account_run_idx).
  if (f.executionId !== undefined || f.searchId !== undefined || f.runId !== undefined) return false;
  if (f.anomaly !== undefined || f.chargeOutcome === "failed_charged_review") return false;
  return (
    f.eventType !== undefined ||
    f.kind !== undefined ||
    f.reasonCode !== undefined ||
    f.apiKeyId !== undefined ||
    f.outcome !== undefined ||
    f.success !== undefined ||
    f.billableSuccess !== undefined ||
    f.hasExecutionOutcome !== undefined ||
    f.chargeOutcome !== undefined ||
    f.channel !== undefined ||
    f.toolId !== undefined ||
    f.providerId !== undefined ||
    f.oauthClientId !== undefined ||
    f.model !== undefined
  );
}

/**
 * The rows of `select` (a SELECT over `usage_events e` without its time condition, taking the
 * condition as its argument) in the given ranges, newest first: one index range scan per range,
 * each stopped after `need` rows, merged in order.
 */
export function inRanges(ranges: WalkRange[], need: number, select: (range: SQL) => SQL): SQL {
  const col = sql.raw("e.created_at");
  if (ranges.length === 0) return sql`(${select(sql`false`)})`;
  return sql.join(
    ranges.map(([from, to]) => sql`(${select(inWindow(col, from, to))} ORDER BY e.created_at DESC NULLS LAST, e.id DESC NULLS LAST LIMIT ${need})`),
    sql` UNION ALL `,
  );
}
