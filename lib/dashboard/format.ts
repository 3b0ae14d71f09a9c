import type { Locale, Translate } from "./i18n";

/**
 * Display formatting for the dashboard. Amounts arrive from the API as JSON numbers with at most
 * six decimals; they are only displayed here, never added up for anything that is billed.
 */
export function numberLocale(locale: Locale): string {
  return locale === "zh" ? "zh-CN" : "en-US";
}

export function formatCredits(value: number | null | undefined, locale: Locale): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "—";
  return new Intl.NumberFormat(numberLocale(locale), { maximumFractionDigits: 6 }).format(value);
}

/** A signed amount: "+1,000" for grants, "−0.5" (true minus sign) for consumption. */
export function formatSignedCredits(value: number, locale: Locale): string {
  const magnitude = formatCredits(Math.abs(value), locale);
  if (value > 0) return `+${magnitude}`;
  if (value < 0) return `\u2212${magnitude}`;
  return magnitude;
}

export function formatCount(value: number | null | undefined, locale: Locale): string {
  if (value === null || value === undefined) return "—";
  return new Intl.NumberFormat(numberLocale(locale)).format(value);
}

export function formatPercent(ratio: number | null | undefined, locale: Locale): string {
  if (ratio === null || ratio === undefined) return "—";
  return new Intl.NumberFormat(numberLocale(locale), { style: "percent", maximumFractionDigits: 1 }).format(ratio);
}

export function formatDuration(ms: number | null | undefined, locale: Locale): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${new Intl.NumberFormat(numberLocale(locale), { maximumFractionDigits: ms < 10 ? 1 : 0 }).format(ms)} ms`;
  return `${new Intl.NumberFormat(numberLocale(locale), { maximumFractionDigits: 2 }).format(ms / 1000)} s`;
}

/** How long to wait before trying again: "8 seconds", "15 minutes" (rounded up), "8秒钟". */
export function formatWait(seconds: number, locale: Locale): string {
  const [amount, unit] = seconds < 60 ? [Math.max(1, Math.ceil(seconds)), "second"] : [Math.ceil(seconds / 60), "minute"];
  return new Intl.NumberFormat(numberLocale(locale), { style: "unit", unit, unitDisplay: "long" }).format(amount);
}

export function formatBytes(bytes: number, locale: Locale): string {
  const units = ["B", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${new Intl.NumberFormat(numberLocale(locale), { maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)} ${units[unit]}`;
}

/** Date and time in the chosen time zone, e.g. "2026-08-21 14:03:07". */
export function formatDateTime(iso: string | null | undefined, timeZone: string, options: { seconds?: boolean } = {}): string {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: options.seconds === false ? undefined : "2-digit",
    hourCycle: "h23",
  }).formatToParts(date);
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  const time = options.seconds === false ? `${get("hour")}:${get("minute")}` : `${get("hour")}:${get("minute")}:${get("second")}`;
  return `${get("year")}-${get("month")}-${get("day")} ${time}`;
}

/**
 * An instant with its zone, for any reset, expiry or period boundary shown outside a table whose
 * header names the zone: "2026-12-01 00:00 (Asia/Shanghai)", "2026-12-01 00:00（Asia/Shanghai）".
 * The zone is spelled as IANA writes it.
 */
export function formatZonedDateTime(iso: string | null | undefined, timeZone: string, locale: Locale, options: { seconds?: boolean } = {}): string {
  if (!iso) return "—";
  const at = formatDateTime(iso, timeZone, { seconds: options.seconds ?? false });
  return locale === "zh" ? `${at}（${timeZone}）` : `${at} (${timeZone})`;
}

/** The calendar day an instant falls on in a zone, "2026-09-30"; `exclusiveEnd` reads the instant before (a period's end). */
export function dayIn(iso: string, timeZone: string, options: { exclusiveEnd?: boolean } = {}): string {
  const at = options.exclusiveEnd ? new Date(new Date(iso).getTime() - 1).toISOString() : iso;
  return formatDateTime(at, timeZone, { seconds: false }).slice(0, 10);
}

/** A bucket's label on a chart axis: the hour for hourly buckets, the date otherwise. */
export function formatBucket(iso: string, bucket: string, timeZone: string): string {
  const full = formatDateTime(iso, timeZone, { seconds: false });
  if (bucket === "hour") return full.slice(5);
  return full.slice(0, 10);
}

/** "Today" as YYYY-MM-DD in a time zone. */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  return formatDateTime(now.toISOString(), timeZone).slice(0, 10);
}

/** YYYY-MM-DD, `days` before `date` (a YYYY-MM-DD string). Calendar arithmetic in UTC is exact. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Short form of a long id for tables: the type prefix and the last characters. */
export function shortId(id: string | null | undefined, keep = 8): string {
  if (!id) return "—";
  if (id.length <= keep + 6) return id;
  const underscore = id.indexOf("_");
  const prefix = underscore > 0 && underscore < 6 ? id.slice(0, underscore + 1) : "";
  return `${prefix}…${id.slice(-keep)}`;
}

/** "1 credit", "2.5 credits" ("1 积分"). */
export function formatCreditsUnit(value: number | null | undefined, locale: Locale, t: Translate): string {
  if (value === null || value === undefined) return "—";
  return t("common.creditAmount", { amount: formatCredits(value, locale), n: value });
}
