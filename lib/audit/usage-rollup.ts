import { type SQL, sql } from "drizzle-orm";
import { type ChargeOutcome, chargeOutcomes } from "../db/schema";
import { inWindow, wholeDays } from "./time-window";
import { and } from "./usage-filters";

/**
 * Rollup rows (alias `r`: event_count, charge_outcome, success, pre_settlement_credits,
 * settled_credits, api_key_id) covering the sealed whole hours [lo, hi): whole UTC days from
 * `usage_daily_rollup`, the hours of partial days from `usage_hourly_rollup`. A total over 90 days
 * then reads ~90 rows per dimension combination instead of ~2,000.
 */
export function usageRollupRows(accountId: string, span: { lo: Date | null; hi: Date }, conditions: SQL[]): SQL {
  const cols = sql.raw("r.event_count, r.charge_outcome, r.success, r.pre_settlement_credits, r.settled_credits, r.api_key_id");
  const where = and(conditions);
  const hourly = (from: Date | null, to: Date) =>
    sql`SELECT ${cols} FROM usage_hourly_rollup r WHERE r.account_id = ${accountId} AND ${inWindow(sql.raw("r.hour_start"), from, to)} AND ${where}`;
  const { lo: dayLo, hi: dayHi } = wholeDays(span);
  if (dayLo !== null && dayLo >= dayHi) return hourly(span.lo, span.hi);
  const parts = [sql`SELECT ${cols} FROM usage_daily_rollup r WHERE r.account_id = ${accountId} AND ${inWindow(sql.raw("r.day_start"), dayLo, dayHi)} AND ${where}`];
  if (span.lo !== null && dayLo !== null && dayLo > span.lo) parts.push(hourly(span.lo, dayLo));
  if (span.hi > dayHi) parts.push(hourly(dayHi, span.hi));
  return sql.join(parts, sql` UNION ALL `);
}

/** Each charge outcome's count column in the audit queries, in the schema's order. */
const OUTCOME_COLUMN: Record<ChargeOutcome, string> = { charged: "charged", included: "included", failed_not_charged: "fnc", failed_charged_review: "fcr" };

/** The four outcome counts as SELECT columns (charged, included, fnc, fcr), each `count(outcome)`. */
export function outcomeCounts(count: (outcome: ChargeOutcome) => string): SQL {
  return sql.raw(chargeOutcomes.map((o) => `${count(o)} AS ${OUTCOME_COLUMN[o]}`).join(", "));
}
