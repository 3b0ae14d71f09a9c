"use client";

import { useState } from "react";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { TimeZoneSwitch } from "@/components/filters/time-zone-switch";
import { Pagination } from "@/components/tables/pagination";
import { DownloadIcon } from "@/components/ui/action-icons";
import { Button } from "@/components/ui/button";
import { ErrorState } from "@/components/ui/error-state";
import { EmptyState, LoadingBlock, Notice } from "@/components/ui/states";
import { downloadCsv, fetchUsage } from "@/lib/dashboard/audit-api";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { readUsageView, USAGE_PAGE_SIZES, usageFilterParams } from "@/lib/dashboard/usage-filters";
import { useUrlParams } from "@/lib/dashboard/url-state";
import { EventPanel } from "./event-panel";
import { UsageCharts } from "./usage-charts";
import { UsageFiltersBar } from "./usage-filters-bar";
import { UsageTable } from "./usage-table";

export function UsageView({ isSupport }: { isSupport: boolean }) {
  const { t } = useI18n();
  const tz = useTimeZone();
  const [params, update] = useUrlParams();
  const view = readUsageView(params, tz.timeZone);
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | null>(null);

  const listQuery = { ...view.filter, page: String(view.page), page_size: String(view.pageSize) };
  const list = useQuery({
    queryKey: ["usage", "list", listQuery],
    queryFn: ({ signal }) => fetchUsage(listQuery, signal),
    placeholderData: keepPreviousData,
  });

  const filtered = usageFilterParams.some((name) => name !== "account_id" && view.filter[name]);

  async function exportCsv() {
    setExporting(true);
    setExportError(null);
    try {
      await downloadCsv("/auth/usage/history/v2/export", view.filter, `usage-${view.range.startDate ?? "all"}-${view.range.endDate ?? "now"}.csv`);
    } catch (err) {
      setExportError(err instanceof Error ? err.message : String(err));
    } finally {
      setExporting(false);
    }
  }

  return (
    <div className="space-y-6">
      <UsageFiltersBar view={view} timeZone={tz.timeZone} update={update} isSupport={isSupport} />

      <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
        <TimeZoneSwitch tz={tz} />
        <Button size="sm" onClick={() => void exportCsv()} disabled={exporting} data-testid="export-csv">
          <DownloadIcon width={16} height={16} />
          {exporting ? t("usage.exporting") : t("usage.export")}
        </Button>
      </div>
      {exportError && <Notice tone="error" title={t("usage.exportFailed")}>{exportError}</Notice>}

      <UsageCharts view={view} />

      <section aria-labelledby="usage-events-heading" className="space-y-3">
        <h2 id="usage-events-heading" className="text-sm font-semibold text-zinc-900">
          {t("usage.events")}
        </h2>
        {list.isPending ? (
          <LoadingBlock label={t("usage.loading")} rows={6} />
        ) : list.isError ? (
          <ErrorState title={t("usage.errorTitle")} message={list.error.message} retryLabel={t("common.retry")} onRetry={() => void list.refetch()} />
        ) : list.data.items.length === 0 ? (
          <EmptyState
            testId="usage-empty"
            title={filtered ? t("usage.emptyFilteredTitle") : t("usage.emptyTitle")}
            body={filtered ? t("usage.emptyFilteredBody") : t("usage.emptyBody")}
            action={
              filtered ? (
                <Button size="sm" onClick={() => update(Object.fromEntries(usageFilterParams.filter((n) => n !== "account_id").map((n) => [n, null])))}>
                  {t("filters.clearAll")}
                </Button>
              ) : undefined
            }
          />
        ) : (
          <UsageTable
            items={list.data.items}
            timeZone={tz.timeZone}
            selectedId={view.eventId}
            onOpen={(id) => update({ event: id })}
            busy={list.isFetching}
            footer={
              <Pagination
                page={view.page}
                pageSize={view.pageSize}
                total={list.data.total}
                pageSizes={USAGE_PAGE_SIZES}
                onPage={(page) => update({ page: page === 1 ? null : page })}
                onPageSize={(size) => update({ page_size: size === 50 ? null : size, page: null })}
              />
            }
          />
        )}
      </section>

      <EventPanel eventId={view.eventId} accountId={view.filter.account_id} timeZone={tz.timeZone} onClose={() => update({ event: null })} />
    </div>
  );
}
