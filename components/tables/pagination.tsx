"use client";

import { useI18n } from "@/components/i18n/i18n-provider";
import { formatCount } from "@/lib/dashboard/format";
import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/form-controls";

/** Server-side pagination: the API counts (`total`) and the page is in the URL. */
export function Pagination({
  page,
  pageSize,
  total,
  pageSizes = [25, 50, 100],
  onPage,
  onPageSize,
}: {
  page: number;
  pageSize: number;
  total: number;
  pageSizes?: number[];
  onPage: (page: number) => void;
  onPageSize?: (size: number) => void;
}) {
  const { t, locale } = useI18n();
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const first = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const last = Math.min(total, page * pageSize);
  return (
    <nav aria-label={t("table.pagination")} className="flex flex-col gap-2 px-3 py-2.5 text-sm text-zinc-600 sm:flex-row sm:items-center sm:justify-between">
      <p data-testid="pagination-range">{t("table.range", { first: formatCount(first, locale), last: formatCount(last, locale), total: formatCount(total, locale) })}</p>
      <div className="flex flex-wrap items-center gap-2">
        {onPageSize && (
          <label className="flex items-center gap-1.5 whitespace-nowrap text-xs text-zinc-500">
            {t("table.perPage")}
            <Select value={pageSize} onChange={(e) => onPageSize(Number(e.target.value))} className="w-auto py-1 text-xs">
              {pageSizes.map((size) => (
                <option key={size} value={size}>
                  {size}
                </option>
              ))}
            </Select>
          </label>
        )}
        <div className="flex items-center gap-2">
          <Button size="sm" onClick={() => onPage(page - 1)} disabled={page <= 1}>
            {t("table.previous")}
          </Button>
          <span className="whitespace-nowrap text-xs tabular-nums text-zinc-500">{t("table.pageOf", { page, pages })}</span>
          <Button size="sm" onClick={() => onPage(page + 1)} disabled={page >= pages}>
            {t("table.next")}
          </Button>
        </div>
      </div>
    </nav>
  );
}
