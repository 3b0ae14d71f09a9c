"use client";

import { useI18n } from "@/components/i18n/i18n-provider";
import { budgetTone, type BudgetItem } from "@/lib/dashboard/budgets";
import { formatCredits, formatDateTime } from "@/lib/dashboard/format";

const bar = { green: "bg-emerald-500", amber: "bg-amber-500", red: "bg-red-500" } as const;

/** A budget's period spend as a bar: spent solid, held by Calls in flight lighter, the rest empty. */
export function BudgetMeter({ budget, timeZone }: { budget: BudgetItem; timeZone: string }) {
  const { t, locale } = useI18n();
  const tone = budgetTone(budget.used_percent);
  const limit = budget.limit_credits;
  const spentPct = limit > 0 ? Math.min(100, (budget.spent_credits / limit) * 100) : 100;
  const heldPct = limit > 0 ? Math.min(100 - spentPct, (budget.reserved_credits / limit) * 100) : 0;
  return (
    <div className="space-y-1.5">
      <div
        className="flex h-2.5 overflow-hidden rounded-full bg-zinc-100"
        role="meter"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.min(100, budget.used_percent)}
        aria-label={t("budgets.usedOf", { used: formatCredits(budget.spent_credits + budget.reserved_credits, locale), limit: formatCredits(limit, locale), n: limit })}
        data-testid="budget-meter"
      >
        <div className={`${bar[tone]} h-full`} style={{ width: `${spentPct}%` }} />
        <div className={`${bar[tone]} h-full opacity-40`} style={{ width: `${heldPct}%` }} />
      </div>
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-0.5 text-xs text-zinc-500">
        <span className="tabular-nums">
          <strong className="font-semibold text-zinc-900">{formatCredits(budget.spent_credits, locale)}</strong> / {formatCredits(limit, locale)} · {budget.used_percent}%
          {budget.reserved_credits > 0 && <> · {t("budgets.held", { credits: formatCredits(budget.reserved_credits, locale) })}</>}
        </span>
        <span>
          {budget.resets_at
            ? t("budgets.resetsAt", { at: formatDateTime(budget.resets_at, timeZone, { seconds: false }), zone: timeZone })
            : t("budgets.neverResets")}
        </span>
      </div>
    </div>
  );
}
