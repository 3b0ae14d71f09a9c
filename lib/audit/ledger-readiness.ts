import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { credits, creditsToNumber } from "../money";
import { type ReadinessRow, type ViolationCheck, readinessQuery, violationChecks } from "./readiness-checks";
import { analytic } from "./analytic";
import { readinessCoverage } from "./ready-days";
import { type WindowRequest, inWindow, resolveWindow } from "./time-window";

interface Edges {
  first_before: string | null;
  last_after: string | null;
  current: string | null;
}

const descriptions: Record<ViolationCheck | "balance_delta" | "current_balance", string> = {
  missing_ledger_links: "Every charged or failed_charged_review usage event has a ledger row",
  duplicate_ledger_links: "No charged event has more than one ledger row",
  amount_mismatches: "Each charged event's ledger row amount equals minus its actual_amount_credits",
  uncharged_with_ledger: "included and failed_not_charged events have no ledger row",
  consume_without_event: "Every consume row (except consume_payment_refund) has its usage event",
  consume_duplicate_events: "No consume row is claimed by more than one usage event",
  chain_breaks: "The balance chain is continuous: each row's balance_before equals the previous row's balance_after, and balance_after = balance_before + amount_credits",
  balance_delta: "The sum of amount_credits in the range equals balance_end - balance_start",
  current_balance: "The last balance_after equals the account's current total credits (checked when the range is open-ended)",
};

/**
 * `GET /auth/credits/ledger-readiness`: whether the account history in the range can be served
 * from the ledger alone. Whole UTC days sealed into `ledger_daily_summary`, and the hours of the
 * open day sealed into `ledger_hourly_summary`, passed every check when they were sealed (rows are
 * written only then, and never change); the rest of the range (partial hours at the edges, the
 * unsealed tail, and any day or hour that failed) is checked live by the same SQL. Without dates
 * the range is the account's whole history up to now.
 */
export async function ledgerReadiness(db: Db, accountId: string, input: WindowRequest) {
  const w = await resolveWindow(db, accountId, input);
  const { start: startIso, end: endIso, ready, uncovered } = await readinessCoverage(db, accountId, w);
  // The live checks and the range's balance edges in one statement.
  const live = (
    await analytic<ReadinessRow & Edges>(
      db,
      sql`
      SELECT r.*,
             (SELECT l.balance_before::text FROM credits_ledger l
               WHERE l.account_id = ${accountId} AND ${inWindow(sql.raw("l.created_at"), startIso, endIso)}
               ORDER BY l.created_at ASC NULLS FIRST, l.seq ASC NULLS FIRST LIMIT 1) AS first_before,
             (SELECT l.balance_after::text FROM credits_ledger l
               WHERE l.account_id = ${accountId} AND ${inWindow(sql.raw("l.created_at"), startIso, endIso)}
               ORDER BY l.created_at DESC NULLS LAST, l.seq DESC NULLS LAST LIMIT 1) AS last_after,
             (SELECT (paid_credits + bonus_credits + reward_credits)::text FROM credit_balances WHERE account_id = ${accountId}) AS current
        FROM (${readinessQuery({ accountId, ranges: uncovered, bucket: () => sql`'all'`, buckets: sql`SELECT 'all'`, probe: true })}) r`,
    )
  )[0];

  const net = ready.reduce((acc, d) => acc.plus(d.net), credits(live.net_amount));
  const checks = violationChecks.map((name) => ({
    name,
    passed: live[name] === 0,
    violations: live[name],
    description: descriptions[name],
    sample_ids: live.samples[name] ?? [],
  }));
  const deltaOk = live.first_before === null || live.last_after === null || credits(live.last_after).minus(live.first_before).eq(net);
  checks.push({ name: "balance_delta" as ViolationCheck, passed: deltaOk, violations: deltaOk ? 0 : 1, description: descriptions.balance_delta, sample_ids: [] });
  if (w.endDate === null) {
    const ok = live.last_after === null || live.current === null || credits(live.last_after).eq(live.current);
    checks.push({ name: "current_balance" as ViolationCheck, passed: ok, violations: ok ? 0 : 1, description: descriptions.current_balance, sample_ids: [] });
  }
  const sum = (k: "events_checked" | "charged_events" | "entry_count") => ready.reduce((acc, d) => acc + d[k], 0);
  return {
    ready: checks.every((c) => c.passed),
    start_date: startIso,
    end_date: endIso,
    checks,
    events_checked: sum("events_checked") + live.events_checked,
    charged_events: sum("charged_events") + live.charged_events,
    ledger_entries_checked: sum("entry_count") + live.ledger_entries_checked,
    balance_start: live.first_before === null ? null : creditsToNumber(live.first_before),
    balance_end: live.last_after === null ? null : creditsToNumber(live.last_after),
    net_amount_credits: creditsToNumber(net),
    sealed_days: ready.filter((d) => d.unit === "day").length,
    sealed_hours: ready.filter((d) => d.unit === "hour").length,
    live_checked_until: w.now.toISOString(),
  };
}
