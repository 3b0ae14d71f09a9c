"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { AuditListSection, ExportBar, StatCards, UrlPagination } from "@/components/audit/audit-page";
import { useI18n } from "@/components/i18n/i18n-provider";
import { BucketChart, type ChartRow } from "@/components/charts/bar-chart";
import { DateRangePicker } from "@/components/filters/date-range-picker";
import { AccountFilter, BucketFilter, ChipFilter, CreditRangeFilter, OptionFilter } from "@/components/filters/filter-fields";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { EmptyState, LoadingBlock } from "@/components/ui/states";
import { downloadCsv, fetchLedger, type LedgerSummary } from "@/lib/dashboard/audit-api";
import { ledgerEntryTypes } from "@/lib/dashboard/audit-vocab";
import { bucketLabel } from "@/lib/dashboard/buckets";
import { formatCount, formatCredits, formatSignedCredits } from "@/lib/dashboard/format";
import { readLedgerView, type LedgerView as View } from "@/lib/dashboard/ledger-filters";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { useUrlParams, type UrlPatch } from "@/lib/dashboard/url-state";
import { EntryPanel } from "./entry-panel";
import { LedgerTable } from "./ledger-table";

function Filters({ view, timeZone, update, isSupport }: { view: View; timeZone: string; update: (patch: UrlPatch) => void; isSupport: boolean }) {
  const { t } = useI18n();
  const f = view.filter;
  // Filters change the result set: back to its first page.
  const set = (patch: UrlPatch) => update({ ...patch, page: null });
  return (
    <Card className="space-y-4 p-4 sm:p-5">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <DateRangePicker range={view.range} timeZone={timeZone} onChange={(patch) => set(patch)} />
        <BucketFilter value={view.bucket} onChange={(bucket) => update({ bucket })} />
      </div>
      <ChipFilter<"consume" | "grant">
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
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <OptionFilter label={t("ledger.entryType")} value={f.entry_type} onChange={(v) => set({ entry_type: v })} options={ledgerEntryTypes.map((type) => ({ value: type, label: t(`entry.${type}`) }))} />
        <OptionFilter
          label={t("ledger.scope")}
          value={f.scope}
          onChange={(v) => set({ scope: v })}
          emptyLabel={t("ledger.scopeAll")}
          options={[{ value: "account_history", label: t("ledger.scopeHistory") }]}
        />
        <CreditRangeFilter min={f.min_credits} max={f.max_credits} onChange={set} />
        {isSupport && <AccountFilter value={f.account_id} onChange={(v) => set({ account_id: v })} />}
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
      <StatCards stats={stats} />
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
  const listQuery = { ...view.filter, page: String(view.page), page_size: String(view.pageSize) };
  const list = useQuery({ queryKey: ["ledger", "list", listQuery], queryFn: ({ signal }) => fetchLedger(listQuery, signal), placeholderData: keepPreviousData });
  const summaryQuery = { ...view.filter, summary: "true", page_size: "1", bucket: view.bucket };
  const summary = useQuery({ queryKey: ["ledger", "summary", summaryQuery], queryFn: ({ signal }) => fetchLedger(summaryQuery, signal) });

  return (
    <div className="space-y-6">
      <Filters view={view} timeZone={tz.timeZone} update={update} isSupport={isSupport} />
      <ExportBar
        tz={tz}
        // The export's own default scope is account_history; say "all" so the file matches the table.
        download={() => downloadCsv("/auth/credits/ledger/export", { ...view.filter, scope: view.filter.scope ?? "all" }, `ledger-${view.range.startDate ?? "all"}-${view.range.endDate ?? "now"}.csv`)}
      />

      {summary.isPending ? (
        <LoadingBlock label={t("usage.loadingSummary")} rows={4} />
      ) : summary.isError ? (
        <ErrorState title={t("usage.summaryError")} message={summary.error.message} retryLabel={t("common.retry")} onRetry={() => void summary.refetch()} />
      ) : summary.data.summary ? (
        <SummaryBlock summary={summary.data.summary} />
      ) : null}

      <AuditListSection
        headingId="ledger-heading"
        title={t("ledger.entriesTitle")}
        query={list}
        loadingLabel={t("ledger.loading")}
        errorTitle={t("ledger.errorTitle")}
        empty={<EmptyState testId="ledger-empty" title={t("ledger.emptyTitle")} body={t("ledger.emptyBody")} />}
      >
        {(data) => (
          <LedgerTable
            items={data.items}
            timeZone={tz.timeZone}
            selectedId={view.entryId}
            onOpen={(id) => update({ entry: id })}
            busy={list.isFetching}
            footer={<UrlPagination page={view.page} pageSize={view.pageSize} total={data.total} update={update} />}
          />
        )}
      </AuditListSection>
      <EntryPanel entryId={view.entryId} accountId={view.filter.account_id} timeZone={tz.timeZone} onClose={() => update({ entry: null })} />
    </div>
  );
}
