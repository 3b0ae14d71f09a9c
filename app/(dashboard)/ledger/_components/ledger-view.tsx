"use client";

import { useId, useState, type ReactNode } from "react";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { BucketChart, type ChartRow } from "@/components/charts/bar-chart";
import { ChipGroup } from "@/components/filters/chip-group";
import { CommitInput } from "@/components/filters/commit-input";
import { DateRangePicker } from "@/components/filters/date-range-picker";
import { TimeZoneSwitch } from "@/components/filters/time-zone-switch";
import { Pagination } from "@/components/tables/pagination";
import { DownloadIcon } from "@/components/ui/action-icons";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { FieldLabel, Select } from "@/components/ui/form-controls";
import { EmptyState, LoadingBlock, Notice } from "@/components/ui/states";
import { downloadCsv, fetchLedger, type LedgerSummary } from "@/lib/dashboard/audit-api";
import { buckets, ledgerEntryTypes } from "@/lib/dashboard/audit-vocab";
import { bucketLabel } from "@/lib/dashboard/buckets";
import { formatCount, formatCredits, formatSignedCredits } from "@/lib/dashboard/format";
import { LEDGER_PAGE_SIZES, readLedgerView, type LedgerView as View } from "@/lib/dashboard/ledger-filters";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { useUrlParams, type UrlPatch } from "@/lib/dashboard/url-state";
import { EntryPanel } from "./entry-panel";
import { LedgerTable } from "./ledger-table";

function Field({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="min-w-0">
      <FieldLabel htmlFor={id}>{label}</FieldLabel>
      {children(id)}
    </div>
  );
}

