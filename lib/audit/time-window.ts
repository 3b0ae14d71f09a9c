import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { invalidInput } from "../errors";

/**
 * Time windows of the audit endpoints. Dates are resolved by PostgreSQL (so a date means the same
 * thing in the WHERE clause and in the bucketing) into canonical UTC strings with microseconds;
 * every window is half-open, [start, end).
 */

export const buckets = ["hour", "day", "week"] as const;
export type Bucket = (typeof buckets)[number];

/** A sealed hour ended more than this long ago (see lib/audit/seal.ts). */
export const SEAL_MARGIN = "10 minutes";

type DateInput = { kind: "date"; value: string } | { kind: "local"; value: string } | { kind: "instant"; value: string };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function validDay(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d && y >= 1970 && y <= 9999;
}

/** `YYYY-MM-DD` or an ISO-8601 datetime; anything else is the contract's 400 -7. */
export function parseDateParam(name: string, raw: string | undefined): DateInput | undefined {
  if (raw === undefined || raw === "") return undefined;
  const invalid = () => invalidInput(`Invalid ${name}: "${raw.slice(0, 64)}". Use YYYY-MM-DD or an ISO-8601 datetime such as 2026-08-01T12:00:00Z`);
  const date = DATE.exec(raw);
  if (date) {
    if (!validDay(+date[1], +date[2], +date[3])) throw invalid();
    return { kind: "date", value: raw };
  }
  const dt = DATETIME.exec(raw);
  if (!dt) throw invalid();
  const [, y, mo, d, h, mi, s] = dt;
  if (!validDay(+y, +mo, +d) || +h > 23 || +mi > 59 || (s !== undefined && +s > 59)) throw invalid();
  if (dt[8] && dt[8].toUpperCase() !== "Z") {
    const offset = dt[8].replace(":", "");
    if (+offset.slice(1, 3) > 15 || (offset.length === 5 && +offset.slice(3) > 59)) throw invalid();
  }
  return { kind: dt[8] ? "instant" : "local", value: raw.replace(" ", "T") };
}

const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-]*(\/[A-Za-z0-9_+\-]+)*$/;
const validZones = new Set<string>();

/** An IANA time zone name (default UTC), kept as spelled once validated; anything else is a 400 -7. */
export function resolveTimeZone(raw: string | undefined): string {
  if (raw === undefined || raw === "" || raw.toUpperCase() === "UTC") return "UTC";
  if (validZones.has(raw)) return raw;
  try {
    if (!ZONE_NAME.test(raw) || raw.length > 64) throw new RangeError(raw);
    new Intl.DateTimeFormat("en-US", { timeZone: raw });
  } catch {
    throw invalidInput(`Invalid tz: "${raw.slice(0, 64)}". Use an IANA time zone name such as Europe/Paris (default UTC)`);
  }
  if (validZones.size < 1000) validZones.add(raw);
  return raw;
}

export function parseBucket(raw: string | undefined): Bucket | undefined {
  if (raw === undefined || raw === "") return undefined;
  if ((buckets as readonly string[]).includes(raw)) return raw as Bucket;
  throw invalidInput(`Invalid bucket: "${raw.slice(0, 32)}". Use hour, day or week`);
}

/** Contract 2.7: `day` when the window exceeds three days, else `hour`, unless the client chose. */
export function chooseBucket(requested: Bucket | undefined, window: { start: Date; end: Date }): Bucket {
  if (requested) return requested;
  return window.end.getTime() - window.start.getTime() > 3 * 86_400_000 ? "day" : "hour";
}

function boundSql(input: DateInput, edge: "start" | "end", tz: string): SQL {
  switch (input.kind) {
    case "date":
      // A date-only end_date extends to the end of that day: the window ends at the next midnight.
      return edge === "start"
        ? sql`(${input.value}::date::timestamp AT TIME ZONE ${tz})`
        : sql`((${input.value}::date + 1)::timestamp AT TIME ZONE ${tz})`;
    case "local":
      return edge === "start" ? sql`(${input.value}::timestamp AT TIME ZONE ${tz})` : sql`((${input.value}::timestamp + interval '1 microsecond') AT TIME ZONE ${tz})`;
    case "instant":
      // An end datetime is inclusive: the half-open window ends one microsecond after it.
      return edge === "start" ? sql`${input.value}::timestamptz` : sql`(${input.value}::timestamptz + interval '1 microsecond')`;
  }
}

export interface TimeWindow {
  /** Canonical UTC instants with microseconds (`2026-08-01T00:00:00.000000Z`); null = unbounded. */
  start: string | null;
  end: string | null;
  startDate: Date | null;
  endDate: Date | null;
  tz: string;
  now: Date;
  /** Every hour before this is in the rollups (null: nothing sealed yet for the account). */
  sealedUntil: Date | null;
  /** Hours before this may be sealed now. */
  sealable: Date;
}

