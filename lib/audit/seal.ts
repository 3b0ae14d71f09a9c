import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { isReadyCondition, readinessQuery } from "./readiness-checks";
import { SEAL_MARGIN, type TimeWindow } from "./time-window";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const USAGE_DIMS = "event_type, charge_outcome, success, billable_success, reason_code, outcome, has_execution_outcome, api_key_id, billing_snapshot_status";
/** One transaction seals at most this much history (the first seal of an old account runs in steps). */
export const CHUNK_MS = 14 * DAY;

/**
 * Seals the account's hours that ended more than ten minutes ago: aggregates them into the hourly
 * rollups and, for each UTC day completed on the way, sums its hours into the daily usage rollup,
 * writes the day's spend rollup (per dimension and value) and, when the readiness checks pass, the
 * day's settlement summary; the hours of the day it leaves open get an hourly settlement summary
 * each, on the same condition. Usage events and ledger rows are written with `created_at = now()`
 * by single short statements, so a sealed hour cannot change any more (a backfill with past
 * timestamps would need its hours re-sealed; see docs/audit.md).
 *
 * Concurrent callers do not wait: one seals (advisory lock per account), the others read what is
 * already sealed and scan the rest. Returns the new seal boundary, or null when nothing is sealed.
 */
export async function sealAuditHours(db: Db, accountId: string): Promise<Date | null> {
  let sealedUntil: Date | null = null;
  for (let guard = 0; guard < 10_000; guard++) {
    const step = await db.transaction(async (tx) => sealStep(tx as unknown as Db, accountId));
    if (step.sealedUntil) sealedUntil = step.sealedUntil;
    if (step.done) break;
  }
  return sealedUntil;
}

interface SealState {
  sealed_until: Date | string | null;
  sealable: Date | string;
  origin: Date | string | null;
}

