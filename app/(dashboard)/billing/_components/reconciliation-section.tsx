"use client";

import { useMemo, useState } from "react";
import Link from "next/link";
import { useMutation, useQuery } from "@tanstack/react-query";
import { createColumnHelper } from "@tanstack/react-table";
import { useI18n } from "@/components/i18n/i18n-provider";
import { DataTable } from "@/components/tables/data-table";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { EmptyState, LoadingBlock, Notice } from "@/components/ui/states";
import { downloadCsv } from "@/lib/dashboard/audit-api";
import { fetchReconciliation, formatMoney, monthPeriod, type Reconciliation, type ReconciliationLine } from "@/lib/dashboard/billing";
import { formatCreditsUnit, shortId } from "@/lib/dashboard/format";
import { InstantCell, StatusCell } from "./cells";
import { ledgerEntryHref, useAccountInView } from "@/lib/dashboard/links";
import { useTimeZone } from "@/lib/dashboard/time-zone";

const statusTone = { matched: "green", missing_in_ledger: "red", missing_in_stripe: "red", amount_differs: "amber", refused_event: "red", no_ledger_side: "neutral" } as const;

const column = createColumnHelper<ReconciliationLine>();

/**
 * The month's payments as Stripe's balance transactions and the ledger both tell them: each line
 * matched or not, with both sides' ids, and the totals per currency; CSV for the accountant.
 */
export function ReconciliationSection() {
  const { t } = useI18n();
  const account = useAccountInView();
  const [offset, setOffset] = useState(0);
  const period = monthPeriod(new Date(), offset);
  const query = { ...period, account_id: account };
  const report = useQuery({ queryKey: ["billing", "reconciliation", query], queryFn: ({ signal }) => fetchReconciliation(query, signal) });
  const csv = useMutation({ mutationFn: () => downloadCsv("/auth/billing/reconciliation", { ...query, format: "csv" }, `tollgate-reconciliation-${period.from}.csv`) });

  return (
    <section aria-labelledby="reconciliation-heading" className="space-y-3" data-testid="reconciliation">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id="reconciliation-heading" className="text-sm font-semibold text-zinc-900">
            {t("billing.reconciliationTitle")}
          </h2>
          <p className="mt-0.5 text-sm text-zinc-600">{t("billing.reconciliationBody", { from: period.from, to: period.to })}</p>
        </div>
        <div className="flex flex-wrap gap-2">
          <div className="inline-flex rounded-lg border border-zinc-200 bg-white p-0.5" role="group" aria-label={t("billing.reconciliationPeriod")}>
            {[0, -1].map((o) => (
              <button
                key={o}
                type="button"
                aria-pressed={offset === o}
                onClick={() => setOffset(o)}
                className={`rounded-md px-2.5 py-1 text-sm ${offset === o ? "bg-zinc-900 text-white" : "text-zinc-700 hover:bg-zinc-100"}`}
              >
                {t(o === 0 ? "billing.thisMonth" : "billing.lastMonth")}
              </button>
            ))}
          </div>
          <Button size="sm" onClick={() => csv.mutate()} disabled={csv.isPending || !report.data} data-testid="reconciliation-csv">
            {t("billing.downloadCsv")}
          </Button>
        </div>
      </div>
      {csv.isError && <Notice tone="error">{csv.error.message}</Notice>}
      {report.isPending ? (
        <LoadingBlock label={t("billing.reconciliationLoading")} rows={3} />
      ) : report.isError ? (
        <ErrorState title={t("billing.reconciliationError")} message={report.error.message} retryLabel={t("common.retry")} onRetry={() => void report.refetch()} />
      ) : (
        <>
          <Totals report={report.data} />
          {report.data.lines.length === 0 ? (
            <EmptyState testId="reconciliation-empty" title={t("billing.reconciliationEmpty")} />
          ) : (
            <LinesTable lines={report.data.lines} />
          )}
        </>
      )}
    </section>
  );
}

