import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { ensureUsagePartitions } from "../db/partitions";
import { rows } from "../db/row-sql";
import { compactJsonText, compactSourceRefIdText } from "../audit/usage-compact";
import { deleteExpiredResults } from "../execution/result-store";
import { countReservationsReleased } from "../observability/metrics";
import { expireCreditGrants, notifyExpiringGrants } from "./expire-grants";

/**
 * Releases reservations whose Call never settled (the process died between reserve and settle,
 * or hung far past the tool's timeout). Each released execution gets an honest record:
 * `transport.execution_failed`, `failed_not_charged`, and a usage event. Safe to run on every
 * instance at once (`FOR UPDATE SKIP LOCKED`); one statement per batch.
 */
export async function sweepExpiredReservations(db: Db, batchSize = 100): Promise<number> {
  const result = await db.execute(sql`
    WITH due AS (
      SELECT id, account_id FROM executions
       WHERE status = 'reserved' AND reservation_expires_at < now()
       ORDER BY reservation_expires_at LIMIT ${batchSize}
    ), locked AS (
      -- Balance rows in account order, then execution rows, then token rows in jti order: the
      -- order every Call statement takes them in, so a sweep and a batch of Calls cannot deadlock.
      SELECT account_id FROM credit_balances WHERE account_id IN (SELECT account_id FROM due)
       ORDER BY account_id FOR UPDATE
    ), ex AS (
      UPDATE executions e
         SET status = 'released', success = false, reason_code = 'transport.execution_failed',
             charge_outcome = 'failed_not_charged', settled_credits = 0, settled_at = now()
       WHERE e.id IN (SELECT id FROM executions
                       WHERE id IN (SELECT id FROM due) AND status = 'reserved' AND (SELECT count(*) FROM locked) >= 0
                       FOR UPDATE SKIP LOCKED)
   RETURNING e.id, e.account_id, e.api_key_id, e.tool_id, e.search_id, e.session_id, e.model, e.run_id, e.oauth_client_id, e.channel,
             e.reserved_credits, e.delegation_jti, e.parameters, e.created_at, e.budget_ids
    ), per_budget AS (
      SELECT bid, sum(reserved_credits) AS total FROM ex CROSS JOIN unnest(ex.budget_ids) AS bid GROUP BY bid
    ), brel AS (
      -- Budget rows are only changed under their account's balance row lock (taken by \`locked\`).
      UPDATE budgets b SET reserved_credits = greatest(b.reserved_credits - pb.total, 0), updated_at = now()
        FROM per_budget pb WHERE b.id = pb.bid
    ), per_account AS (
      SELECT account_id, sum(reserved_credits) AS total FROM ex GROUP BY account_id
    ), rel AS (
      UPDATE credit_balances cb SET reserved_credits = greatest(cb.reserved_credits - pa.total, 0), updated_at = now()
        FROM per_account pa JOIN locked USING (account_id) WHERE cb.account_id = pa.account_id
    ), per_token AS (
      SELECT delegation_jti, sum(reserved_credits) AS total FROM ex WHERE delegation_jti IS NOT NULL GROUP BY delegation_jti
    ), tokens AS (
      SELECT jti FROM delegation_spend
       WHERE jti IN (SELECT delegation_jti FROM per_token) AND (SELECT count(*) FROM locked) >= 0
       ORDER BY jti FOR UPDATE
    ), tok AS (
      UPDATE delegation_spend ds SET reserved_credits = greatest(ds.reserved_credits - pt.total, 0)
        FROM per_token pt JOIN tokens t ON t.jti = pt.delegation_jti WHERE ds.jti = pt.delegation_jti
    ), full_event AS (
      -- The event as written; the insert below stores it without the JSON keys that repeat a column.
      SELECT gen_random_uuid() AS id, ex.account_id, ex.api_key_id, 'tool_execute' AS event_type, 'execution' AS source_ref_type,
             ex.id AS source_ref_id, ex.session_id, ex.search_id, ex.id AS execution_id, ex.tool_id,
             'failed_not_charged' AS charge_outcome, 'transport.execution_failed' AS reason_code,
             (extract(epoch from now() - ex.created_at) * 1000)::int AS duration_ms,
             CASE WHEN t.id IS NULL THEN 'missing' ELSE 'captured' END AS billing_snapshot_status,
             coalesce(t.billing_rule, CASE WHEN t.id IS NULL THEN NULL ELSE '{"unit":"free","amount_credits":0}'::jsonb END) AS billing_rule_snapshot,
             jsonb_build_object('execution_id', ex.id, 'summary', 'Not charged', 'list_amount_credits', 0) AS pre_settlement_bill,
             jsonb_build_object('settled_amount_credits', 0, 'released_by', 'reservation_sweeper') AS settlement_result,
             0::numeric AS pre_settlement_amount_credits, 0::numeric AS settled_amount_credits, ex.reserved_credits AS requested_amount_credits,
             jsonb_build_object('outcome', 'transport_error', 'reason_code', 'transport.execution_failed',
                                'charge_outcome', 'failed_not_charged', 'cache_hit', false) AS execution_outcome,
             'transport_error' AS outcome, 'Not charged: reservation released' AS billing_summary, ex.tool_id AS display_target,
             jsonb_build_object('tool_id', ex.tool_id, 'parameters', ex.parameters) AS request_payload, false AS cache_hit, ex.model, ex.run_id, ex.oauth_client_id, ex.channel
        FROM ex LEFT JOIN tools t ON t.id = ex.tool_id
    ), ev AS (
      INSERT INTO usage_events (id, account_id, api_key_id, event_type, source_system, source_ref_type, source_ref_id,
                                session_id, search_id, execution_id, tool_id, success, billable_success, charge_outcome,
                                reason_code, error_message, duration_ms, billing_snapshot_status, billing_rule_snapshot, pre_settlement_bill,
                                settlement_result, pre_settlement_amount_credits, settled_amount_credits, actual_amount_credits,
                                requested_amount_credits, execution_outcome, outcome, billing_summary, display_target, request_payload,
                                cache_hit, model, run_id, oauth_client_id, channel)
      SELECT f.id, f.account_id, f.api_key_id, f.event_type, 'tollgate', f.source_ref_type, ${sql.raw(compactSourceRefIdText("f"))},
             f.session_id, f.search_id, f.execution_id, f.tool_id, false, false, f.charge_outcome,
             f.reason_code, 'The call did not complete; its credit reservation was released', f.duration_ms, f.billing_snapshot_status,
             f.billing_rule_snapshot, ${sql.raw(compactJsonText("pre_settlement_bill", "f"))}, ${sql.raw(compactJsonText("settlement_result", "f"))},
             f.pre_settlement_amount_credits, f.settled_amount_credits, f.settled_amount_credits, f.requested_amount_credits,
             ${sql.raw(compactJsonText("execution_outcome", "f"))}, f.outcome, f.billing_summary, f.display_target,
             ${sql.raw(compactJsonText("request_payload", "f"))}, f.cache_hit, f.model, f.run_id, f.oauth_client_id, f.channel
        FROM full_event f
    )
    SELECT count(*)::int AS released FROM ex`);
  const released = rows<{ released: number }>(result)[0]?.released ?? 0;
  countReservationsReleased(released);
  return released;
}

/**
 * Runs the sweeper periodically (expired reservations, expired stored results, expired credit
 * grants, notices of grants about to expire; once an hour, the usage_events partitions of the
 * months ahead); returns a function that stops it.
 */
export function startReservationSweeper(db: Db, intervalMs = 15_000, onError?: (err: Error) => void): () => void {
  let partitionsCheckedAt = 0;
  const timer = setInterval(() => {
    if (Date.now() - partitionsCheckedAt >= 3_600_000) {
      partitionsCheckedAt = Date.now();
      ensureUsagePartitions(db).catch((err: Error) => onError?.(err));
    }
    sweepExpiredReservations(db).catch((err: Error) => onError?.(err));
    deleteExpiredResults(db).catch((err: Error) => onError?.(err));
    expireCreditGrants(db).catch((err: Error) => onError?.(err));
    notifyExpiringGrants(db).catch((err: Error) => onError?.(err));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
