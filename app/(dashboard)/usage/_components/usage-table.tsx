"use client";

import { useMemo } from "react";
import Link from "next/link";
import { ToolLabel } from "@/components/audit/tool-label";
import { createColumnHelper } from "@tanstack/react-table";
import { AuditTable, type AuditRowsProps } from "@/components/audit/audit-table";
import { useI18n } from "@/components/i18n/i18n-provider";
import { ChargeOutcomeBadge, ReasonCode } from "@/components/audit/charge-outcome-badge";
import { Badge } from "@/components/ui/badge";
import type { UsageEventItem } from "@/lib/dashboard/audit-api";
import { formatCredits, formatDuration, shortId } from "@/lib/dashboard/format";
import { executionHref, runHref, useAccountInView } from "@/lib/dashboard/links";

const column = createColumnHelper<UsageEventItem>();

export function UsageTable(props: AuditRowsProps<UsageEventItem>) {
  const { t, locale } = useI18n();
  const account = useAccountInView();
  const columns = useMemo(
    () => [
      column.accessor("event_type", {
        header: () => t("usage.colEvent"),
        cell: (info) => (
          <span className="flex min-w-0 flex-col">
            <span className="font-mono text-xs text-zinc-800">{info.getValue()}</span>
            {info.row.original.tool_id && <ToolLabel name={info.row.original.tool_name} id={info.row.original.tool_id} className="max-w-[12rem]" />}
            {info.row.original.execution_id && (
              <Link href={executionHref(info.row.original.execution_id, account)} className="font-mono text-[11px] text-indigo-700 hover:underline" title={info.row.original.execution_id}>
                {shortId(info.row.original.execution_id)}
              </Link>
            )}
            {info.row.original.run_id && (
              <Link href={runHref(info.row.original.run_id, account)} className="max-w-[12rem] truncate text-[11px] text-indigo-700 hover:underline" title={info.row.original.run_id} data-testid="usage-run-link">
                {t("run.linkLabel", { id: info.row.original.run_id })}
              </Link>
            )}
          </span>
        ),
      }),
      column.accessor("api_key_name", {
        header: () => t("usage.colMadeWith"),
        // The key by its name (its id beneath); a delegation token's Calls name their OAuth client.
        cell: (info) => {
          const e = info.row.original;
          if (e.api_key_id)
            return (
              <span className="flex min-w-0 flex-col" title={e.api_key_id} data-testid="usage-key">
                <span className="max-w-[8.5rem] truncate text-sm text-zinc-900">{info.getValue() ?? t("usage.removedKey")}</span>
                <code className="max-w-[8.5rem] truncate font-mono text-[11px] text-zinc-500">{shortId(e.api_key_id)}</code>
              </span>
            );
          if (e.oauth_client_id)
            return (
              <span className="flex min-w-0 flex-col" title={e.oauth_client_id}>
                <span className="text-sm text-zinc-700">{t("usage.delegated")}</span>
                <code className="max-w-[8.5rem] truncate font-mono text-[11px] text-zinc-500">{e.oauth_client_id}</code>
              </span>
            );
          return <span className="text-zinc-500">—</span>;
        },
        meta: { hideOnPhone: true },
      }),
      column.accessor("charge_outcome", {
        header: () => t("usage.colOutcome"),
        cell: (info) => (
          <span className="flex flex-wrap items-center gap-1">
            <ChargeOutcomeBadge outcome={info.getValue()} />
            {info.row.original.anomalies
              .filter((a) => a !== "failed_charged_review")
              .map((a) => (
                <Badge key={a} tone="red">
                  {t(`anomaly.${a}`)}
                </Badge>
              ))}
          </span>
        ),
        meta: { primary: true },
      }),
      column.accessor("reason_code", {
        header: () => t("usage.colReason"),
        cell: (info) => <ReasonCode code={info.getValue()} />,
      }),
      column.accessor("actual_amount_credits", {
        header: () => t("usage.colCredits"),
        cell: (info) => <span className={info.getValue() > 0 ? "font-medium text-zinc-900" : "text-zinc-500"}>{formatCredits(info.getValue(), locale)}</span>,
        meta: { align: "right" },
      }),
      column.accessor("duration_ms", {
        header: () => t("usage.colDuration"),
        cell: (info) => <span className="text-zinc-600">{formatDuration(info.getValue(), locale)}</span>,
        meta: { align: "right", hideOnPhone: true },
      }),
    ],
    [t, locale, account],
  );
  return <AuditTable {...props} columns={columns} caption={t("usage.events")} rowTestId="usage-row" openLabelKey="usage.openEvent" />;
}