function Totals({ report }: { report: Reconciliation }) {
  const { t, locale } = useI18n();
  return (
    <div className="space-y-2">
      {report.unmatched > 0 ? (
        <Notice tone="warn" testId="reconciliation-unmatched">
          {t("billing.unmatched", { count: report.unmatched })}
        </Notice>
      ) : (
        <Notice tone="success" testId="reconciliation-ok">
          {t("billing.allMatched")}
        </Notice>
      )}
      {report.totals.map((c) => (
        <Card key={c.currency} className="grid grid-cols-2 gap-3 p-4 text-sm sm:grid-cols-5" data-testid="reconciliation-total">
          {[
            [t("billing.gross"), formatMoney(c.gross_minor, c.currency, locale)],
            [t("billing.fees"), formatMoney(c.fee_minor, c.currency, locale)],
            [t("billing.net"), formatMoney(c.net_minor, c.currency, locale)],
            [t("billing.creditsGranted"), formatCreditsUnit(c.credits_granted, locale, t)],
            [t("billing.creditsReversed"), formatCreditsUnit(c.credits_reversed, locale, t)],
          ].map(([label, value]) => (
            <div key={label} className="min-w-0">
              <p className="text-xs text-zinc-500">{label}</p>
              <p className="font-medium tabular-nums text-zinc-900">{value}</p>
            </div>
          ))}
        </Card>
      ))}
    </div>
  );
}

function LinesTable({ lines }: { lines: ReconciliationLine[] }) {
  const { t, locale } = useI18n();
  const tz = useTimeZone();
  const account = useAccountInView();
  const columns = useMemo(
    () => [
      column.accessor("created_at", {
        header: () => t("usage.colTime", { tz: tz.timeZone }),
        cell: (info) => <InstantCell iso={info.getValue()} timeZone={tz.timeZone} />,
        meta: { primary: true },
      }),
      column.accessor("status", {
        header: () => t("billing.colStatus"),
        cell: (info) => (
          <StatusCell
            status={info.getValue()}
            tone={statusTone[info.getValue()]}
            label={t(`billing.reconcileStatus.${info.getValue()}`)}
            testId="reconciliation-status"
            title={info.row.original.detail ?? undefined}
          />
        ),
        meta: { primary: true },
      }),
      column.accessor("kind", { header: () => t("billing.colKind"), cell: (info) => <code className="font-mono text-xs text-zinc-700">{info.getValue()}</code> }),
      column.accessor("amount_minor", {
        header: () => t("billing.colStripeAmount"),
        cell: (info) => <span className="tabular-nums">{info.getValue() === null ? "—" : formatMoney(info.getValue()!, info.row.original.currency, locale)}</span>,
        meta: { align: "right" },
      }),
      column.accessor("ledger_amount_minor", {
        header: () => t("billing.colOurAmount"),
        cell: (info) => <span className="tabular-nums">{info.getValue() === null ? "—" : formatMoney(info.getValue()!, info.row.original.currency, locale)}</span>,
        meta: { align: "right" },
      }),
      column.display({
        id: "sides",
        header: () => t("billing.colSides"),
        cell: (info) => {
          const l = info.row.original;
          return (
            <span className="flex min-w-0 flex-col gap-0.5 text-xs">
              {l.stripe_source_id && (
                <code className="font-mono text-zinc-600" title={[l.stripe_balance_transaction_id, l.stripe_payment_intent_id].filter(Boolean).join(" · ")}>
                  {l.stripe_source_id}
                </code>
              )}
              {l.payment_id && <code className="font-mono text-zinc-600">{l.payment_id}</code>}
              {l.ledger_entry_ids.map((id) => (
                <Link key={id} href={ledgerEntryHref(id, account)} className="font-mono text-indigo-700 hover:underline" title={id} data-testid="reconciliation-ledger">
                  {shortId(id)}
                </Link>
              ))}
            </span>
          );
        },
      }),
    ],
    [t, locale, tz.timeZone, account],
  );
  return (
    <DataTable
      data={lines}
      columns={columns}
      caption={t("billing.reconciliationTitle")}
      getRowId={(l) => `${l.stripe_balance_transaction_id ?? ""}:${l.payment_id ?? ""}:${l.reversal_id ?? ""}:${l.kind}`}
      rowTestId="reconciliation-row"
    />
  );
}
