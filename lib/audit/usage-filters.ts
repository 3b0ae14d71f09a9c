import { type SQL, sql } from "drizzle-orm";
import type { ChargeOutcome, UsageChannel, UsageEventType } from "../db/schema";
import { invalidInput } from "../errors";
import { credits } from "../money";
import { inWindow } from "./time-window";

/** Contract 4.2 `kind`: a group of event types. */
export const usageKinds = {
  discover: ["search", "search_by_ids"],
  call: ["tool_execute", "capabilities_query"],
  model: ["model_call"],
} as const satisfies Record<string, readonly UsageEventType[]>;
export type UsageKind = keyof typeof usageKinds;

export const anomalies = ["failed_charged_review", "missing_ledger_link", "missing_billing_snapshot"] as const;
export type Anomaly = (typeof anomalies)[number];

export interface UsageFilters {
  eventType?: UsageEventType;
  channel?: UsageChannel;
  kind?: UsageKind;
  success?: boolean;
  billableSuccess?: boolean;
  outcome?: string;
  reasonCode?: string;
  hasExecutionOutcome?: boolean;
  chargeOutcome?: ChargeOutcome;
  anomaly?: Anomaly;
  searchId?: string;
  executionId?: string;
  apiKeyId?: string;
  /** Spend attribution (extension): the tool, its provider, the OAuth client, the model and the agent run. */
  toolId?: string;
  providerId?: string;
  oauthClientId?: string;
  model?: string;
  runId?: string;
  /** Exact decimal strings, already checked by `parseCreditBounds`. */
  minCredits?: string;
  maxCredits?: string;
  /**
   * Set by `withAnomalyScope` for `missing_ledger_link`: the only time ranges where such an event
   * can be (days proven ready have none).
   */
  within?: [string | null, string][];
}

const CHARGED = sql.raw(`('charged', 'failed_charged_review')`);

/**
 * Whether a usage event (alias `e`) has a ledger row: by its `credits_ledger_entry_id`, by the
 * row's `usage_event_id` (a refund row names its charge's event too, and is not the charge), or
 * (Calls) by a consume row of the same execution. The CASE stops at the first link found, so the
 * usual case costs one primary-key probe.
 */
const HAS_LEDGER_ROW = `(CASE
  WHEN e.credits_ledger_entry_id IS NOT NULL AND EXISTS (SELECT 1 FROM credits_ledger l WHERE l.id = e.credits_ledger_entry_id AND l.account_id = e.account_id) THEN true
  WHEN EXISTS (SELECT 1 FROM credits_ledger l WHERE l.usage_event_id = e.id AND l.account_id = e.account_id AND l.entry_type NOT LIKE 'refund%') THEN true
  WHEN e.execution_id IS NOT NULL AND EXISTS (SELECT 1 FROM credits_ledger l WHERE l.execution_id = e.execution_id AND l.account_id = e.account_id AND l.entry_type LIKE 'consume%') THEN true
  ELSE false END)`;
export const hasLedgerRow = sql.raw(HAS_LEDGER_ROW);

/**
 * A `failed_charged_review` event (alias `e`) still awaiting review: its execution has not been
 * refunded in full. The event itself never changes; support refunds raise the execution's
 * `refunded_credits` (one primary-key probe).
 */
export const IN_REVIEW = `(e.charge_outcome = 'failed_charged_review' AND NOT EXISTS (
  SELECT 1 FROM executions x WHERE x.id = e.execution_id AND x.account_id = e.account_id
     AND x.refunded_credits > 0 AND x.refunded_credits >= x.settled_credits))`;

/** Computed anomalies of an event (alias `e`), never stored: a text[] for the item. */
export const anomaliesOf = sql.raw(`array_remove(ARRAY[
  CASE WHEN ${IN_REVIEW} THEN 'failed_charged_review' END,
  CASE WHEN e.charge_outcome IN ('charged', 'failed_charged_review') AND NOT ${HAS_LEDGER_ROW} THEN 'missing_ledger_link' END,
  CASE WHEN e.event_type = 'tool_execute' AND e.billing_snapshot_status <> 'captured' THEN 'missing_billing_snapshot' END
], NULL)`);

/**
 * The WHERE conditions of a usage filter, on raw events (alias `e`) or on the hourly rollup
 * (alias `r`). For the rollup, null means the filter cannot be answered from it (ids, amounts,
 * missing ledger links) and the caller must count raw rows.
 */
