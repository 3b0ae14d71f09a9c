"use client";

import { useId } from "react";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ExportBar, StatCards } from "@/components/audit/audit-page";
import { ActiveFilterChips, attributionChips } from "@/components/filters/active-filter-chips";
import { DateRangePicker } from "@/components/filters/date-range-picker";
import { AccountFilter, FilterField, OptionFilter } from "@/components/filters/filter-fields";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { Select } from "@/components/ui/form-controls";
import { EmptyState, LoadingBlock } from "@/components/ui/states";
import { downloadCsv } from "@/lib/dashboard/audit-api";
import { formatCount, formatCredits, formatDateTime, todayIn } from "@/lib/dashboard/format";
import {
  autoSpendBucket,
  breakdownQueryKey,
  fetchBreakdown,
  readSpendView,
  spendBuckets,
  spendDimensions,
  spendFilterParams,
  spendLimits,
  DEFAULT_SPEND_LIMIT,
  usageHrefForGroup,
  type Breakdown,
  type SpendDimension,
  type SpendView as SpendViewState,
} from "@/lib/dashboard/spend";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { useUrlParams, type UrlPatch } from "@/lib/dashboard/url-state";
import { SpendChart } from "./spend-chart";
import { dimensionInSentence } from "./spend-labels";
import { SpendTable } from "./spend-table";

