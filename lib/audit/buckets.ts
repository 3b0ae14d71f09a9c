import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { invalidInput } from "../errors";
import { ensureSealed } from "./seal";
import { type Bucket, type TimeWindow, inWindow, rawRemainder, sealedSpan } from "./time-window";

const UNIT_MS: Record<Bucket, number> = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 };
const MAX_BUCKETS = 10_000;

export interface BoundedWindow extends TimeWindow {
  start: string;
  end: string;
  startDate: Date;
  endDate: Date;
}

/**
 * Bucketing in SQL, in the window's time zone: a row's bucket is
 * `date_trunc(bucket, created_at AT TIME ZONE tz)` (a local timestamp), and `series` lists every
 * bucket of the window so empty ones are reported too.
 */
export function bucketPlan(w: BoundedWindow, bucket: Bucket) {
  const count = Math.ceil((w.endDate.getTime() - w.startDate.getTime()) / UNIT_MS[bucket]) + 1;
  if (count > MAX_BUCKETS) {
    throw invalidInput(`Invalid bucket: "${bucket}" gives ${count} buckets over this window (at most ${MAX_BUCKETS}); use a coarser bucket or a shorter window`);
  }
  const unit = sql.raw(`'${bucket}'`);
  const step = sql.raw(`interval '1 ${bucket}'`);
  return {
    key: (col: SQL): SQL => sql`date_trunc(${unit}, ${col} AT TIME ZONE ${w.tz})`,
    series: sql`SELECT generate_series(date_trunc(${unit}, ${w.start}::timestamptz AT TIME ZONE ${w.tz}),
                                       (${w.end}::timestamptz AT TIME ZONE ${w.tz}) - interval '1 microsecond', ${step}) AS b`,
    /** Output columns for a local bucket timestamp `b`: its UTC instant and its local form. */
    labels: sql`to_char((s.b AT TIME ZONE ${w.tz}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS bucket_start,
                to_char(s.b, 'YYYY-MM-DD"T"HH24:MI:SS') AS bucket_start_local`,
  };
}

export type BucketPlan = ReturnType<typeof bucketPlan>;

/** Past this many cut hours (hour buckets in a half-hour zone) the summary reads raw rows only. */
export const MAX_CUT_HOURS = 96;

export interface SealedPlan {
  span: { lo: Date; hi: Date };
  /** Sealed hours cut by a bucket boundary in tz: read raw, not from the rollup. */
  cut: Date[];
}

/**
 * How a bounded summary window uses the hourly rollups: the sealed whole hours [lo, hi), minus the
 * hours a bucket boundary cuts in two (only in zones whose offset is not a whole number of hours,
 * e.g. +05:30 with day buckets: one hour per day). Null when the rollups cannot serve it.
 */
export async function sealedPlan(db: Db, accountId: string, w: BoundedWindow, bucket: Bucket | "month"): Promise<SealedPlan | null> {
  await ensureSealed(db, accountId, w);
  const sealed = sealedSpan(w);
  if (!sealed) return null;
  const span = { lo: sealed.lo ?? w.startDate, hi: sealed.hi };
  if (w.tz === "UTC") return { span, cut: [] };
  const unit = sql.raw(`'${bucket}'`);
  const cut = rows<{ h: string }>(
    await db.execute(sql`
      SELECT to_char(h AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS h
        FROM generate_series(${span.lo.toISOString()}::timestamptz, ${span.hi.toISOString()}::timestamptz - interval '1 hour', interval '1 hour') h
       WHERE date_trunc(${unit}, h AT TIME ZONE ${w.tz}) <> date_trunc(${unit}, (h + interval '1 hour' - interval '1 microsecond') AT TIME ZONE ${w.tz})`),
  ).map((r) => new Date(r.h));
  return cut.length > MAX_CUT_HOURS ? null : { span, cut };
}

/** Rollup rows (alias `r`) of the plan: its sealed hours except the cut ones. */
export function sealedHours(plan: SealedPlan): SQL {
  const within = inWindow(sql.raw("r.hour_start"), plan.span.lo, plan.span.hi);
  if (plan.cut.length === 0) return within;
  return sql`${within} AND r.hour_start NOT IN (${sql.join(plan.cut.map((h) => sql`${h.toISOString()}::timestamptz`), sql`, `)})`;
}

/** Raw rows the plan leaves: the window's edges outside the sealed span, and the cut hours. */
export function rawRows(col: SQL, w: BoundedWindow, plan: SealedPlan | null): SQL {
  const rest = rawRemainder(col, w, plan?.span ?? null);
  if (!plan || plan.cut.length === 0) return rest;
  const hours = plan.cut.map((h) => sql`(${inWindow(col, h, new Date(h.getTime() + 3_600_000))})`);
  return sql`(${rest} OR ${sql.join(hours, sql` OR `)})`;
}

export function isBounded(w: TimeWindow): w is BoundedWindow {
  return w.start !== null && w.end !== null;
}
