import { type SQL, sql } from "drizzle-orm";
import { type TimeWindow, sealedSpan, wholeDays } from "./time-window";
import type { UsageFilters } from "./usage-filters";

/**
 * The spend rollup `usage_spend_day` (migration 0027; filled by `usage_spend_day_fill` when the
 * seal completes a UTC day): one row per account, day, dimension and value. It answers a request
 * that names one dimension — grouped by it, filtered on it, or both — and nothing it does not keep
 * (event type, success); a request across two dimensions is counted from the events.
 */
export type SpendDim = "tool" | "api_key" | "oauth_client" | "model" | "run_id" | "channel" | "charge_outcome";

/** The spend filters (UsageFilters' keys), each with its dimension: a provider is its tools'. */
const FILTER_DIM = {
  toolId: "tool",
  providerId: "tool",
  apiKeyId: "api_key",
  oauthClientId: "oauth_client",
  model: "model",
  runId: "run_id",
  channel: "channel",
  chargeOutcome: "charge_outcome",
} as const satisfies Partial<Record<keyof UsageFilters, SpendDim>>;

type SpendFilterKey = keyof typeof FILTER_DIM;

/**
 * The one dimension a request needs (`grouped`: the dimensions it groups by, already mapped), or
 * null when the rollup cannot answer it: two dimensions, or a filter the rollup does not keep.
 * Undefined when the request names no dimension at all.
 */
export function spendDimOf(grouped: SpendDim[], f: UsageFilters): SpendDim | null | undefined {
  const dims = new Set<SpendDim>(grouped);
  for (const [key, value] of Object.entries(f) as [keyof UsageFilters, unknown][]) {
    if (value === undefined) continue;
    if (!(key in FILTER_DIM)) return null;
    dims.add(FILTER_DIM[key as SpendFilterKey]);
  }
  if (dims.size > 1) return null;
  return dims.size === 0 ? undefined : [...dims][0];
}

/** Conditions on rollup rows (alias `r`) of dimension `dim`: the dimension and the filters on it. */
export function spendDimConditions(accountId: string, dim: SpendDim, f: UsageFilters): SQL[] {
  const out: SQL[] = [sql`r.account_id = ${accountId}`, sql`r.dim = ${dim}`];
  if (f.toolId !== undefined) out.push(sql`r.value = ${f.toolId}`);
  if (f.providerId !== undefined) out.push(sql`r.value IN (SELECT id FROM tools WHERE provider_id = ${f.providerId})`);
  if (f.apiKeyId !== undefined) out.push(sql`r.value = ${f.apiKeyId}::uuid::text`);
  if (f.oauthClientId !== undefined) out.push(sql`r.value = ${f.oauthClientId}`);
  if (f.model !== undefined) out.push(sql`r.value = ${f.model}`);
  if (f.runId !== undefined) out.push(sql`r.value = ${f.runId}`);
  if (f.channel !== undefined) out.push(sql`r.value = ${f.channel}`);
  if (f.chargeOutcome !== undefined) out.push(sql`r.value = ${f.chargeOutcome}`);
  return out;
}

/**
 * The whole UTC days of the window the rollup holds, [lo, hi) at midnights (lo null: from the
 * account's start), or null when it holds none. A day is in the rollup once the seal has passed
 * its end; the rest of the window (its edges, today) is read from the events.
 */
export function spendDays(w: TimeWindow): { lo: Date | null; hi: Date } | null {
  const span = sealedSpan(w);
  if (!span) return null;
  const { lo, hi } = wholeDays(span);
  return lo !== null && lo >= hi ? null : { lo, hi };
}

/**
 * A rollup row's (alias `r`) events or settled credits in its day's UTC hours before `hour`
 * (an SQL integer 0..24): the running sums hold hours 1..23, hour 0 is nothing and 24 the day.
 */
export function beforeHour(measure: "events" | "settled", hour: SQL): SQL {
  const total = sql.raw(measure === "events" ? "r.event_count" : "r.settled_credits");
  const sums = sql.raw(measure === "events" ? "r.events_before_hour" : "r.settled_before_hour");
  return sql`(CASE WHEN ${hour} <= 0 THEN 0 WHEN ${hour} >= 24 THEN ${total} ELSE ${sums}[${hour}] END)`;
}
