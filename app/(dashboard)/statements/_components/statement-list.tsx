"use client";

import Link from "next/link";
import { useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { createColumnHelper } from "@tanstack/react-table";
import { useI18n } from "@/components/i18n/i18n-provider";
import { DataTable } from "@/components/tables/data-table";
import { Badge } from "@/components/ui/badge";
import { ErrorState } from "@/components/ui/error-state";
import { EmptyState, LoadingBlock } from "@/components/ui/states";
import { dayIn } from "@/lib/dashboard/format";
import { type CreditStatementList, fetchStatements, statementsQueryKey } from "@/lib/dashboard/statements";
import { StatementTargetControls, monthLabel, useStatementTarget } from "./statement-target";

type Month = CreditStatementList["items"][number];
const column = createColumnHelper<Month>();

export function StatementList({ isSupport }: { isSupport: boolean }) {
  const { t, locale } = useI18n();
  const state = useStatementTarget();
  const { target, linkQuery } = state;
  const list = useQuery({ queryKey: statementsQueryKey(target), queryFn: ({ signal }) => fetchStatements(target, signal), enabled: state.ready });
  const zone = list.data?.time_zone ?? state.tz.timeZone;

  const columns = useMemo(
    () => [
      column.accessor("month", {
        header: () => t("statements.month"),
        cell: (info) => (
          <Link className="font-medium text-indigo-700 hover:underline" href={`/statements/${info.getValue()}${linkQuery}`}>
            {monthLabel(info.getValue(), locale)}
          </Link>
        ),
        meta: { primary: true },
      }),
      column.display({
        id: "period",
        header: () => t("statements.periodIn", { zone }),
        cell: (info) => (
          <span className="whitespace-nowrap tabular-nums text-zinc-600">
            {dayIn(info.row.original.period_start, zone)} – {dayIn(info.row.original.period_end, zone, { exclusiveEnd: true })}
          </span>
        ),
      }),
      column.accessor("status", {
        header: () => t("statements.status"),
        cell: (info) => <Badge tone={info.getValue() === "final" ? "green" : "amber"}>{info.getValue() === "final" ? t("statements.final") : t("statements.openStatus")}</Badge>,
        meta: { primary: true },
      }),
      column.accessor("content_hash", {
        header: () => t("statements.hash"),
        cell: (info) => <span className="whitespace-nowrap font-mono text-xs text-zinc-500">{info.getValue() ? `${info.getValue()!.slice(0, 16)}…` : "—"}</span>,
        meta: { hideOnPhone: true },
      }),
    ],
    [t, locale, zone, linkQuery],
  );

  return (
    <div className="space-y-6">
      <StatementTargetControls state={state} isSupport={isSupport} />
      {list.isPending ? (
        <LoadingBlock label={t("statements.loading")} rows={4} />
      ) : list.isError ? (
        <ErrorState title={t("statements.errorTitle")} message={list.error.message} retryLabel={t("common.retry")} onRetry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <EmptyState testId="statements-empty" title={t("statements.emptyTitle")} body={t("statements.emptyBody")} />
      ) : (
        <div data-testid="statements-table">
          <DataTable data={list.data.items} columns={columns} caption={t("statements.title")} getRowId={(m) => m.month} rowTestId={(m) => `statement-row-${m.month}`} />
        </div>
      )}
    </div>
  );
}
