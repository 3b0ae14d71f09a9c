"use client";

import { useI18n } from "@/components/i18n/i18n-provider";
import { budgetScopeLabel } from "@/lib/dashboard/budgets";
import type { ProbeResponse } from "@/lib/dashboard/console-api";
import { formatCreditsUnit, formatDateTime } from "@/lib/dashboard/format";
import { useTimeZone } from "@/lib/dashboard/time-zone";

export type BudgetHeadroomInfo = NonNullable<NonNullable<ProbeResponse["quote"]>["budget"]>;

/** When a budget resets, in the page's zone with the year and the zone named; or that it never does. */
export function useBudgetReset(resetsAt: string | null): string {
  const { t } = useI18n();
  const tz = useTimeZone();
  return resetsAt ? t("console.budgetResets", { at: formatDateTime(resetsAt, tz.timeZone), zone: tz.timeZone }) : t("console.budgetNeverResets");
}

/** Probe's and the confirmation's word on the tightest budget: what it has left, and whether this Call would be refused. */
export function BudgetHeadroom({ budget, testId }: { budget: BudgetHeadroomInfo; testId?: string }) {
  const { t, locale } = useI18n();
  const scope = budgetScopeLabel(t, budget);
  const reset = useBudgetReset(budget.resets_at);
  const unit = (value: number) => formatCreditsUnit(value, locale, t);
  return (
    <div className={`rounded-lg p-3 text-sm ${budget.would_refuse ? "bg-red-50 text-red-900" : "bg-zinc-50 text-zinc-700"}`} data-testid={testId} data-would-refuse={budget.would_refuse}>
      <p>
        {t("console.budgetHeadroom", {
          scope,
          period: t(`console.budgetPeriod.${budget.period}`),
          limit: unit(budget.limit_credits),
          left: unit(Math.max(0, budget.remaining_credits)),
        })}{" "}
        {reset}
      </p>
      {budget.would_refuse && <p className="mt-1 font-semibold">{t("console.budgetWouldRefuse")}</p>}
    </div>
  );
}
