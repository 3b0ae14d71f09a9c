// Dates and time zones. Parsing is our own: `Date.parse` reads offset-less datetimes in the
// server's local zone, which would make results depend on where Tollgate runs.
import { BuiltinToolError } from "./errors";
import { type BuiltinHandler, int, oneOf, optNum, optStr, str } from "./params";

const DAY_MS = 86_400_000;
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const WEEKDAYS_ZH = ["星期日", "星期一", "星期二", "星期三", "星期四", "星期五", "星期六"];

/** A parsed date or datetime; `wallMs` is the written wall-clock time read as if it were UTC. */
export interface ParsedDate {
  wallMs: number;
  dateOnly: boolean;
  /** Minutes east of UTC written in the input (`Z` = 0); undefined for a naive time. */
  offsetMinutes?: number;
  offsetText?: string;
}

const ISO_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysInMonth = (y: number, m: number) => [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];

export function parseDate(text: string, name = "date"): ParsedDate {
  const m = ISO_PATTERN.exec(text.trim());
  if (!m) throw new BuiltinToolError(`${name} "${text}" is not an ISO-8601 date (YYYY-MM-DD) or datetime (YYYY-MM-DDTHH:mm[:ss][Z|±hh:mm])`);
  const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "0", offset] = m;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    throw new BuiltinToolError(`${name} "${text}" is not a valid calendar date or time`);
  }
  const ms = Number(frac.padEnd(3, "0").slice(0, 3));
  const wallMs = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const parsed: ParsedDate = { wallMs, dateOnly: m[4] === undefined };
  if (offset) {
    if (offset.toUpperCase() === "Z") parsed.offsetMinutes = 0;
    else {
      const digits = offset.replace(":", "");
      const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5) || "0");
      parsed.offsetMinutes = digits[0] === "-" ? -minutes : minutes;
    }
    parsed.offsetText = offset.toUpperCase() === "Z" ? "Z" : formatOffset(parsed.offsetMinutes);
  }
  return parsed;
}

export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

function formatWall(ms: number, dateOnly = false): string {
  const d = new Date(ms);
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  if (dateOnly) return date;
  const frac = d.getUTCMilliseconds() ? `.${pad(d.getUTCMilliseconds(), 3)}` : "";
  return `${date}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${frac}`;
}

// Building an Intl formatter costs far more than using one; zones are few, so cache them.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat("en-US", {
        timeZone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      });
    } catch {
      throw new BuiltinToolError(`unknown time zone "${timeZone}"; use an IANA name such as Asia/Shanghai or America/New_York`);
    }
    if (formatters.size > 1000) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}

/** Canonical IANA name (e.g. "asia/shanghai" → "Asia/Shanghai"); throws for unknown zones. */
function canonicalZone(timeZone: string): string {
  return formatterFor(timeZone).resolvedOptions().timeZone;
}

/** The wall-clock time in `timeZone` at instant `utcMs`, read as if it were UTC. */
function wallIn(timeZone: string, utcMs: number): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(utcMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const base = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  return base + (((utcMs % 1000) + 1000) % 1000);
}

export function offsetMinutesAt(timeZone: string, utcMs: number): number {
  return Math.round((wallIn(timeZone, utcMs) - utcMs) / 60_000);
}

/**
 * The instant a wall-clock time in `timeZone` denotes. Two refinements settle DST edges; a wall
 * time inside a spring-forward gap resolves to the offset in force just after it.
 */
function instantOfWall(timeZone: string, wallMs: number): number {
  let utc = wallMs - offsetMinutesAt(timeZone, wallMs) * 60_000;
  utc = wallMs - offsetMinutesAt(timeZone, utc) * 60_000;
  return utc;
}

/** Resolves a parsed input to an instant, reading naive times in `timeZone`. */
function instantOf(parsed: ParsedDate, timeZone: string): number {
  return parsed.offsetMinutes !== undefined ? parsed.wallMs - parsed.offsetMinutes * 60_000 : instantOfWall(timeZone, parsed.wallMs);
}