export function usageConditions(f: UsageFilters, target: "events" | "rollup"): SQL[] | null {
  const t = target === "events" ? "e" : "r";
  const col = (name: string) => sql.raw(`${t}.${name}`);
  const out: SQL[] = outcomeConditions(f, t);
  if (f.billableSuccess !== undefined) out.push(sql`${col("billable_success")} = ${f.billableSuccess}`);
  if (f.outcome !== undefined) out.push(sql`${col("outcome")} = ${f.outcome}`);
  if (f.reasonCode !== undefined) out.push(sql`${col("reason_code")} = ${f.reasonCode}`);
  if (f.hasExecutionOutcome !== undefined) {
    out.push(target === "events" ? sql.raw(`e.execution_outcome IS ${f.hasExecutionOutcome ? "NOT " : ""}NULL`) : sql`r.has_execution_outcome = ${f.hasExecutionOutcome}`);
  }
  switch (f.anomaly) {
    case undefined:
      break;
    case "failed_charged_review":
      // The rollups count outcomes, not refunds: open review cases are counted from raw rows.
      if (target === "rollup") return null;
      out.push(sql.raw(IN_REVIEW));
      break;
    case "missing_billing_snapshot":
      out.push(sql`${col("event_type")} = 'tool_execute' AND ${col("billing_snapshot_status")} <> 'captured'`);
      break;
    case "missing_ledger_link":
      if (target === "rollup") return null;
      out.push(sql`e.charge_outcome IN ${CHARGED} AND NOT ${hasLedgerRow}`);
      if (f.within) {
        const ranges = f.within.map(([from, to]) => sql`(${inWindow(sql.raw("e.created_at"), from, to)})`);
        out.push(ranges.length === 0 ? sql`false` : sql`(${sql.join(ranges, sql` OR `)})`);
      }
      break;
  }
  if (f.toolId !== undefined || f.providerId !== undefined || f.oauthClientId !== undefined || f.model !== undefined || f.runId !== undefined) {
    // The summary's hourly rollup has no attribution dimensions (the spend rollup has: lib/audit/breakdown.ts).
    if (target === "rollup") return null;
    out.push(...attributionConditions(f, "e"));
  }
  if (f.channel !== undefined || f.searchId !== undefined || f.executionId !== undefined || f.minCredits !== undefined || f.maxCredits !== undefined) {
    // The hourly rollup has no channel dimension: a channel filter counts raw rows.
    if (target === "rollup") return null;
    if (f.channel !== undefined) out.push(sql`e.channel = ${f.channel}`);
    if (f.searchId !== undefined) out.push(sql`e.search_id = ${f.searchId}`);
    if (f.executionId !== undefined) out.push(sql`e.execution_id = ${f.executionId}`);
    if (f.minCredits !== undefined) out.push(sql`e.actual_amount_credits >= ${f.minCredits}::numeric`);
    if (f.maxCredits !== undefined) out.push(sql`e.actual_amount_credits <= ${f.maxCredits}::numeric`);
  }
  return out;
}

/**
 * The filters every usage table answers — events, the summary's rollups and the spend rollups
 * (alias `t`): event type, kind, success, charge outcome and API key.
 */
export function outcomeConditions(f: UsageFilters, t: string): SQL[] {
  const col = (name: string) => sql.raw(`${t}.${name}`);
  const out: SQL[] = [];
  if (f.eventType) out.push(sql`${col("event_type")} = ${f.eventType}`);
  if (f.kind) out.push(sql`${col("event_type")} IN (${sql.join(usageKinds[f.kind].map((k) => sql`${k}`), sql`, `)})`);
  if (f.success !== undefined) out.push(sql`${col("success")} = ${f.success}`);
  if (f.chargeOutcome) out.push(sql`${col("charge_outcome")} = ${f.chargeOutcome}`);
  if (f.apiKeyId) out.push(sql`${col("api_key_id")} = ${f.apiKeyId}::uuid`);
  return out;
}

/** The attribution filters on rows (alias `t`) that carry tool_id, oauth_client_id, model and run_id: events or the spend rollup. */
export function attributionConditions(f: UsageFilters, t: string): SQL[] {
  const col = (name: string) => sql.raw(`${t}.${name}`);
  const out: SQL[] = [];
  if (f.toolId !== undefined) out.push(sql`${col("tool_id")} = ${f.toolId}`);
  if (f.providerId !== undefined) out.push(sql`${col("tool_id")} IN (SELECT id FROM tools WHERE provider_id = ${f.providerId})`);
  if (f.oauthClientId !== undefined) out.push(sql`${col("oauth_client_id")} = ${f.oauthClientId}`);
  if (f.model !== undefined) out.push(sql`${col("model")} = ${f.model}`);
  if (f.runId !== undefined) out.push(sql`${col("run_id")} = ${f.runId}`);
  return out;
}

export function and(conditions: SQL[]): SQL {
  return conditions.length === 0 ? sql`true` : sql.join(conditions, sql` AND `);
}

const DECIMAL = /^-?\d{1,14}(\.\d+)?$/;

/**
 * `min_credits` / `max_credits` (usage and ledger): decimal numbers, each >= 0, min <= max; anything
 * else is the contract's 400 -7 ("negative/invalid credit bounds"), not a 422. An empty value is
 * absent, as for the dates.
 */
export function parseCreditBounds(rawMin: string | undefined, rawMax: string | undefined): { minCredits?: string; maxCredits?: string } {
  const bound = (name: string, v: string | undefined) => {
    if (v === undefined || v === "") return undefined;
    if (!DECIMAL.test(v)) throw invalidInput(`Invalid ${name}: "${v.slice(0, 32)}". Credit bounds must be decimal numbers greater than or equal to 0`);
    const value = credits(v);
    if (value.lt(0)) throw invalidInput(`Invalid ${name}: ${v}. Credit bounds must be greater than or equal to 0`);
    return value;
  };
  const min = bound("min_credits", rawMin);
  const max = bound("max_credits", rawMax);
  if (min && max && min.gt(max)) throw invalidInput(`min_credits (${rawMin}) must not be greater than max_credits (${rawMax})`);
  return { minCredits: min?.toFixed(), maxCredits: max?.toFixed() };
}