function Filters({ view, timeZone, update, isSupport }: { view: View; timeZone: string; update: (patch: UrlPatch) => void; isSupport: boolean }) {
  const { t } = useI18n();
  const f = view.filter;
  const set = (patch: UrlPatch) => update({ ...patch, page: null });
  return (
    <Card className="space-y-4 p-4 sm:p-5">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <DateRangePicker range={view.range} timeZone={timeZone} onChange={(patch) => set(patch)} />
        <Field label={t("filters.bucket")}>
          {(id) => (
            <Select id={id} value={view.bucket ?? ""} onChange={(e) => update({ bucket: e.target.value })} className="w-auto">
              <option value="">{t("bucket.auto")}</option>
              {buckets.map((b) => (
                <option key={b} value={b}>
                  {t(`bucket.${b}`)}
                </option>
              ))}
            </Select>
          )}
        </Field>
      </div>
      <div>
        <p className="mb-1.5 text-xs font-medium text-zinc-600">{t("ledger.direction")}</p>
        <ChipGroup<"consume" | "grant">
          label={t("ledger.direction")}
          allLabel={t("common.any")}
          value={f.direction === "consume" || f.direction === "grant" ? f.direction : undefined}
          onChange={(v) => set({ direction: v ?? null })}
          options={[
            { value: "consume", label: t("ledger.consume"), swatch: "#dc2626" },
            { value: "grant", label: t("ledger.grant"), swatch: "#10b981" },
          ]}
          testId="direction-chips"
        />
      </div>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Field label={t("ledger.entryType")}>
          {(id) => (
            <Select id={id} value={f.entry_type ?? ""} onChange={(e) => set({ entry_type: e.target.value })}>
              <option value="">{t("common.any")}</option>
              {ledgerEntryTypes.map((type) => (
                <option key={type} value={type}>
                  {t(`entry.${type}`)}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label={t("ledger.scope")}>
          {(id) => (
            <Select id={id} value={f.scope ?? ""} onChange={(e) => set({ scope: e.target.value })}>
              <option value="">{t("ledger.scopeAll")}</option>
              <option value="account_history">{t("ledger.scopeHistory")}</option>
            </Select>
          )}
        </Field>
        <div className="grid grid-cols-2 gap-2">
          <Field label={t("filters.minCredits")}>{(id) => <CommitInput id={id} inputMode="decimal" value={f.min_credits ?? ""} onCommit={(v) => set({ min_credits: v })} placeholder="0" />}</Field>
          <Field label={t("filters.maxCredits")}>{(id) => <CommitInput id={id} inputMode="decimal" value={f.max_credits ?? ""} onCommit={(v) => set({ max_credits: v })} />}</Field>
        </div>
        {isSupport && <Field label={t("filters.account")}>{(id) => <CommitInput id={id} value={f.account_id ?? ""} onCommit={(v) => set({ account_id: v })} placeholder="acc_…" spellCheck={false} />}</Field>}
      </div>
    </Card>
  );
}

function SummaryBlock({ summary }: { summary: LedgerSummary }) {
  const { t, locale } = useI18n();
  const rows: ChartRow[] = summary.buckets.map((b) => ({
    label: bucketLabel(b.bucket_start_local, summary.bucket),
    consumed: b.consumed_credits,
    granted: b.granted_credits,
    net: b.net_amount_credits,
  }));
  const stats = [
    { label: t("ledger.consumed"), value: formatCredits(summary.consumed_credits, locale), tone: "text-red-700", testId: "ledger-consumed" },
    { label: t("ledger.granted"), value: formatCredits(summary.granted_credits, locale), tone: "text-emerald-700", testId: "ledger-granted" },
    { label: t("ledger.net"), value: formatSignedCredits(summary.net_amount_credits, locale), tone: summary.net_amount_credits < 0 ? "text-red-700" : "text-emerald-700", testId: "ledger-net" },
    { label: t("ledger.entries"), value: formatCount(summary.total_entries, locale), tone: "text-zinc-900", testId: "ledger-entries" },
  ];
  return (
    <section aria-label={t("usage.summaryTitle")} className="space-y-4" data-testid="ledger-summary">
      <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        {stats.map((s) => (
          <Card key={s.testId} className="p-4">
            <dt className="text-xs font-medium text-zinc-500">{s.label}</dt>
            <dd className={`mt-1 text-xl font-semibold tabular-nums ${s.tone}`} data-testid={s.testId}>
              {s.value}
            </dd>
          </Card>
        ))}
      </dl>
      <Card className="p-4">
        <BucketChart
          title={t("ledger.chartTitle")}
          axisCaption={t("chart.axis", { bucket: t(`bucket.${summary.bucket}`), tz: summary.tz })}
          data={rows}
          format={(v) => formatCredits(v, locale)}
          series={[
            { key: "consumed", label: t("ledger.consumed"), color: "#f87171" },
            { key: "granted", label: t("ledger.granted"), color: "#34d399" },
            { key: "net", label: t("ledger.net"), color: "#4f46e5", kind: "line" },
          ]}
          testId="chart-ledger"
        />
      </Card>
    </section>
  );
}

export function LedgerView({ isSupport }: { isSupport: boolean }) {
  const { t } = useI18n();
  const tz = useTimeZone();
  const [params, update] = useUrlParams();
  const view = readLedgerView(params, tz.timeZone);
  const [exportError, setExportError] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);

  const listQuery = { ...view.filter, page: String(view.page), page_size: String(view.pageSize) };
  const list = useQuery({ queryKey: ["ledger", "list", listQuery], queryFn: ({ signal }) => fetchLedger(listQuery, signal), placeholderData: keepPreviousData });
  const summaryQuery = { ...view.filter, summary: "true", page_size: "1", bucket: view.bucket };
  const summary = useQuery({ queryKey: ["ledger", "summary", summaryQuery], queryFn: ({ signal }) => fetchLedger(summaryQuery, signal) });

  async function exportCsv() {
    setExporting(true);
    setExportError(null);
    try {
      // The export's own default scope is account_history; say "all" so the file matches the table.
      await downloadCsv("/auth/credits/ledger/export", { ...view.filter, scope: view.filter.scope ?? "all" }, `ledger-${view.range.startDate ?? "all"}-${view.range.endDate ?? "now"}.csv`);
    } catch (err) {
      setExportError(err instanceof Error ? err.message : String(err));
    } finally {
      setExporting(false);
    }
  }

  return (
    <div className="space-y-6">
      <Filters view={view} timeZone={tz.timeZone} update={update} isSupport={isSupport} />
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
        <TimeZoneSwitch tz={tz} />
        <Button size="sm" onClick={() => void exportCsv()} disabled={exporting}>
          <DownloadIcon width={16} height={16} />
          {exporting ? t("usage.exporting") : t("usage.export")}
        </Button>
      </div>
      {exportError && <Notice tone="error" title={t("usage.exportFailed")}>{exportError}</Notice>}

      {summary.isPending ? (
        <LoadingBlock label={t("usage.loadingSummary")} rows={4} />
      ) : summary.isError ? (
        <ErrorState title={t("usage.summaryError")} message={summary.error.message} retryLabel={t("common.retry")} onRetry={() => void summary.refetch()} />
      ) : summary.data.summary ? (
        <SummaryBlock summary={summary.data.summary} />
      ) : null}

      <section aria-labelledby="ledger-heading" className="space-y-3">
        <h2 id="ledger-heading" className="text-sm font-semibold text-zinc-900">
          {t("ledger.entriesTitle")}
        </h2>
        {list.isPending ? (
          <LoadingBlock label={t("ledger.loading")} rows={6} />
        ) : list.isError ? (
          <ErrorState title={t("ledger.errorTitle")} message={list.error.message} retryLabel={t("common.retry")} onRetry={() => void list.refetch()} />
        ) : list.data.items.length === 0 ? (
          <EmptyState testId="ledger-empty" title={t("ledger.emptyTitle")} body={t("ledger.emptyBody")} />
        ) : (
          <LedgerTable
            items={list.data.items}
            timeZone={tz.timeZone}
            selectedId={view.entryId}
            onOpen={(id) => update({ entry: id })}
            busy={list.isFetching}
            footer={
              <Pagination
                page={view.page}
                pageSize={view.pageSize}
                total={list.data.total}
                pageSizes={LEDGER_PAGE_SIZES}
                onPage={(page) => update({ page: page === 1 ? null : page })}
                onPageSize={(size) => update({ page_size: size === 50 ? null : size, page: null })}
              />
            }
          />
        )}
      </section>
      <EntryPanel entryId={view.entryId} accountId={view.filter.account_id} timeZone={tz.timeZone} onClose={() => update({ entry: null })} />
    </div>
  );
}
