"use client";

import { useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { budgetTone, budgetsQueryKey, fetchBudgets, type BudgetItem } from "@/lib/dashboard/budgets";
import type { MessageKey } from "@/lib/dashboard/i18n";
import { formatCredits, formatDateTime, todayIn } from "@/lib/dashboard/format";
import { breakdownQueryKey, fetchBreakdown, monthStart } from "@/lib/dashboard/spend";

const periodLabel: Record<BudgetItem["period"], MessageKey> = { day: "budgets.periodDay", week: "budgets.periodWeek", month: "budgets.periodMonth", none: "budgets.periodNone" };

export interface KeyPeriodSpend {
  /** The key's budget, whose own period and counter are the spend shown (what the limit is checked against). */
  budgetOf(apiKeyId: string): BudgetItem | undefined;
  /** Settled credits of this calendar month in the page's zone, for a key without a budget; undefined while unknown. */
  monthSpentOf(apiKeyId: string): number | undefined;
  monthStart: string;
}

/**
 * Each key's spend this period with two requests for the whole page, however many keys: the
 * budgets (a key's budget counts its own period, in its own zone) and one breakdown by API key
 * for this calendar month in the page's zone (for keys without a budget).
 */
export function useKeyPeriodSpend(timeZone: string): KeyPeriodSpend {
  const today = todayIn(timeZone);
  const from = monthStart(today);
  const budgets = useQuery({ queryKey: budgetsQueryKey, queryFn: ({ signal }) => fetchBudgets(signal) });
  const monthQuery = { group_by: "api_key", start_date: from, end_date: today, tz: timeZone, limit: "100" };
  const month = useQuery({ queryKey: breakdownQueryKey(monthQuery), queryFn: ({ signal }) => fetchBreakdown(monthQuery, signal) });
  const budgetItems = budgets.data;
  const monthData = month.data;
  return useMemo(
    () => ({
      budgetOf: (id) => budgetItems?.find((b) => b.scope === "api_key" && b.scope_id === id),
      monthSpentOf: (id) => {
        if (!monthData) return undefined;
        const group = monthData.groups.find((g) => !g.other && g.key.api_key === id);
        if (group) return group.settled_credits;
        // Past the 100 largest the key is folded into "other": its own figure is unknown.
        return monthData.group_count > monthData.limit ? undefined : 0;
      },
      monthStart: from,
    }),
    [budgetItems, monthData, from],
  );
}

const bar = { green: "bg-emerald-500", amber: "bg-amber-500", red: "bg-red-500" } as const;

/**
 * The key's spend this period, narrow enough for the keys table: its budget's spend / limit with a
 * bar (held credits lighter, as on the Budgets page) and when it resets; else this month's settled credits.
 */
export function KeyPeriodSpendCell({ apiKeyId, spend, timeZone }: { apiKeyId: string; spend: KeyPeriodSpend; timeZone: string }) {
  const { t, locale } = useI18n();
  const budget = spend.budgetOf(apiKeyId);
  if (budget) {
    const limit = budget.limit_credits;
    const spentPct = limit > 0 ? Math.min(100, (budget.spent_credits / limit) * 100) : 100;
    const heldPct = limit > 0 ? Math.min(100 - spentPct, (budget.reserved_credits / limit) * 100) : 0;
    const tone = bar[budgetTone(budget.used_percent)];
    return (
      <div className="w-36 space-y-1" data-testid="key-period-spend" data-kind="budget">
        <p className="tabular-nums text-zinc-600">
          <strong className="font-semibold text-zinc-900">{formatCredits(budget.spent_credits, locale)}</strong> / {formatCredits(limit, locale)} · {budget.used_percent}%
        </p>
        <div
          className="flex h-1.5 overflow-hidden rounded-full bg-zinc-100"
          role="meter"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.min(100, budget.used_percent)}
          aria-label={t("budgets.usedOf", { used: formatCredits(budget.spent_credits + budget.reserved_credits, locale), limit: formatCredits(limit, locale), n: limit })}
        >
          <div className={`${tone} h-full`} style={{ width: `${spentPct}%` }} />
          <div className={`${tone} h-full opacity-40`} style={{ width: `${heldPct}%` }} />
        </div>
        <p className="text-[11px] leading-4 text-zinc-500">
          {budget.resets_at
            ? t("keys.budgetResets", { period: t(periodLabel[budget.period]), tz: budget.time_zone, at: formatDateTime(budget.resets_at, timeZone, { seconds: false }), zone: timeZone })
            : t("budgets.neverResets")}
        </p>
      </div>
    );
  }
  const spent = spend.monthSpentOf(apiKeyId);
  return (
    <div className="flex flex-col" data-testid="key-period-spend" data-kind="month">
      <span className="tabular-nums text-zinc-900">{spent === undefined ? "—" : formatCredits(spent, locale)}</span>
      <span className="text-[11px] text-zinc-500">{t("keys.thisMonth", { since: spend.monthStart })}</span>
    </div>
  );
}
