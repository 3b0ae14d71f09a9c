"use client";

import { useMemo } from "react";
import Link from "next/link";
import { createColumnHelper } from "@tanstack/react-table";
import { AuditTable, type AuditRowsProps } from "@/components/audit/audit-table";
import { ToolLabel } from "@/components/audit/tool-label";
import { useI18n } from "@/components/i18n/i18n-provider";
import type { LedgerItem } from "@/lib/dashboard/audit-api";
import { formatCredits, formatSignedCredits, shortId } from "@/lib/dashboard/format";
import { executionHref, usageEventHref, usageForExecutionHref, useAccountInView } from "@/lib/dashboard/links";

const column = createColumnHelper<LedgerItem>();

export function SignedAmount({ value, testId }: { value: number; testId?: string }) {
  const { locale } = useI18n();
  const tone = value < 0 ? "text-red-700" : value > 0 ? "text-emerald-700" : "text-zinc-500";
  return (
    <span className={`whitespace-nowrap font-semibold tabular-nums ${tone}`} data-testid={testId}>
      {formatSignedCredits(value, locale)}
    </span>
  );
}

export function LedgerTable(props: AuditRowsProps<LedgerItem>) {
  const { t, locale } = useI18n();
  const account = useAccountInView();
  const columns = useMemo(
    () => [
      column.accessor("entry_type", {
        header: () => t("ledger.entryType"),
        cell: (info) => (
          <span className="flex flex-col">
            <span className="text-zinc-900">{t(`entry.${info.getValue()}`)}</span>
            <span className="font-mono text-[11px] text-zinc-500">{info.getValue()}</span>
          </span>
        ),
      }),
      column.accessor("tool_id", {
        header: () => t("ledger.tool"),
        // A Call's row (charge or refund) names the tool charged; grants, expiries and search charges have none.
        // (Consume or grant needs no column of its own: the amount's sign and colour say it.)
        cell: (info) => <ToolLabel name={info.row.original.tool_name} id={info.getValue()} className="max-w-[12rem]" />,
      }),
      column.accessor("amount_credits", {
        header: () => t("ledger.amount"),
        cell: (info) => <SignedAmount value={info.getValue()} testId="ledger-amount" />,
        meta: { align: "right", primary: true },
      }),
      column.accessor((row) => row.balance_after.total_available_credits, {
        id: "balance",
        header: () => t("ledger.balance"),
        cell: (info) => (
          <span className="whitespace-nowrap tabular-nums text-zinc-600">
            {formatCredits(info.row.original.balance_before.total_available_credits, locale)} → <span className="font-medium text-zinc-900">{formatCredits(info.getValue(), locale)}</span>
          </span>
        ),
        meta: { align: "right" },
      }),
      column.accessor("execution_id", {
        header: () => t("ledger.links"),
        cell: (info) => {
          const row = info.row.original;
          if (!row.execution_id && !row.usage_event_id) return <span className="text-zinc-500">—</span>;
          return (
            <span className="flex flex-col gap-0.5 text-xs">
              {row.execution_id && (
                <Link href={executionHref(row.execution_id, account)} className="font-mono text-indigo-700 hover:underline" title={row.execution_id}>
                  {shortId(row.execution_id)}
                </Link>
              )}
              <Link
                href={row.usage_event_id ? usageEventHref(row.usage_event_id, account) : usageForExecutionHref(row.execution_id ?? "", account)}
                className="text-indigo-700 hover:underline"
                data-testid="ledger-to-event"
              >
                {t("ledger.usageEvent")}
              </Link>
            </span>
          );
        },
      }),
    ],
    [t, locale, account],
  );
  return <AuditTable {...props} columns={columns} caption={t("ledger.entriesTitle")} rowTestId="ledger-row" openLabelKey="ledger.openEntry" />;
}
