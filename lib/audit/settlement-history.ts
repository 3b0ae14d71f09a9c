import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { credits, creditsToNumber } from "../money";
import { analytic } from "./analytic";
import { decodeCursor, encodeCursor } from "./cursor";
import { type LedgerScope, ledgerScopes } from "./ledger-filters";
import { type ReadinessRow, isReady, readinessQuery, utcDay } from "./readiness-checks";
import { ensureSealed, fillDailySummaries } from "./seal";
import { resolveWindow } from "./time-window";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const DAY_KEY = /^\d{4}-\d{2}-\d{2}$/;

export interface SettlementHistoryInput {
  startDate?: string;
  endDate?: string;
  scope: LedgerScope;
  cursor?: string;
  pageSize: number;
}

interface DayTotals {
  day: string;
  entry_count: number;
  by_entry_type: Record<string, { count: number; amount: string }>;
  balance_open: string | null;
  balance_close: string | null;
}

/**
 * `GET /auth/account/settlement-history`: one item per UTC day with ledger activity, newest first,
 * paged by a keyset cursor on the day. Closed days come from `ledger_daily_summary`, whose rows
 * are written once, when the day is sealed and its readiness checks pass (so they are
 * ledger-complete by construction) and never change. The open day (today, or a day not sealed
 * yet) and any day that failed readiness are computed live from the ledger and say so
 * (`source: "live"`, `ready`), their hours already sealed into `ledger_hourly_summary` taken from
 * there; a failed day that passes later is sealed then.
 */
export async function settlementHistory(db: Db, accountId: string, input: SettlementHistoryInput) {
  // Dates are UTC days here: the summary is kept per UTC day.
  const w = await resolveWindow(db, accountId, { startDate: input.startDate, endDate: input.endDate });
  await ensureSealed(db, accountId, w);
  const state = rows<{ sealed_from: Date | string }>(await db.execute(sql`SELECT sealed_from FROM audit_seal_state WHERE account_id = ${accountId}`))[0];

  const today = Math.floor(w.now.getTime() / DAY) * DAY;
  const sealedDayEnd = w.sealedUntil ? Math.floor(w.sealedUntil.getTime() / DAY) * DAY : null;
  const origin = state ? Math.floor(new Date(state.sealed_from).getTime() / DAY) * DAY : today - DAY;
  const first = Math.max(w.startDate ? Math.floor(w.startDate.getTime() / DAY) * DAY : origin, origin);
  let last = w.endDate ? Math.min(Math.floor((w.endDate.getTime() - 1) / DAY) * DAY, today) : today;
  if (input.cursor) last = Math.min(last, Date.parse(`${decodeCursor(input.cursor, DAY_KEY, /^day$/).key}T00:00:00Z`) - DAY);
  if (last < first) return page([], input, false);

  const types = ledgerScopes[input.scope] as readonly string[];
  const inScope = sql.join(types.map((t) => sql`${t}`), sql`, `);
  const want = input.pageSize + 1;
  const sealed = rows<DayTotals>(
    await db.execute(sql`
      SELECT day::text AS day, entry_count, by_entry_type, balance_open::text AS balance_open, balance_close::text AS balance_close
        FROM ledger_daily_summary s
       WHERE s.account_id = ${accountId} AND s.day >= ${isoDay(first)}::date AND s.day <= ${isoDay(last)}::date
         AND EXISTS (SELECT 1 FROM jsonb_object_keys(s.by_entry_type) k WHERE k IN (${inScope}))
       ORDER BY s.day DESC LIMIT ${want}`),
  );
  const items = sealed.map((d) => item(d, types, "summary", true));

  // Days without a sealed row (not sealed yet, or failed readiness) are computed live, newest
  // first, a page's worth at a time, and only until the page is full: a long range of such days
  // costs what one page needs, not the whole range. Below the (pageSize+1)-th sealed day nothing
  // can reach this page.
  const floor = sealed.length === want ? Date.parse(`${sealed.at(-1)!.day}T00:00:00Z`) : first;
  for (let hi = last; hi >= floor; ) {
    const missing = rows<{ day: string }>(
      await db.execute(sql`
        SELECT to_char(d, 'YYYY-MM-DD') AS day
          FROM generate_series(${isoDay(hi)}::date::timestamp, ${isoDay(floor)}::date::timestamp, interval '-1 day') d
         WHERE NOT EXISTS (SELECT 1 FROM ledger_daily_summary s WHERE s.account_id = ${accountId} AND s.day = d::date)
         ORDER BY d DESC LIMIT ${want}`),
    ).map((r) => r.day);
    if (missing.length === 0) break;
    items.push(...(await liveDays(db, accountId, missing, types, sealedDayEnd)));
    const lowest = Date.parse(`${missing.at(-1)}T00:00:00Z`);
    // Every item on or after `lowest` is now known: the page is settled once it holds pageSize + 1 of them.
    if (missing.length < want || items.filter((i) => Date.parse(`${i.day}T00:00:00Z`) >= lowest).length >= want) break;
    hi = lowest - DAY;
  }
  items.sort((a, b) => (a.day < b.day ? 1 : -1));
  return page(items, input, items.length > input.pageSize);
}

/** A part of a day's ledger with its totals: a sealed hour, or the part computed live. */
interface Segment {
  entry_count: number;
  by_entry_type: Record<string, { count: number; amount: string }>;
  first_seq: number | null;
  last_seq: number | null;
  balance_open: string | null;
  balance_close: string | null;
}

