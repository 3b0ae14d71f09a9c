"use client";

import { useMemo, type ReactNode } from "react";
import Link from "next/link";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { createColumnHelper } from "@tanstack/react-table";
import { AuditListSection, UrlPagination } from "@/components/audit/audit-page";
import { TimeZoneSwitch } from "@/components/filters/time-zone-switch";
import { useI18n } from "@/components/i18n/i18n-provider";
import { DataTable } from "@/components/tables/data-table";
import { EmptyState } from "@/components/ui/states";
import { formatCount, formatCreditsUnit, formatDateTime } from "@/lib/dashboard/format";
import { runHref, useAccountInView } from "@/lib/dashboard/links";
import { fetchRuns, type RunItem } from "@/lib/dashboard/runs";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { pagingParams, useUrlParams } from "@/lib/dashboard/url-state";
import { RunCapLabel, RunCapMeter } from "./run-cap";

const column = createColumnHelper<RunItem>();

/** The account's agent runs, newest first: each with its delegation cap, what it spent, its Calls and when it ran. */
export function RunsView() {
  const { t } = useI18n();
  const tz = useTimeZone();
  const account = useAccountInView();
  const [params, update] = useUrlParams();
  const { page, pageSize } = pagingParams(params);
  const query = { page: String(page), page_size: String(pageSize), account_id: account };
  const list = useQuery({ queryKey: ["runs", "list", query], queryFn: ({ signal }) => fetchRuns(query, signal), placeholderData: keepPreviousData });

  return (
    <div className="space-y-6">
      <TimeZoneSwitch tz={tz} />
      <AuditListSection
        headingId="runs-heading"
        title={t("runs.listTitle")}
        query={list}
        loadingLabel={t("runs.loading")}
        errorTitle={t("runs.errorTitle")}
        empty={<EmptyState testId="runs-empty" title={t("runs.emptyTitle")} body={t("runs.emptyBody")} />}
      >
        {(data) => (
          <RunsTable
            runs={data.items}
            timeZone={tz.timeZone}
            busy={list.isFetching}
            footer={<UrlPagination page={page} pageSize={pageSize} total={data.total} update={update} />}
          />
        )}
      </AuditListSection>
    </div>
  );
}

function RunsTable({ runs, timeZone, busy, footer }: { runs: RunItem[]; timeZone: string; busy: boolean; footer: ReactNode }) {
  const { t, locale } = useI18n();
  const account = useAccountInView();
  const columns = useMemo(
    () => [
      column.accessor("run_id", {
        header: () => t("runs.colRun"),
        cell: (info) => {
          const r = info.row.original;
          const by = [r.oauth_client_name ?? r.oauth_client_id, r.model].filter(Boolean).join(" · ");
          return (
            <span className="flex min-w-0 flex-col">
              <Link href={runHref(r.run_id, account)} className="max-w-[16rem] truncate font-mono text-sm font-medium text-indigo-700 hover:underline" title={r.run_id} data-testid="run-link">
                {r.run_id}
              </Link>
              {by && <span className="max-w-[16rem] truncate text-xs text-zinc-500">{by}</span>}
            </span>
          );
        },
        meta: { primary: true },
      }),
      column.accessor("max_credits", {
        header: () => t("runs.colCap"),
        cell: (info) => <RunCapLabel run={info.row.original} />,
      }),
      column.accessor("settled_credits", {
        header: () => t("runs.colSpent"),
        cell: (info) => (
          <span className="flex flex-col gap-1">
            <span className={info.getValue() > 0 ? "font-medium tabular-nums text-zinc-900" : "tabular-nums text-zinc-500"} data-testid="run-spent">
              {formatCreditsUnit(info.getValue(), locale, t)}
            </span>
            <RunCapMeter run={info.row.original} compact />
          </span>
        ),
      }),
      column.accessor("call_count", {
        header: () => t("runs.colCalls"),
        cell: (info) => (
          <span className="flex flex-col tabular-nums">
            <span className="text-zinc-900" data-testid="run-calls">
              {formatCount(info.getValue(), locale)}
            </span>
            <span className="text-xs text-zinc-500">{t("runs.charged", { count: info.row.original.charged_call_count })}</span>
          </span>
        ),
        meta: { align: "right" },
      }),
      column.accessor("first_at", {
        header: () => t("runs.colWhen", { tz: timeZone }),
        cell: (info) => (
          <span className="flex flex-col whitespace-nowrap text-xs tabular-nums text-zinc-600">
            <span>{formatDateTime(info.getValue(), timeZone)}</span>
            <span>→ {formatDateTime(info.row.original.last_at, timeZone)}</span>
          </span>
        ),
      }),
    ],
    [t, locale, timeZone, account],
  );
  return <DataTable data={runs} columns={columns} caption={t("runs.listTitle")} getRowId={(r) => r.run_id} rowTestId="runs-row" footer={footer} busy={busy} />;
}
