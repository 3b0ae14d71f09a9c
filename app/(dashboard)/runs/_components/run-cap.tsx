"use client";

import { useI18n } from "@/components/i18n/i18n-provider";
import { formatCredits, formatCreditsUnit, formatPercent } from "@/lib/dashboard/format";
import { capUse, type RunItem } from "@/lib/dashboard/runs";

/** A run's cap in words: the newest delegation token's `max_credits`, "no cap", or "—" for a run that came from no token on record. */
export function RunCapLabel({ run }: { run: RunItem }) {
  const { t, locale } = useI18n();
  if (run.delegation_count === 0) return <span className="text-zinc-500" title={t("runs.noTokenHint")}>—</span>;
  return (
    <span className="flex flex-col" data-testid="run-cap">
      <span className={run.max_credits === null ? "text-zinc-600" : "font-medium text-zinc-900"}>
        {run.max_credits === null ? t("runs.noCap") : formatCreditsUnit(run.max_credits, locale, t)}
      </span>
      {run.delegation_count > 1 && <span className="text-xs text-zinc-500">{t("runs.perToken", { count: run.delegation_count })}</span>}
    </span>
  );
}

/**
 * What the newest token has used of its cap, as a bar: spent solid, held by Calls in flight
 * lighter. Amber from 80 %, red at the cap (the next Call would be refused).
 */
export function RunCapMeter({ run, compact = false }: { run: RunItem; compact?: boolean }) {
  const { t, locale } = useI18n();
  const token = run.delegations[0];
  const use = capUse(token);
  if (!token || !use || token.max_credits === null) return null;
  const cap = token.max_credits;
  const tone = use.share >= 1 ? "bg-red-500" : use.share >= 0.8 ? "bg-amber-500" : "bg-emerald-500";
  const spentPct = cap > 0 ? Math.min(100, (token.spent_credits / cap) * 100) : 100;
  const heldPct = cap > 0 ? Math.min(100 - spentPct, (token.reserved_credits / cap) * 100) : 0;
  const label = t("runs.capUsed", { used: formatCredits(use.used, locale), cap: formatCredits(cap, locale), n: cap });
  return (
    <div className={compact ? "min-w-28 space-y-1" : "space-y-1.5"}>
      <div
        className={`flex overflow-hidden rounded-full bg-zinc-100 ${compact ? "h-1.5" : "h-2.5"}`}
        role="meter"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(use.share * 100)}
        aria-label={label}
        data-testid="run-cap-meter"
      >
        <div className={`${tone} h-full`} style={{ width: `${spentPct}%` }} />
        <div className={`${tone} h-full opacity-40`} style={{ width: `${heldPct}%` }} />
      </div>
      <p className="text-xs tabular-nums text-zinc-600">
        {label} · {formatPercent(use.share, locale)}
      </p>
    </div>
  );
}
