"use client";

import { useMemo } from "react";
import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { ExportBar } from "@/components/audit/audit-page";
import { DateRangePicker } from "@/components/filters/date-range-picker";
import { AccountFilter, OptionFilter } from "@/components/filters/filter-fields";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { EmptyState, LoadingBlock } from "@/components/ui/states";
import { activityActions, actorTypes } from "@/lib/vocab/activity";
import { apiKeysQueryKey, fetchApiKeys } from "@/lib/dashboard/api-keys";
import { downloadCsv } from "@/lib/dashboard/audit-api";
import { resolveRange } from "@/lib/dashboard/date-range";
import { activityQueryKey, fetchActivity, type ActivityFilter } from "@/lib/dashboard/team";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { useUrlParams } from "@/lib/dashboard/url-state";
import { ActivityTable } from "./activity-table";

/** The account's activity log, newest first, filtered from the URL, one cursor page after another. */
export function ActivityView({ isSupport }: { isSupport: boolean }) {
  const { t } = useI18n();
  const tz = useTimeZone();
  const [params, update] = useUrlParams();
  const range = resolveRange(params, tz.timeZone, new Date(), "30d");
  const filter: ActivityFilter = useMemo(() => {
    const pick = (name: string) => params.get(name) || undefined;
    return {
      action: pick("action"),
      actor_type: pick("actor_type"),
      actor_id: pick("actor_id"),
      object_type: pick("object_type"),
      object_id: pick("object_id"),
      account_id: isSupport ? pick("account_id") : undefined,
      start_date: range.startDate,
      end_date: range.endDate,
      tz: tz.timeZone,
    };
  }, [params, isSupport, range.startDate, range.endDate, tz.timeZone]);

  const query = useInfiniteQuery({
    queryKey: [...activityQueryKey, filter],
    queryFn: ({ pageParam, signal }) => fetchActivity(filter, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    placeholderData: keepPreviousData,
  });
  const entries = useMemo(() => query.data?.pages.flatMap((p) => p.items) ?? [], [query.data]);
  // Key ids in the log (a budget's key, a removed member's keys) read as the keys' names; the list is the reader's own account's.
  const keys = useQuery({ queryKey: apiKeysQueryKey, queryFn: ({ signal }) => fetchApiKeys(signal), enabled: !filter.account_id });
  const keyName = useMemo(() => {
    const names = new Map((keys.data ?? []).map((k) => [k.api_key_id, k.name]));
    return (id: string) => names.get(id);
  }, [keys.data]);

  return (
    <div className="space-y-6">
      <Card className="p-4">
        <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_auto]" data-testid="activity-filters">
          <OptionFilter
            label={t("activity.filterAction")}
            value={filter.action}
            onChange={(v) => update({ action: v })}
            options={activityActions.map((a) => ({ value: a, label: t(`activity.action.${a}`) }))}
          />
          <OptionFilter
            label={t("activity.filterActor")}
            value={filter.actor_type}
            onChange={(v) => update({ actor_type: v })}
            options={actorTypes.map((a) => ({ value: a, label: t(`activity.actor.${a}`) }))}
          />
          <DateRangePicker range={range} timeZone={tz.timeZone} onChange={update} />
          {isSupport && <AccountFilter value={filter.account_id} onChange={(v) => update({ account_id: v })} hint={t("filters.accountHint")} />}
        </div>
      </Card>

      <ExportBar
        tz={tz}
        download={() => downloadCsv("/auth/account/activity/export", filter, `activity-${range.startDate ?? "start"}-${range.endDate ?? "now"}.csv`)}
        testId="activity-export"
      />

      {query.isPending ? (
        <LoadingBlock label={t("activity.loading")} rows={8} />
      ) : query.isError ? (
        <ErrorState title={t("activity.errorTitle")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
      ) : entries.length === 0 ? (
        <EmptyState testId="activity-empty" title={t("activity.emptyTitle")} body={t("activity.emptyBody")} />
      ) : (
        <section aria-labelledby="activity-heading" className="space-y-3">
          <h2 id="activity-heading" className="text-sm font-semibold text-zinc-900">
            {t("activity.listTitle")}
          </h2>
          <ActivityTable entries={entries} timeZone={tz.timeZone} busy={query.isPlaceholderData} keyName={keyName} />
          <div className="flex flex-wrap items-center justify-between gap-2 text-xs text-zinc-500">
            <span data-testid="activity-count">{t("activity.shown", { count: entries.length })}</span>
            {query.hasNextPage ? (
              <Button size="sm" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage} data-testid="activity-more">
                {query.isFetchingNextPage ? t("activity.loadingMore") : t("activity.loadMore")}
              </Button>
            ) : (
              <span>{t("activity.end")}</span>
            )}
          </div>
        </section>
      )}
    </div>
  );
}