function describeInstant(utcMs: number, timeZone: string) {
  const offset = offsetMinutesAt(timeZone, utcMs);
  const wall = utcMs + offset * 60_000;
  const d = new Date(wall);
  return {
    datetime: `${formatWall(wall)}${formatOffset(offset)}`,
    date: formatWall(wall, true),
    time: `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`,
    offset: formatOffset(offset),
    weekday: WEEKDAYS[d.getUTCDay()],
    weekday_zh: WEEKDAYS_ZH[d.getUTCDay()],
  };
}

const isoUtc = (ms: number) => {
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) throw new BuiltinToolError("the time is outside the supported range");
  return new Date(ms).toISOString();
};

/** Adds calendar months, clamping the day (31 January + 1 month = 28/29 February). */
function addMonths(wallMs: number, months: number): number {
  const d = new Date(wallMs);
  const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const day = Math.min(d.getUTCDate(), daysInMonth(year, month + 1));
  return Date.UTC(year, month, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

/** Weekdays (Monday to Friday) in [startDay, endDay), both as day numbers since the epoch. */
function businessDays(startDay: number, endDay: number): number {
  const span = endDay - startDay;
  let count = Math.floor(span / 7) * 5;
  for (let d = startDay + Math.floor(span / 7) * 7; d < endDay; d++) {
    const dow = (((d + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
    if (dow !== 0 && dow !== 6) count++;
  }
  return count;
}

const dateDiff: BuiltinHandler = (p) => {
  const startText = str(p, "start");
  const endText = str(p, "end");
  const start = parseDate(startText, "start");
  const end = parseDate(endText, "end");
  // Offset-less datetimes are compared as written (both in one unnamed zone).
  const a = instantOf(start, "UTC");
  const b = instantOf(end, "UTC");
  const sign = b >= a ? 1 : -1;
  const [lo, hi] = sign > 0 ? [a, b] : [b, a];
  const loDate = new Date(lo);
  const hiDate = new Date(hi);
  let months = (hiDate.getUTCFullYear() - loDate.getUTCFullYear()) * 12 + hiDate.getUTCMonth() - loDate.getUTCMonth();
  if (addMonths(lo, months) > hi) months--;
  const remainder = hi - addMonths(lo, months);
  const diffMs = b - a;
  const bothDates = start.dateOnly && end.dateOnly;
  return {
    start: startText,
    end: endText,
    days: bothDates ? Math.round(diffMs / DAY_MS) : Math.trunc(diffMs / DAY_MS),
    weeks: Math.round((diffMs / DAY_MS / 7) * 1000) / 1000,
    calendar: { sign, years: Math.floor(months / 12), months: months % 12, days: Math.floor(remainder / DAY_MS) },
    business_days: sign * businessDays(Math.floor(lo / DAY_MS), Math.floor(hi / DAY_MS)),
    total_hours: Math.round((diffMs / 3_600_000) * 1000) / 1000,
    total_seconds: Math.round(diffMs / 1000),
  };
};

const DURATION_UNITS = ["years", "months", "weeks", "days", "hours", "minutes", "seconds"] as const;

const dateAdd: BuiltinHandler = (p) => {
  const text = str(p, "date");
  const amount = int(p, "amount");
  const unit = oneOf(p, "unit", DURATION_UNITS, "days");
  const parsed = parseDate(text);
  if (Math.abs(amount) > 1_000_000) throw new BuiltinToolError("amount must be at most 1,000,000 in absolute value");
  const fixed = { weeks: 7 * DAY_MS, days: DAY_MS, hours: 3_600_000, minutes: 60_000, seconds: 1000 } as Record<string, number>;
  const wall = unit === "years" || unit === "months"
    ? addMonths(parsed.wallMs, unit === "years" ? amount * 12 : amount)
    : parsed.wallMs + amount * fixed[unit];
  if (!Number.isFinite(new Date(wall).getTime()) || Math.abs(wall) > 8.64e15) throw new BuiltinToolError("the result is outside the supported range");
  const keepDateOnly = parsed.dateOnly && !["hours", "minutes", "seconds"].includes(unit);
  const result = keepDateOnly ? formatWall(wall, true) : `${formatWall(wall)}${parsed.offsetText ?? ""}`;
  const d = new Date(wall);
  return { date: text, amount, unit, result, weekday: WEEKDAYS[d.getUTCDay()], weekday_zh: WEEKDAYS_ZH[d.getUTCDay()] };
};

/** ISO-8601 week number and week-based year of a UTC day. */
function isoWeek(ms: number): { week: number; year: number } {
  const d = new Date(ms);
  const dow = d.getUTCDay() || 7;
  const thursday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 4 - dow);
  const year = new Date(thursday).getUTCFullYear();
  return { week: Math.floor((thursday - Date.UTC(year, 0, 1)) / DAY_MS / 7) + 1, year };
}

const weekday: BuiltinHandler = (p) => {
  const text = str(p, "date");
  const parsed = parseDate(text);
  const d = new Date(parsed.wallMs);
  const y = d.getUTCFullYear();
  const { week, year } = isoWeek(parsed.wallMs);
  const dow = d.getUTCDay();
  return {
    date: formatWall(parsed.wallMs, true),
    weekday: WEEKDAYS[dow],
    weekday_zh: WEEKDAYS_ZH[dow],
    iso_weekday: dow || 7,
    is_weekend: dow === 0 || dow === 6,
    iso_week: week,
    iso_week_year: year,
    day_of_year: Math.floor((parsed.wallMs - Date.UTC(y, 0, 1)) / DAY_MS) + 1,
    quarter: Math.floor(d.getUTCMonth() / 3) + 1,
    is_leap_year: isLeap(y),
    days_in_month: daysInMonth(y, d.getUTCMonth() + 1),
  };
};

const convertTimezone: BuiltinHandler = (p) => {
  const text = str(p, "datetime");
  const fromTz = canonicalZone(str(p, "from_tz", "UTC"));
  const toTz = canonicalZone(str(p, "to_tz"));
  const parsed = parseDate(text, "datetime");
  const utc = instantOf(parsed, fromTz);
  const from = describeInstant(utc, fromTz);
  const to = describeInstant(utc, toTz);
  return {
    input: text,
    from_tz: fromTz,
    to_tz: toTz,
    utc: isoUtc(utc),
    from: from.datetime,
    result: to.datetime,
    date: to.date,
    time: to.time,
    offset: to.offset,
    weekday: to.weekday,
    weekday_zh: to.weekday_zh,
    hours_difference: (offsetMinutesAt(toTz, utc) - offsetMinutesAt(fromTz, utc)) / 60,
  };
};

const unixTimestamp: BuiltinHandler = (p) => {
  const unit = oneOf(p, "unit", ["s", "ms"] as const, "s");
  const tz = canonicalZone(str(p, "timezone", "UTC"));
  const timestamp = optNum(p, "timestamp");
  if (timestamp !== undefined) {
    const ms = unit === "s" ? timestamp * 1000 : timestamp;
    return { timestamp, unit, utc: isoUtc(ms), timezone: tz, local: describeInstant(ms, tz).datetime };
  }
  const text = optStr(p, "datetime");
  if (text === undefined) throw new BuiltinToolError("give timestamp or datetime");
  const ms = instantOf(parseDate(text, "datetime"), tz);
  return { datetime: text, timezone: tz, utc: isoUtc(ms), timestamp_s: Math.floor(ms / 1000), timestamp_ms: ms };
};

const now: BuiltinHandler = (p) => {
  const tz = canonicalZone(str(p, "timezone", "UTC"));
  const ms = Date.now();
  const local = describeInstant(ms, tz);
  return { utc: isoUtc(ms), timezone: tz, local: local.datetime, offset: local.offset, weekday: local.weekday, weekday_zh: local.weekday_zh, unix_seconds: Math.floor(ms / 1000) };
};

export const timeHandlers: Record<string, BuiltinHandler> = {
  "time.date_diff": dateDiff,
  "time.date_add": dateAdd,
  "time.weekday": weekday,
  "time.convert_timezone": convertTimezone,
  "time.unix_timestamp": unixTimestamp,
  "time.now": now,
};
