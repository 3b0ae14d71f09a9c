"use client";

import { useState, type ReactNode } from "react";
import type { UseQueryResult } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { TimeZoneSwitch } from "@/components/filters/time-zone-switch";
import { Pagination } from "@/components/tables/pagination";
import { DownloadIcon } from "@/components/ui/action-icons";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { LoadingBlock, Notice } from "@/components/ui/states";
import type { TimeZoneState } from "@/lib/dashboard/time-zone";
import { DEFAULT_PAGE_SIZE, PAGE_SIZES, type UrlPatch } from "@/lib/dashboard/url-state";

/**
 * The pieces the audit pages (Usage, Ledger) share: the time-zone and CSV export bar, the summary's
 * figures, and the list section with its states and pagination. Each page brings its own filters,
 * columns and queries.
 */

/** The time-zone switch and the CSV export button; `download` fetches and saves the file. */
export function ExportBar({ tz, download, testId }: { tz: TimeZoneState; download: () => Promise<void>; testId?: string }) {
  const { t } = useI18n();
  const [exporting, setExporting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run() {
    setExporting(true);
    setError(null);
    try {
      await download();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setExporting(false);
    }
  }
  return (
    <>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
        <TimeZoneSwitch tz={tz} />
        <Button size="sm" onClick={() => void run()} disabled={exporting} data-testid={testId}>
          <DownloadIcon width={16} height={16} />
          {exporting ? t("usage.exporting") : t("usage.export")}
        </Button>
      </div>
      {error && <Notice tone="error" title={t("usage.exportFailed")}>{error}</Notice>}
    </>
  );
}

/** A summary's headline figures, one card each. */
export function StatCards({ stats }: { stats: { label: string; value: string; testId: string; tone?: string }[] }) {
  return (
    <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4">
      {stats.map((s) => (
        <Card key={s.testId} className="p-4">
          <dt className="text-xs font-medium text-zinc-500">{s.label}</dt>
          <dd className={`mt-1 text-xl font-semibold tabular-nums ${s.tone ?? "text-zinc-900"}`} data-testid={s.testId}>
            {s.value}
          </dd>
        </Card>
      ))}
    </dl>
  );
}

/**
 * A page of audit rows under its heading: loading, error (with retry), empty, or `children` with
 * the page's rows.
 */
export function AuditListSection<T extends { items: unknown[] }>({
  headingId,
  title,
  query,
  loadingLabel,
  errorTitle,
  empty,
  children,
}: {
  headingId: string;
  title: string;
  query: UseQueryResult<T>;
  loadingLabel: string;
  errorTitle: string;
  empty: ReactNode;
  children: (data: T) => ReactNode;
}) {
  const { t } = useI18n();
  return (
    <section aria-labelledby={headingId} className="space-y-3">
      <h2 id={headingId} className="text-sm font-semibold text-zinc-900">
        {title}
      </h2>
      {query.isPending ? (
        <LoadingBlock label={loadingLabel} rows={6} />
      ) : query.isError ? (
        <ErrorState title={errorTitle} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
      ) : query.data.items.length === 0 ? (
        empty
      ) : (
        children(query.data)
      )}
    </section>
  );
}

/** Pagination kept in the URL (`page`, `page_size`, as `pagingParams` reads them; the defaults are left out). */
export function UrlPagination({ page, pageSize, total, update }: { page: number; pageSize: number; total: number; update: (patch: UrlPatch) => void }) {
  return (
    <Pagination
      page={page}
      pageSize={pageSize}
      total={total}
      pageSizes={PAGE_SIZES}
      onPage={(p) => update({ page: p === 1 ? null : p })}
      onPageSize={(size) => update({ page_size: size === DEFAULT_PAGE_SIZE ? null : size, page: null })}
    />
  );
}
