"use client";

import { useMemo } from "react";
import Link from "next/link";
import { createColumnHelper } from "@tanstack/react-table";
import { useI18n } from "@/components/i18n/i18n-provider";
import { DataTable } from "@/components/tables/data-table";
import { chargeOutcomeColors, chargeOutcomes } from "@/lib/dashboard/audit-vocab";
import { formatCount, formatCredits } from "@/lib/dashboard/format";
import { runHref, useAccountInView } from "@/lib/dashboard/links";
import type { Breakdown, BreakdownGroup, SpendDimension } from "@/lib/dashboard/spend";
import { dimensionInSentence, groupColor, groupId, groupLabel } from "./spend-labels";

const column = createColumnHelper<BreakdownGroup>();

/**
 * One row per group, largest spend first as the API orders them ("other" last): calls, charged
 * calls, the charge outcomes in brief, settled credits and refunds. A group's name opens Usage
 * narrowed to it (`usageHref`); an agent run also opens its own page.
 */
export function SpendTable({ data, dimension, usageHref }: { data: Breakdown; dimension: SpendDimension; usageHref: (group: BreakdownGroup) => string | null }) {
  const { t, locale } = useI18n();
  const account = useAccountInView();
  const columns = useMemo(
    () => [
      column.display({
        id: "group",
        header: () => t(`spend.dim.${dimension}`),
        cell: (info) => {
          const g = info.row.original;
          const label = groupLabel(g, data, dimension, t);
          const value = g.key[dimension];
          const href = usageHref(g);
          const showId = !g.other && value && value !== label && dimension !== "channel" && dimension !== "charge_outcome";
          return (
            <span className="flex min-w-0 items-start gap-2">
              <span className="mt-1.5 size-2.5 shrink-0 rounded-sm" style={{ backgroundColor: groupColor(g, info.row.index, dimension) }} aria-hidden="true" />
              <span className="flex min-w-0 flex-col">
                {href ? (
                  <Link href={href} className="break-words font-medium text-indigo-700 hover:underline" data-testid="spend-usage-link" title={t("spend.toUsage", { name: label })}>
                    {label}
                  </Link>
                ) : (
                  <span className={`break-words font-medium ${g.other || !value ? "text-zinc-500" : "text-zinc-900"}`}>{label}</span>
                )}
                {showId && (
                  <span className="max-w-[18rem] truncate font-mono text-[11px] text-zinc-500" title={value}>
                    {value}
                  </span>
                )}
                {dimension === "run_id" && value && !g.other && (
                  <Link href={runHref(value, account)} className="text-xs text-indigo-700 hover:underline" data-testid="spend-run-link">
                    {t("spend.openRun")} →
                  </Link>
                )}
              </span>
            </span>
          );
        },
        meta: { primary: true },
      }),
      column.accessor("calls", {
        header: () => t("spend.colCalls"),
        cell: (info) => <span data-testid="spend-calls">{formatCount(info.getValue(), locale)}</span>,
        meta: { align: "right" },
      }),
      column.accessor("charged_calls", {
        header: () => t("spend.colCharged"),
        cell: (info) => formatCount(info.getValue(), locale),
        meta: { align: "right" },
      }),
      column.accessor("charge_outcome_counts", {
        header: () => t("spend.colOutcomes"),
        cell: (info) => {
          const counts = info.getValue();
          const shown = chargeOutcomes.filter((o) => counts[o] > 0);
          if (shown.length === 0) return <span className="text-zinc-500">—</span>;
          return (
            <span className="inline-flex flex-wrap gap-x-2 gap-y-0.5 text-xs tabular-nums text-zinc-700">
              {shown.map((o) => (
                <span key={o} className="inline-flex items-center gap-1" title={t(`outcome.${o}`)}>
                  <span className="size-2 rounded-full" style={{ backgroundColor: chargeOutcomeColors[o] }} aria-hidden="true" />
                  <span className="sr-only">{t(`outcome.${o}`)}</span>
                  {formatCount(counts[o], locale)}
                </span>
              ))}
            </span>
          );
        },
      }),
      column.accessor("settled_credits", {
        header: () => t("spend.colSettled"),
        cell: (info) => (
          <span className="font-semibold text-zinc-900" data-testid="spend-settled">
            {formatCredits(info.getValue(), locale)}
          </span>
        ),
        meta: { align: "right" },
      }),
      column.accessor("refunded_credits", {
        header: () => t("spend.colRefunded"),
        cell: (info) => <span className={info.getValue() > 0 ? "text-emerald-700" : "text-zinc-500"}>{formatCredits(info.getValue(), locale)}</span>,
        meta: { align: "right" },
      }),
    ],
    [t, locale, data, dimension, usageHref, account],
  );
  return <DataTable data={data.groups} columns={columns} caption={t("spend.tableTitle", { dimension: dimensionInSentence(dimension, t) })} getRowId={(g) => groupId(g, dimension)} rowTestId="spend-row" />;
}