async function sealStep(tx: Db, a: string): Promise<{ done: boolean; sealedUntil: Date | null }> {
  const locked = rows<{ ok: boolean }>(await tx.execute(sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${`tollgate.audit_seal:${a}`}, 0)) AS ok`))[0];
  if (!locked.ok) return { done: true, sealedUntil: null };
  // Large aggregations: JIT compilation would cost more than it saves (see analytic.ts).
  await tx.execute(sql`SET LOCAL jit = off`);
  const st = rows<SealState>(
    await tx.execute(sql`
      SELECT s.sealed_until, date_trunc('hour', now() - interval '${sql.raw(SEAL_MARGIN)}', 'UTC') AS sealable,
             CASE WHEN s.account_id IS NULL THEN date_trunc('hour', least(
               (SELECT min(created_at) FROM usage_events WHERE account_id = ${a}),
               (SELECT min(created_at) FROM credits_ledger WHERE account_id = ${a})), 'UTC') END AS origin
        FROM (SELECT 1) one LEFT JOIN audit_seal_state s ON s.account_id = ${a}`),
  )[0];
  const sealable = new Date(st.sealable).getTime();
  let from: number;
  if (st.sealed_until === null) {
    if (st.origin === null) return { done: true, sealedUntil: null };
    from = new Date(st.origin).getTime();
    if (from >= sealable) return { done: true, sealedUntil: null };
    const origin = new Date(from).toISOString();
    await tx.execute(sql`INSERT INTO audit_seal_state (account_id, sealed_from, sealed_until) VALUES (${a}, ${origin}::timestamptz, ${origin}::timestamptz)`);
  } else {
    from = new Date(st.sealed_until).getTime();
  }
  const to = Math.min(sealable, from + CHUNK_MS);
  if (to <= from) return { done: true, sealedUntil: new Date(from) };
  const f = new Date(from).toISOString();
  const t = new Date(to).toISOString();

  await tx.execute(sql`
    INSERT INTO usage_hourly_rollup (account_id, hour_start, event_type, charge_outcome, success, billable_success, reason_code, outcome,
                                     has_execution_outcome, api_key_id, billing_snapshot_status, event_count, pre_settlement_credits, settled_credits)
    SELECT ${a}, date_trunc('hour', created_at, 'UTC'), event_type, charge_outcome, success, billable_success, reason_code, outcome,
           execution_outcome IS NOT NULL, api_key_id, billing_snapshot_status, count(*), sum(pre_settlement_amount_credits), sum(settled_amount_credits)
      FROM usage_events
     WHERE account_id = ${a} AND created_at >= ${f}::timestamptz AND created_at < ${t}::timestamptz
     GROUP BY 2, 3, 4, 5, 6, 7, 8, 9, 10, 11`);
  await tx.execute(sql`SELECT usage_hourly_totals_fill(${a}, ${f}::timestamptz, ${t}::timestamptz)`);
  await tx.execute(sql`
    INSERT INTO ledger_hourly_rollup (account_id, hour_start, entry_type, entry_count, consume_count, grant_count, consumed_credits, granted_credits)
    SELECT ${a}, date_trunc('hour', created_at, 'UTC'), entry_type, count(*),
           count(*) FILTER (WHERE amount_credits < 0), count(*) FILTER (WHERE amount_credits > 0),
           coalesce(-sum(amount_credits) FILTER (WHERE amount_credits < 0), 0), coalesce(sum(amount_credits) FILTER (WHERE amount_credits > 0), 0)
      FROM credits_ledger
     WHERE account_id = ${a} AND created_at >= ${f}::timestamptz AND created_at < ${t}::timestamptz
     GROUP BY 2, 3`);

  // UTC days completed by this step: [floor_day(from), floor_day(to)).
  const dayFrom = Math.floor(from / DAY) * DAY;
  const dayTo = Math.floor(to / DAY) * DAY;
  if (dayTo > dayFrom) {
    const df = new Date(dayFrom).toISOString();
    const dt = new Date(dayTo).toISOString();
    await tx.execute(sql`
      INSERT INTO usage_daily_rollup (account_id, day_start, ${sql.raw(USAGE_DIMS)}, event_count, pre_settlement_credits, settled_credits)
      SELECT ${a}, date_trunc('day', hour_start, 'UTC'), ${sql.raw(USAGE_DIMS)}, sum(event_count), sum(pre_settlement_credits), sum(settled_credits)
        FROM usage_hourly_rollup
       WHERE account_id = ${a} AND hour_start >= ${df}::timestamptz AND hour_start < ${dt}::timestamptz
       GROUP BY 2, ${sql.raw(USAGE_DIMS)}`);
    // The spend rollup, one row per dimension and value (migration 0027 defines it once for this and its backfill).
    await tx.execute(sql`SELECT usage_spend_day_fill(${a}, ${df}::timestamptz, ${dt}::timestamptz)`);
    await fillDailySummaries(tx, a, new Date(dayFrom), new Date(dayTo));
  }
  // Hours of the day this step leaves open, from the first without a summary row to `to`: readers
  // would check them live until the day completes. Hours of completed days are covered by their
  // daily row. Normally that is this step's hours; after an upgrade (hours sealed before hourly
  // summaries existed) it is the whole open day once.
  const last = rows<{ h: Date | string | null }>(
    await tx.execute(sql`SELECT max(hour_start) AS h FROM ledger_hourly_summary WHERE account_id = ${a} AND hour_start >= ${new Date(dayTo).toISOString()}::timestamptz`),
  )[0].h;
  const openFrom = last === null ? dayTo : Math.max(dayTo, new Date(last).getTime() + HOUR);
  if (to > openFrom) await fillSummaries(tx, a, "hour", new Date(openFrom), new Date(to));

  await tx.execute(sql`UPDATE audit_seal_state SET sealed_until = ${t}::timestamptz, updated_at = now() WHERE account_id = ${a}`);
  return { done: to >= sealable, sealedUntil: new Date(to) };
}

/**
 * Writes the settlement summary of each ready day in [from, to) (UTC midnights) not yet written;
 * returns the days that passed (`YYYY-MM-DD`), written now or before.
 */
export async function fillDailySummaries(db: Db, a: string, from: Date, to: Date): Promise<string[]> {
  return fillSummaries(db, a, "day", from, to);
}

/** Per unit: its table and key, and the bucket text of an instant (`to_char` of its UTC time), which casts back to the key. */
const summaryUnits = {
  day: { table: "ledger_daily_summary", key: "day", cast: "date", step: "1 day", format: `'YYYY-MM-DD'` },
  hour: { table: "ledger_hourly_summary", key: "hour_start", cast: "timestamptz", step: "1 hour", format: `'YYYY-MM-DD"T"HH24":00:00Z"'` },
} as const;

/**
 * Writes the settlement summary of each ready UTC day or hour in [from, to) not yet written, and
 * returns the keys of those that passed. The checks compose: each joins the links over all time
 * and the chain reads the previous row by `seq`, so a day passes iff each of its hours does.
 */
async function fillSummaries(db: Db, a: string, unit: keyof typeof summaryUnits, from: Date, to: Date): Promise<string[]> {
  const u = summaryUnits[unit];
  const f = from.toISOString();
  const t = to.toISOString();
  const checks = readinessQuery({
    accountId: a,
    ranges: [[f, t]],
    // An open day's hours are few events (normally the one hour that just closed): probed per event.
    probe: unit === "hour",
    bucket: (col: SQL) => sql`to_char(${col} AT TIME ZONE 'UTC', ${sql.raw(u.format)})`,
    buckets: sql`SELECT to_char(b, ${sql.raw(u.format)})
                   FROM generate_series(${f}::timestamptz AT TIME ZONE 'UTC', (${t}::timestamptz AT TIME ZONE 'UTC') - interval '${sql.raw(u.step)}', interval '${sql.raw(u.step)}') b`,
  });
  const ready = await db.execute(sql`
    WITH r AS MATERIALIZED (${checks}),
    ins AS (
      INSERT INTO ${sql.raw(u.table)} (account_id, ${sql.raw(u.key)}, entry_count, by_entry_type, first_seq, last_seq, balance_open, balance_close, events_checked, charged_events)
      SELECT ${a}, r.b::${sql.raw(u.cast)}, r.entry_count, r.by_entry_type, r.first_seq, r.last_seq, r.balance_open::numeric, r.balance_close::numeric,
             r.events_checked, r.charged_events
        FROM r
       WHERE ${isReadyCondition}
      ON CONFLICT DO NOTHING
    )
    SELECT r.b FROM r WHERE ${isReadyCondition}`);
  return rows<{ b: string }>(ready).map((r) => r.b);
}

/**
 * Makes sure the window's sealed hours are up to date before a rollup read (normally a no-op; once
 * an hour per account it seals the hour that just closed).
 */
export async function ensureSealed(db: Db, accountId: string, w: TimeWindow): Promise<void> {
  if (w.sealedUntil && w.sealedUntil.getTime() >= w.sealable.getTime()) return;
  const sealed = await sealAuditHours(db, accountId);
  if (sealed && (!w.sealedUntil || sealed > w.sealedUntil)) w.sealedUntil = sealed;
}

