import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { ensureSealed } from "./seal";
import type { TimeWindow } from "./time-window";
import type { UsageFilters } from "./usage-filters";

const DAY = 86_400_000;

/** A sealed, ready day of `ledger_daily_summary` with its evidence. */
export interface ReadyDay {
  day: string;
  events_checked: number;
  charged_events: number;
  entry_count: number;
  /** Sum of the day's ledger amounts (exact decimal text). */
  net: string;
}

/** [from, to) in canonical UTC form with microseconds (compares as strings); null = unbounded. */
export type Range = [string | null, string];

export interface ReadinessCoverage {
  /** The window's bounds (start at the account's first active day when the window has none). */
  start: string | null;
  end: string;
  /** Whole UTC days in the window whose sealed summary says they passed every readiness check. */
  readyDays: ReadyDay[];
  /** The rest of the window: partial days at the edges, unsealed time, and days that failed. */
  uncovered: Range[];
}

/**
 * Splits a window into the days already proven ready (rows of `ledger_daily_summary` are written
 * only for days that passed every check, and never change) and the ranges that must be checked
 * live. Readiness reads only the latter; so does the `missing_ledger_link` anomaly, which cannot
 * occur in a ready day.
 */
export async function readinessCoverage(db: Db, accountId: string, w: TimeWindow): Promise<ReadinessCoverage> {
  await ensureSealed(db, accountId, w);
  const state = rows<{ sealed_from: Date | string }>(await db.execute(sql`SELECT sealed_from FROM audit_seal_state WHERE account_id = ${accountId}`))[0];
  const origin = state ? new Date(state.sealed_from).getTime() : null;
  // Nothing of the account happened before its first active hour: without start_date, begin at that day.
  const startIso = w.start ?? (origin === null ? null : iso(Math.floor(origin / DAY) * DAY));
  const endIso = w.end ?? iso(w.now.getTime());
  const start = startIso === null ? null : Date.parse(startIso);
  const end = Date.parse(endIso);

  const sealedDayEnd = w.sealedUntil ? Math.floor(w.sealedUntil.getTime() / DAY) * DAY : null;
  const dayLo = start === null || origin === null ? null : Math.max(Math.ceil(start / DAY) * DAY, Math.floor(origin / DAY) * DAY);
  const dayHi = sealedDayEnd === null ? null : Math.min(Math.floor(end / DAY) * DAY, sealedDayEnd);
  if (dayLo === null || dayHi === null || dayHi <= dayLo) return { start: startIso, end: endIso, readyDays: [], uncovered: nonEmpty([[startIso, endIso]]) };

  const readyDays = rows<ReadyDay>(
    await db.execute(sql`
      SELECT day::text AS day, events_checked::float8 AS events_checked, charged_events::float8 AS charged_events,
             entry_count::float8 AS entry_count,
             (SELECT coalesce(sum((v->>'amount')::numeric), 0) FROM jsonb_each(by_entry_type) j(k, v))::text AS net
        FROM ledger_daily_summary
       WHERE account_id = ${accountId} AND day >= ${isoDay(dayLo)}::date AND day < ${isoDay(dayHi)}::date`),
  );
  const covered = new Set(readyDays.map((d) => d.day));
  const ranges: Range[] = [[startIso, iso(dayLo)]];
  for (let d = dayLo; d < dayHi; d += DAY) if (!covered.has(isoDay(d))) ranges.push([iso(d), iso(d + DAY)]);
  ranges.push([iso(dayHi), endIso]);
  return { start: startIso, end: endIso, readyDays, uncovered: nonEmpty(ranges) };
}

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
 * `anomaly=missing_ledger_link` looks only where such an event can be: outside the days whose
 * sealed summary proves every charge has its ledger row. Over a sealed history that is today and
 * the few days that failed, instead of every charged event ever.
 */
export async function withAnomalyScope(db: Db, accountId: string, w: TimeWindow, f: UsageFilters): Promise<UsageFilters> {
  if (f.anomaly !== "missing_ledger_link") return f;
  const { uncovered } = await readinessCoverage(db, accountId, w);
  return { ...f, within: uncovered };
}
