import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { ensureSealed } from "./seal";
import type { TimeWindow } from "./time-window";
import type { UsageFilters } from "./usage-filters";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ISO_US = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/**
 * A sealed span that passed every readiness check, with its evidence: a row of
 * `ledger_daily_summary` (a whole UTC day) or of `ledger_hourly_summary` (an hour of a day that
 * was still open when it was sealed).
 */
export interface ReadySpan {
  unit: "day" | "hour";
  /** [start, end) in the canonical form of `Range`. */
  start: string;
  end: string;
  events_checked: number;
  charged_events: number;
  entry_count: number;
  /** Sum of the span's ledger amounts (exact decimal text). */
  net: string;
}

/** [from, to) in canonical UTC form with microseconds (compares as strings); null = unbounded. */
export type Range = [string | null, string];

export interface ReadinessCoverage {
  /** The window's bounds (start at the account's first active day when the window has none). */
  start: string | null;
  end: string;
  /**
   * Whole UTC days in the window whose sealed summary says they passed every readiness check, and
   * whole hours of the partial days around them that passed (mostly today's), oldest first.
   */
  ready: ReadySpan[];
  /** The rest of the window: partial hours at the edges, unsealed time, and days or hours that failed. */
  uncovered: Range[];
}

/**
 * Splits a window into the spans already proven ready (summary rows are written only for days and
 * hours that passed every check, and never change) and the ranges that must be checked live.
 * Readiness reads only the latter; so does the `missing_ledger_link` anomaly, which cannot occur
 * in a ready span. Over a sealed history the live part is the unsealed tail (the last hour or so)
 * and whatever failed.
 */
export async function readinessCoverage(db: Db, accountId: string, w: TimeWindow): Promise<ReadinessCoverage> {
  await ensureSealed(db, accountId, w);
  const state = rows<{ sealed_from: Date | string }>(await db.execute(sql`SELECT sealed_from FROM audit_seal_state WHERE account_id = ${accountId}`))[0];
  const origin = state ? new Date(state.sealed_from).getTime() : null;
  // Nothing of the account happened before its first active hour: without start_date, begin at that day.
  const startIso = w.start ?? (origin === null ? null : iso(floor(origin, DAY)));
  const endIso = w.end ?? iso(w.now.getTime());
  if (startIso === null || origin === null || w.sealedUntil === null) return { start: startIso, end: endIso, ready: [], uncovered: nonEmpty([[startIso, endIso]]) };
  // Date.parse drops microseconds: a start just after a boundary must not round down onto it.
  const start = Date.parse(startIso) + (iso(Date.parse(startIso)) === startIso ? 0 : 1);
  const end = Date.parse(endIso);
  const sealedUntil = w.sealedUntil.getTime();

  // Whole sealed days [dayLo, dayHi) from the daily summary; whole sealed hours of the partial days
  // around them from the hourly summary (only days that were open when sealed have hourly rows).
  const dayLo = Math.max(ceil(start, DAY), floor(origin, DAY));
  const dayHi = Math.max(dayLo, Math.min(floor(end, DAY), floor(sealedUntil, DAY)));
  const hourLo = Math.max(ceil(start, HOUR), floor(origin, HOUR));
  const hourHi = Math.min(floor(end, HOUR), sealedUntil);
  const hourSpans = (dayHi > dayLo ? [[hourLo, dayLo], [dayHi, hourHi]] : [[hourLo, hourHi]]).filter(([lo, hi]) => hi > lo);
  const hoursIn = hourSpans.length === 0 ? sql`false` : sql.join(hourSpans.map(([lo, hi]) => sql`(hour_start >= ${iso(lo)}::timestamptz AND hour_start < ${iso(hi)}::timestamptz)`), sql` OR `);

  const ready = rows<ReadySpan>(
    await db.execute(sql`
      SELECT unit, to_char(s AT TIME ZONE 'UTC', ${sql.raw(ISO_US)}) AS "start", to_char((s + span) AT TIME ZONE 'UTC', ${sql.raw(ISO_US)}) AS "end",
             events_checked::float8 AS events_checked, charged_events::float8 AS charged_events, entry_count::float8 AS entry_count,
             (SELECT coalesce(sum((v->>'amount')::numeric), 0) FROM jsonb_each(by_entry_type) j(k, v))::text AS net
        FROM (SELECT 'day' AS unit, day::timestamp AT TIME ZONE 'UTC' AS s, interval '1 day' AS span, events_checked, charged_events, entry_count, by_entry_type
                FROM ledger_daily_summary
               WHERE account_id = ${accountId} AND day >= ${isoDay(dayLo)}::date AND day < ${isoDay(dayHi)}::date
              UNION ALL
              SELECT 'hour', hour_start, interval '1 hour', events_checked, charged_events, entry_count, by_entry_type
                FROM ledger_hourly_summary
               WHERE account_id = ${accountId} AND (${hoursIn})) r
       ORDER BY s`),
  );
  // The window minus the ready spans (sorted, disjoint: hours lie outside [dayLo, dayHi)).
  const uncovered: Range[] = [];
  let at = startIso;
  for (const r of ready) {
    uncovered.push([at, r.start]);
    at = r.end;
  }
  uncovered.push([at, endIso]);
  return { start: startIso, end: endIso, ready, uncovered: nonEmpty(uncovered) };
}

const floor = (ms: number, unit: number) => Math.floor(ms / unit) * unit;
const ceil = (ms: number, unit: number) => Math.ceil(ms / unit) * unit;

/** The canonical form of the window bounds (microseconds), so bounds compare as strings. */
const iso = (ms: number) => new Date(ms).toISOString().replace("Z", "000Z");
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Drops empty ranges and joins touching ones (day boundaries are exact, so neighbours share a bound). */
function nonEmpty(ranges: Range[]): Range[] {
  const out: Range[] = [];
  for (const r of ranges.filter(([a, b]) => a === null || b > a)) {
    const last = out.at(-1);
    if (last && r[0] !== null && r[0] <= last[1]) {
      if (r[1] > last[1]) last[1] = r[1];
    } else out.push([r[0], r[1]]);
  }
  return out;
}

/**
 * `anomaly=missing_ledger_link` looks only where such an event can be: outside the days and hours
 * whose sealed summary proves every charge has its ledger row. Over a sealed history that is the
 * unsealed tail and the few days or hours that failed, instead of every charged event ever.
 */
export async function withAnomalyScope(db: Db, accountId: string, w: TimeWindow, f: UsageFilters): Promise<UsageFilters> {
  if (f.anomaly !== "missing_ledger_link") return f;
  const { uncovered } = await readinessCoverage(db, accountId, w);
  return { ...f, within: uncovered };
}
