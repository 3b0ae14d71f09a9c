import { addDays, todayIn } from "./format";

/**
 * The time window of the Usage and Ledger pages. A preset (`range=7d`) is turned into whole days
 * in the page's time zone, so "last 7 days" means the same days in the table, the charts and the
 * CSV; `range=custom` takes `start_date` / `end_date` from the URL as they are.
 */
export const rangePresets = ["today", "7d", "30d", "90d", "custom"] as const;
export type RangePreset = (typeof rangePresets)[number];
export const DEFAULT_RANGE: RangePreset = "7d";

const presetDays: Record<Exclude<RangePreset, "custom">, number> = { today: 1, "7d": 7, "30d": 30, "90d": 90 };

export interface ResolvedRange {
  preset: RangePreset;
  startDate: string | undefined;
  endDate: string | undefined;
}

/** `fallback` is the preset of a URL without one (Spend reads a month by default, Usage a week). */
export function resolveRange(params: { get(name: string): string | null }, timeZone: string, now: Date = new Date(), fallback: RangePreset = DEFAULT_RANGE): ResolvedRange {
  const raw = params.get("range");
  const start = params.get("start_date") ?? undefined;
  const end = params.get("end_date") ?? undefined;
  // Explicit dates without a preset (a link from elsewhere) are a custom range.
  const preset: RangePreset = raw && (rangePresets as readonly string[]).includes(raw) ? (raw as RangePreset) : start || end ? "custom" : fallback;
  if (preset === "custom") return { preset, startDate: start, endDate: end };
  const today = todayIn(timeZone, now);
  return { preset, startDate: addDays(today, -(presetDays[preset] - 1)), endDate: today };
}