export interface WindowRequest {
  startDate?: string;
  endDate?: string;
  tz?: string;
  /** For summaries: a missing start or end makes a 24-hour window (ending now without dates). */
  defaultLast24h?: boolean;
  /** The same with a window of this many days (the spend breakdown's 30). */
  defaultLastDays?: number;
}

const ISO_US = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** Validates the dates and resolves them to instants in one round trip (which also reads the seal state). */
export async function resolveWindow(db: Db, accountId: string, req: WindowRequest): Promise<TimeWindow> {
  const tz = resolveTimeZone(req.tz);
  const start = parseDateParam("start_date", req.startDate);
  const end = parseDateParam("end_date", req.endDate);
  let s: SQL = start ? boundSql(start, "start", tz) : sql`null::timestamptz`;
  let e: SQL = end ? boundSql(end, "end", tz) : sql`null::timestamptz`;
  const span = req.defaultLastDays !== undefined ? `${Math.trunc(req.defaultLastDays)} days` : req.defaultLast24h ? "24 hours" : null;
  if (span) {
    if (!end) e = sql`now()`;
    if (!start) s = sql`(${e}) - interval '${sql.raw(span)}'`;
  }
  let result;
  try {
    result = await db.execute(sql`
      SELECT to_char(w.s AT TIME ZONE 'UTC', ${sql.raw(ISO_US)}) AS s,
             to_char(w.e AT TIME ZONE 'UTC', ${sql.raw(ISO_US)}) AS e,
             (SELECT sealed_until FROM audit_seal_state WHERE account_id = ${accountId}) AS sealed_until,
             date_trunc('hour', now() - interval '${sql.raw(SEAL_MARGIN)}', 'UTC') AS sealable,
             now() AS now
        FROM (SELECT ${s} AS s, ${e} AS e) w`);
  } catch (err) {
    if (isInvalidZone(err)) throw invalidInput(`Invalid tz: "${tz}". Use an IANA time zone name such as Europe/Paris (default UTC)`);
    throw err;
  }
  const row = rows<{ s: string | null; e: string | null; sealed_until: Date | string | null; sealable: Date | string; now: Date | string }>(result)[0];
  if (row.s !== null && row.e !== null && row.s >= row.e) throw invalidInput("start_date must be earlier than end_date");
  return {
    start: row.s,
    end: row.e,
    startDate: row.s === null ? null : new Date(row.s),
    endDate: row.e === null ? null : new Date(row.e),
    tz,
    now: new Date(row.now),
    sealedUntil: row.sealed_until === null ? null : new Date(row.sealed_until),
    sealable: new Date(row.sealable),
  };
}

function isInvalidZone(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === "22023" || e.cause?.code === "22023";
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** `start <= col < end` for the window's bounds that are set. */
export function inWindow(col: SQL, from: string | Date | null, to: string | Date | null): SQL {
  const parts: SQL[] = [];
  if (from !== null) parts.push(sql`${col} >= ${iso(from)}::timestamptz`);
  if (to !== null) parts.push(sql`${col} < ${iso(to)}::timestamptz`);
  return parts.length === 0 ? sql`true` : sql.join(parts, sql` AND `);
}

function iso(v: string | Date): string {
  return typeof v === "string" ? v : v.toISOString();
}

/**
 * Splits a window into the whole sealed hours served by the rollups, [lo, hi), and the raw
 * remainder at either edge (the partial first hour and everything after the seal). Null when the
 * rollups cannot help.
 */
export function sealedSpan(w: TimeWindow): { lo: Date | null; hi: Date } | null {
  if (!w.sealedUntil) return null;
  let lo: Date | null = null;
  if (w.startDate) {
    const floor = Math.floor(w.startDate.getTime() / HOUR) * HOUR;
    lo = new Date(w.start!.endsWith(":00:00.000000Z") ? floor : floor + HOUR);
  }
  let hi = w.sealedUntil.getTime();
  if (w.endDate) hi = Math.min(hi, Math.floor(w.endDate.getTime() / HOUR) * HOUR);
  if (lo !== null && lo.getTime() >= hi) return null;
  return { lo, hi: new Date(hi) };
}

/**
 * The whole UTC days inside an hour span: [lo, hi) at midnights, lo rounded up and hi down (lo
 * null: unbounded). Empty when lo >= hi; the daily rollups serve it, the hours around it do not.
 */
export function wholeDays(span: { lo: Date | null; hi: Date }): { lo: Date | null; hi: Date } {
  return {
    lo: span.lo === null ? null : new Date(Math.ceil(span.lo.getTime() / DAY) * DAY),
    hi: new Date(Math.floor(span.hi.getTime() / DAY) * DAY),
  };
}

/** Raw-row predicate for the parts of the window the rollups do not cover. */
export function rawRemainder(col: SQL, w: TimeWindow, span: { lo: Date | null; hi: Date } | null): SQL {
  if (!span) return inWindow(col, w.start, w.end);
  const head = span.lo ? sql`(${inWindow(col, w.start, span.lo)})` : sql`false`;
  const tail = sql`(${inWindow(col, span.hi, w.end)})`;
  return sql`(${head} OR ${tail})`;
}