/** Where the credits went: the breakdown by one dimension over the window, as totals, a stacked chart and a table. */
export function SpendView({ isSupport }: { isSupport: boolean }) {
  const { t } = useI18n();
  const tz = useTimeZone();
  const [params, update] = useUrlParams();
  const view = readSpendView(params, tz.timeZone);
  const query = useQuery({
    queryKey: breakdownQueryKey(view.query),
    queryFn: ({ signal }) => fetchBreakdown(view.query, signal),
    placeholderData: keepPreviousData,
  });

  return (
    <div className="space-y-6">
      <SpendControls view={view} timeZone={tz.timeZone} update={update} isSupport={isSupport} />

      <ExportBar
        tz={tz}
        download={() => downloadCsv("/auth/usage/breakdown/export", view.query, `spend-by-${view.dimension}-${view.range.startDate ?? "start"}-${view.range.endDate ?? "now"}.csv`)}
        testId="spend-export"
      />

      {query.isPending ? (
        <LoadingBlock label={t("spend.loading")} rows={8} />
      ) : query.isError ? (
        <ErrorState title={t("spend.errorTitle")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
      ) : query.data.totals.calls === 0 && query.data.totals.refunded_credits === 0 ? (
        <EmptyState testId="spend-empty" title={t("spend.emptyTitle")} body={t("spend.emptyBody")} />
      ) : (
        <div className={`space-y-6 ${query.isPlaceholderData ? "opacity-60" : ""}`} aria-busy={query.isFetching || undefined} data-testid="spend-result" data-group-by={query.data.group_by.join(",")}>
          <SpendTotals data={query.data} />
          <SpendChart data={query.data} dimension={view.dimension} />
          <section aria-labelledby="spend-table-heading" className="space-y-3">
            <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
              <h2 id="spend-table-heading" className="text-sm font-semibold text-zinc-900">
                {t("spend.tableTitle", { dimension: dimensionInSentence(view.dimension, t) })}
              </h2>
              <p className="text-xs text-zinc-500" data-testid="spend-group-count">
                {query.data.group_count > query.data.limit
                  ? t("spend.groupsFolded", { count: query.data.group_count, limit: query.data.limit })
                  : t("spend.groupsAll", { count: query.data.group_count })}
              </p>
            </div>
            <SpendTable data={query.data} dimension={view.dimension} usageHref={(g) => usageHrefForGroup(view, params, g)} />
          </section>
          <WindowNote data={query.data} />
        </div>
      )}
    </div>
  );
}

function SpendControls({ view, timeZone, update, isSupport }: { view: SpendViewState; timeZone: string; update: (patch: UrlPatch) => void; isSupport: boolean }) {
  const { t } = useI18n();
  const chips = attributionChips(view.filter, spendFilterParams, t);
  const auto = autoSpendBucket(view.range, todayIn(timeZone));
  return (
    <Card className="space-y-4 p-4 sm:p-5">
      <GroupBySwitch value={view.dimension} onChange={(d) => update({ group_by: d })} />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <DateRangePicker range={view.range} timeZone={timeZone} onChange={(patch) => update(patch)} />
        <div className="flex flex-wrap items-end gap-2">
          <OptionFilter
            label={t("filters.bucket")}
            value={view.bucketFromUrl ? view.bucket : undefined}
            onChange={(bucket) => update({ bucket })}
            emptyLabel={t("spend.bucketAuto", { bucket: t(`bucket.${auto}`) })}
            options={spendBuckets.map((b) => ({ value: b, label: t(`bucket.${b}`) }))}
            className="w-auto"
          />
          <FilterField label={t("spend.top")}>
            {(id) => (
              <Select id={id} value={String(view.limit)} onChange={(e) => update({ limit: Number(e.target.value) === DEFAULT_SPEND_LIMIT ? null : e.target.value })} className="w-auto">
                {spendLimits.map((n) => (
                  <option key={n} value={n}>
                    {t("spend.topN", { count: n })}
                  </option>
                ))}
              </Select>
            )}
          </FilterField>
        </div>
      </div>
      {isSupport && (
        <div className="max-w-sm">
          <AccountFilter value={view.filter.account_id} onChange={(v) => update({ account_id: v })} hint={t("filters.accountHint")} />
        </div>
      )}
      <ActiveFilterChips filters={chips.filter((c) => c.name !== "account_id")} onRemove={(name) => update({ [name]: null })} testId="spend-filters" />
    </Card>
  );
}

/** One button per dimension (a real toggle each); the chosen one is pressed. */
function GroupBySwitch({ value, onChange }: { value: SpendDimension; onChange: (d: SpendDimension) => void }) {
  const { t } = useI18n();
  const labelId = useId();
  return (
    <div>
      <p id={labelId} className="mb-1.5 text-xs font-medium text-zinc-600">
        {t("spend.groupBy")}
      </p>
      <div role="group" aria-labelledby={labelId} className="flex flex-wrap gap-1.5" data-testid="group-by">
        {spendDimensions.map((d) => (
          <button
            key={d}
            type="button"
            aria-pressed={value === d}
            onClick={() => onChange(d)}
            className={`rounded-full border px-3 py-1 text-xs font-medium transition-colors ${
              value === d ? "border-indigo-600 bg-indigo-600 text-white" : "border-zinc-300 bg-white text-zinc-700 hover:border-zinc-400 hover:bg-zinc-50"
            }`}
          >
            {t(`spend.dim.${d}`)}
          </button>
        ))}
      </div>
    </div>
  );
}

function SpendTotals({ data }: { data: Breakdown }) {
  const { t, locale } = useI18n();
  return (
    <StatCards
      stats={[
        { label: t("spend.statCalls"), value: formatCount(data.totals.calls, locale), testId: "spend-total-calls" },
        { label: t("spend.statCharged"), value: formatCount(data.totals.charged_calls, locale), testId: "spend-total-charged" },
        { label: t("spend.statSettled"), value: formatCredits(data.totals.settled_credits, locale), testId: "spend-total-settled" },
        { label: t("spend.statRefunded"), value: formatCredits(data.totals.refunded_credits, locale), testId: "spend-total-refunded", tone: data.totals.refunded_credits > 0 ? "text-emerald-700" : undefined },
      ]}
    />
  );
}

function WindowNote({ data }: { data: Breakdown }) {
  const { t } = useI18n();
  return (
    <p className="text-xs text-zinc-500" data-testid="spend-window">
      {t("spend.windowNote", { start: formatDateTime(data.start_date, data.tz, { seconds: false }), end: formatDateTime(data.end_date, data.tz, { seconds: false }), tz: data.tz })}
    </p>
  );
}
