"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Card } from "@/components/ui/card";
import { budgetScopeLabel, budgetsQueryKey, fetchBudgets } from "@/lib/dashboard/budgets";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { BudgetMeter } from "../budgets/_components/budget-meter";

/** The Overview's budget card: the budget with the least left (the API lists the tightest first); nothing when there are none. */
export function TightestBudget() {
  const { t } = useI18n();
  const tz = useTimeZone();
  const budgets = useQuery({ queryKey: budgetsQueryKey, queryFn: ({ signal }) => fetchBudgets(signal) });
  const all = budgets.data ?? [];
  const tightest = all[0];
  if (!tightest) return null;
  return (
    <Card className="mt-6 p-4 sm:p-5" data-testid="tightest-budget">
      <div className="mb-3 flex flex-wrap items-baseline justify-between gap-2">
        <div className="min-w-0">
          <p className="text-sm font-medium text-zinc-600">{t("overview.tightestBudget")}</p>
          <p className="truncate text-base font-semibold text-zinc-900">{budgetScopeLabel(t, tightest)}</p>
        </div>
        <Link href="/budgets" prefetch={false} className="text-sm font-medium text-indigo-600 hover:text-indigo-500">
          {all.length > 1 ? t("overview.allBudgets", { count: all.length }) : t("overview.manageBudgets")}
        </Link>
      </div>
      <BudgetMeter budget={tightest} timeZone={tz.timeZone} />
    </Card>
  );
}
