import { eq, sql } from "drizzle-orm";
import { alertSettings } from "../db/schema";
import type { Db } from "../db/types";
import { invalidInput } from "../errors";
import { creditsToNumber, creditsToSql, isCreditString } from "../money";
import { type Actor, SYSTEM, recordActivity } from "../accounts/activity";

/** What an account has no alert_settings row for: no low-balance alert, budgets at 50/80/100 %. */
export const DEFAULT_BUDGET_PERCENTS = [50, 80, 100] as const;

export interface AlertSettings {
  account_id: string;
  /** Notify when the balance falls below this many credits; null = never. */
  low_balance_credits: number | null;
  /** Notify when a budget's spend reaches each of these percentages of its limit (once per period). */
  budget_percents: number[];
  updated_at: string | null;
}

export interface AlertSettingsChange {
  /** A decimal string or number; null clears the alert; undefined leaves it. */
  lowBalanceCredits?: string | number | null;
  budgetPercents?: readonly number[];
}

/** Integers 1..100, sorted, each once. */
export function normaliseBudgetPercents(values: readonly number[]): number[] {
  for (const v of values) {
    if (!Number.isInteger(v) || v < 1 || v > 100) throw invalidInput(`budget percents must be integers from 1 to 100 (got ${v})`);
  }
  return [...new Set(values)].sort((a, b) => a - b);
}

function lowBalanceSql(value: string | number | null): string | null {
  if (value === null) return null;
  const text = String(value);
  if (!isCreditString(text) || text.startsWith("-")) throw invalidInput(`low balance must be a non-negative number of credits with at most 6 decimals (got ${text})`);
  return creditsToSql(text);
}

export async function getAlertSettings(db: Db, { accountId }: { accountId: string }): Promise<AlertSettings> {
  const [row] = await db.select().from(alertSettings).where(eq(alertSettings.accountId, accountId));
  if (!row) return { account_id: accountId, low_balance_credits: null, budget_percents: [...DEFAULT_BUDGET_PERCENTS], updated_at: null };
  return {
    account_id: accountId,
    low_balance_credits: row.lowBalanceCredits === null ? null : creditsToNumber(row.lowBalanceCredits),
    budget_percents: row.budgetPercents,
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Changes what is given and keeps the rest (one upsert), recorded as `alerts.updated` with the settings before and after. Validates before writing anything. */
export async function setAlertSettings(db: Db, { accountId, change, actor }: { accountId: string; change: AlertSettingsChange; actor?: Actor }): Promise<AlertSettings> {
  const low = change.lowBalanceCredits === undefined ? undefined : lowBalanceSql(change.lowBalanceCredits);
  const percents = change.budgetPercents === undefined ? undefined : normaliseBudgetPercents(change.budgetPercents);
  return db.transaction(async (t) => {
    const tx = t as unknown as Db;
    await tx.execute(sql`SELECT 1 FROM alert_settings WHERE account_id = ${accountId} FOR UPDATE`);
    const before = await getAlertSettings(tx, { accountId });
    await tx
      .insert(alertSettings)
      .values({ accountId, lowBalanceCredits: low ?? null, budgetPercents: percents ?? [...DEFAULT_BUDGET_PERCENTS] })
      .onConflictDoUpdate({
        target: alertSettings.accountId,
        set: {
          ...(low !== undefined ? { lowBalanceCredits: low } : {}),
          ...(percents !== undefined ? { budgetPercents: percents } : {}),
          updatedAt: sql`now()`,
        },
      });
    const after = await getAlertSettings(tx, { accountId });
    const shown = (a: AlertSettings) => ({ low_balance_credits: a.low_balance_credits, budget_percents: a.budget_percents });
    await recordActivity(tx, accountId, actor ?? SYSTEM, { action: "alerts.updated", objectType: "alert_settings", objectId: accountId, before: shown(before), after: shown(after) });
    return after;
  });
}
