import { type SQL, sql } from "drizzle-orm";
import { creditsToNumber } from "../money";
import type { UsageEventItem } from "./schemas";
import { anomaliesOf } from "./usage-filters";
import { sourceRefId, usageJson } from "./usage-compact";

/** The columns of a usage event item (alias `e`); the audit payloads only with details. */
export function usageItemColumns(details: boolean): SQL {
  return sql`e.id, e.event_type, e.channel, e.source_system, e.source_ref_type, ${sourceRefId()} AS source_ref_id, e.session_id, e.search_id,
    e.execution_id, e.tool_id, (SELECT t.name FROM tools t WHERE t.id = e.tool_id) AS tool_name, e.api_key_id,
    (SELECT k.name FROM api_keys k WHERE k.id = e.api_key_id) AS api_key_name, e.success, e.billable_success, e.charge_outcome, e.reason_code, e.error_message, e.duration_ms,
    e.billing_snapshot_status, e.billing_rule_snapshot, ${usageJson("pre_settlement_bill")} AS pre_settlement_bill,
    ${usageJson("settlement_result")} AS settlement_result,
    e.pre_settlement_amount_credits::text AS pre_settlement_amount_credits, e.settled_amount_credits::text AS settled_amount_credits,
    e.requested_amount_credits::text AS requested_amount_credits, e.actual_amount_credits::text AS actual_amount_credits,
    ${usageJson("execution_outcome")} AS execution_outcome, e.outcome, e.credits_ledger_entry_id, e.display_target, e.billing_summary,
    e.model, e.run_id, e.oauth_client_id, e.cache_hit, ${anomaliesOf} AS anomalies,
    ${details ? sql`${usageJson("request_payload")} AS request_payload, e.response_payload_summary,` : sql``}
    e.created_at`;
}

export interface UsageEventRecord {
  id: string;
  event_type: UsageEventItem["event_type"];
  channel: UsageEventItem["channel"];
  source_system: string;
  source_ref_type: string | null;
  source_ref_id: string | null;
  session_id: string | null;
  search_id: string | null;
  execution_id: string | null;
  tool_id: string | null;
  tool_name: string | null;
  api_key_id: string | null;
  api_key_name: string | null;
  success: boolean;
  billable_success: boolean;
  charge_outcome: UsageEventItem["charge_outcome"];
  reason_code: string | null;
  error_message: string | null;
  duration_ms: number | null;
  billing_snapshot_status: string;
  billing_rule_snapshot: unknown;
  pre_settlement_bill: unknown;
  settlement_result: unknown;
  pre_settlement_amount_credits: string;
  settled_amount_credits: string;
  requested_amount_credits: string;
  actual_amount_credits: string;
  execution_outcome: unknown;
  outcome: string | null;
  credits_ledger_entry_id: string | null;
  display_target: string | null;
  billing_summary: string | null;
  model: string | null;
  run_id: string | null;
  oauth_client_id: string | null;
  cache_hit: boolean;
  anomalies: UsageEventItem["anomalies"] | string;
  request_payload?: unknown;
  response_payload_summary?: unknown;
  created_at: Date | string;
}

/** A text[] comes back as an array from node-postgres and PGlite alike; guard the literal form anyway. */
function textArray(v: string[] | string): string[] {
  if (Array.isArray(v)) return v;
  const inner = v.replace(/^\{|\}$/g, "");
  return inner === "" ? [] : inner.split(",");
}

export function toIso(v: Date | string): string {
  return (v instanceof Date ? v : new Date(v)).toISOString();
}

/** A usage event row as the contract's item: amounts become JSON numbers only here. */
export function usageItem(r: UsageEventRecord, details: boolean): UsageEventItem {
  return {
    id: r.id,
    event_type: r.event_type,
    channel: r.channel,
    source_system: r.source_system,
    source_ref_type: r.source_ref_type,
    source_ref_id: r.source_ref_id,
    session_id: r.session_id,
    search_id: r.search_id,
    execution_id: r.execution_id,
    tool_id: r.tool_id,
    tool_name: r.tool_name,
    api_key_id: r.api_key_id,
    api_key_name: r.api_key_name,
    success: r.success,
    billable_success: r.billable_success,
    charge_outcome: r.charge_outcome,
    reason_code: r.reason_code,
    error_message: r.error_message,
    duration_ms: r.duration_ms,
    billing_snapshot_status: r.billing_snapshot_status,
    billing_rule_snapshot: r.billing_rule_snapshot,
    pre_settlement_bill: r.pre_settlement_bill,
    settlement_result: r.settlement_result,
    pre_settlement_amount_credits: creditsToNumber(r.pre_settlement_amount_credits),
    settled_amount_credits: creditsToNumber(r.settled_amount_credits),
    requested_amount_credits: creditsToNumber(r.requested_amount_credits),
    actual_amount_credits: creditsToNumber(r.actual_amount_credits),
    execution_outcome: r.execution_outcome,
    outcome: r.outcome,
    credits_ledger_entry_id: r.credits_ledger_entry_id,
    display_target: r.display_target,
    billing_summary: r.billing_summary,
    model: r.model,
    run_id: r.run_id,
    oauth_client_id: r.oauth_client_id,
    cache_hit: r.cache_hit,
    anomalies: textArray(r.anomalies) as UsageEventItem["anomalies"],
    ...(details ? { request_payload: r.request_payload ?? null, response_payload_summary: r.response_payload_summary ?? null } : {}),
    created_at: toIso(r.created_at),
  };
}
