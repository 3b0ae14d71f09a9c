"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { AuditListSection, ExportBar, UrlPagination } from "@/components/audit/audit-page";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/states";
import { downloadCsv, fetchUsage } from "@/lib/dashboard/audit-api";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { readUsageView, usageFilterParams } from "@/lib/dashboard/usage-filters";
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

  const listQuery = { ...view.filter, page: String(view.page), page_size: String(view.pageSize) };
  const list = useQuery({
    queryKey: ["usage", "list", listQuery],
    queryFn: ({ signal }) => fetchUsage(listQuery, signal),
    placeholderData: keepPreviousData,
  });

  const filtered = usageFilterParams.some((name) => name !== "account_id" && view.filter[name]);

  return (
    <div className="space-y-6">
      <UsageFiltersBar
        view={view}
        timeZone={tz.timeZone}
        update={update}
        isSupport={isSupport}
        // A tool filter's chip names the tool: every listed event of it carries its catalog name.
        toolName={view.filter.tool_id ? list.data?.items.find((e) => e.tool_id === view.filter.tool_id)?.tool_name : undefined}
      />

      <ExportBar
        tz={tz}
        download={() => downloadCsv("/auth/usage/history/v2/export", view.filter, `usage-${view.range.startDate ?? "all"}-${view.range.endDate ?? "now"}.csv`)}
        testId="export-csv"
      />

      <UsageCharts view={view} />

      <AuditListSection
        headingId="usage-events-heading"
        title={t("usage.events")}
        query={list}
        loadingLabel={t("usage.loading")}
        errorTitle={t("usage.errorTitle")}
        empty={
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
        }
      >
        {(data) => (
          <UsageTable
            items={data.items}
            timeZone={tz.timeZone}
            selectedId={view.eventId}
            onOpen={(id) => update({ event: id })}
            busy={list.isFetching}
            footer={<UrlPagination page={view.page} pageSize={view.pageSize} total={data.total} update={update} />}
          />
        )}
      </AuditListSection>

      <EventPanel eventId={view.eventId} accountId={view.filter.account_id} timeZone={tz.timeZone} onClose={() => update({ event: null })} />
    </div>
  );
}