/**
 * The live items of days without a sealed summary (newest first in `days`): a day shows when it
 * has entries in scope or failed readiness. The hours such a day had sealed while it was open
 * (today's, mostly) come from `ledger_hourly_summary`, and only the rest is checked live. A
 * closed day that passes now (it failed when it was sealed, and was corrected since) is sealed now.
 */
async function liveDays(db: Db, accountId: string, days: string[], types: readonly string[], sealedDayEnd: number | null) {
  const hours = rows<Segment & { day: string; hour_start: string }>(
    await db.execute(sql`
      SELECT d.day::text AS day, to_char(h.hour_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS hour_start,
             h.entry_count, h.by_entry_type, h.first_seq::float8 AS first_seq, h.last_seq::float8 AS last_seq,
             h.balance_open::text AS balance_open, h.balance_close::text AS balance_close
        FROM unnest(${`{${days.join(",")}}`}::date[]) d(day)
        JOIN ledger_hourly_summary h ON h.account_id = ${accountId}
         AND h.hour_start >= d.day::timestamp AT TIME ZONE 'UTC' AND h.hour_start < (d.day + 1)::timestamp AT TIME ZONE 'UTC'`),
  );
  // Each day minus its sealed hours, oldest first, touching ranges joined: one index range scan each.
  const sealedHours = new Set(hours.map((h) => Date.parse(h.hour_start)));
  const ranges: [number, number][] = [];
  for (const d of [...days].sort()) {
    const dayStart = Date.parse(`${d}T00:00:00Z`);
    for (let h = dayStart; h < dayStart + DAY; h += HOUR) {
      if (sealedHours.has(h)) continue;
      const last = ranges.at(-1);
      if (last && last[1] === h) last[1] = h + HOUR;
      else ranges.push([h, h + HOUR]);
    }
  }
  const live = await analytic<ReadinessRow>(
    db,
    readinessQuery({
      accountId,
      ranges: ranges.map(([from, to]) => [new Date(from).toISOString(), new Date(to).toISOString()]),
      bucket: utcDay,
      buckets: sql`SELECT unnest(${`{${days.join(",")}}`}::text[])`,
    }),
  );
  const items = [];
  for (const d of live) {
    const start = Date.parse(`${d.b}T00:00:00Z`);
    let ready = isReady(d);
    // A closed day without its row failed when it was sealed: it is ready only if the whole day
    // passes now (its sealed hours could have been joined by a late link since), and then sealed.
    if (ready && sealedDayEnd !== null && start < sealedDayEnd) ready = (await fillDailySummaries(db, accountId, new Date(start), new Date(start + DAY))).length > 0;
    const totals = mergeSegments(d.b, [d, ...hours.filter((h) => h.day === d.b)]);
    if (ready && !Object.keys(totals.by_entry_type).some((k) => types.includes(k))) continue;
    items.push(item(totals, types, "live", ready));
  }
  return items;
}

/** A day's totals from its disjoint segments: counts and amounts summed, balances from its first and last row by `seq`. */
function mergeSegments(day: string, segments: Segment[]): DayTotals {
  const byType: Segment["by_entry_type"] = {};
  for (const s of segments) {
    for (const [type, v] of Object.entries(s.by_entry_type)) {
      const sum = byType[type];
      byType[type] = sum ? { count: sum.count + v.count, amount: credits(sum.amount).plus(v.amount).toFixed() } : { count: v.count, amount: v.amount };
    }
  }
  const withRows = segments.filter((s) => s.first_seq !== null && s.last_seq !== null);
  const first = withRows.reduce<Segment | null>((m, s) => (m === null || s.first_seq! < m.first_seq! ? s : m), null);
  const last = withRows.reduce<Segment | null>((m, s) => (m === null || s.last_seq! > m.last_seq! ? s : m), null);
  return {
    day,
    entry_count: segments.reduce((n, s) => n + s.entry_count, 0),
    by_entry_type: byType,
    balance_open: first?.balance_open ?? null,
    balance_close: last?.balance_close ?? null,
  };
}

function page(items: ReturnType<typeof item>[], input: SettlementHistoryInput, hasMore: boolean) {
  const shown = items.slice(0, input.pageSize);
  return {
    items: shown,
    scope: input.scope,
    page_size: input.pageSize,
    next_cursor: hasMore && shown.length > 0 ? encodeCursor(shown.at(-1)!.day, "day") : null,
    has_more: hasMore,
    ready: shown.every((i) => i.ready),
  };
}

function item(d: DayTotals, types: readonly string[], source: "summary" | "live", ready: boolean) {
  let consumeCount = 0;
  let grantCount = 0;
  let consumed = credits(0);
  let granted = credits(0);
  for (const [type, v] of Object.entries(d.by_entry_type)) {
    if (!types.includes(type)) continue;
    if (type.startsWith("consume_")) {
      consumeCount += v.count;
      consumed = consumed.minus(v.amount);
    } else {
      grantCount += v.count;
      granted = granted.plus(v.amount);
    }
  }
  return {
    day: d.day,
    bucket_start: `${d.day}T00:00:00.000Z`,
    entry_count: consumeCount + grantCount,
    consume_count: consumeCount,
    grant_count: grantCount,
    consumed_credits: creditsToNumber(consumed),
    granted_credits: creditsToNumber(granted),
    net_amount_credits: creditsToNumber(granted.minus(consumed)),
    balance_open: d.balance_open === null ? null : creditsToNumber(d.balance_open),
    balance_close: d.balance_close === null ? null : creditsToNumber(d.balance_close),
    source,
    ready,
  };
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
