"use client";

import { useMemo, type ReactNode } from "react";
import { createColumnHelper, type TableOptions } from "@tanstack/react-table";
import { useI18n } from "@/components/i18n/i18n-provider";
import { DataTable } from "@/components/tables/data-table";
import { Button } from "@/components/ui/button";
import { formatDateTime } from "@/lib/dashboard/format";
import type { MessageKey } from "@/lib/dashboard/i18n";

/** What an audit page gives its table: a page of rows and the row whose details are open. */
export interface AuditRowsProps<T> {
  items: T[];
  timeZone: string;
  selectedId: string | null;
  onOpen: (id: string) => void;
  busy: boolean;
  footer: ReactNode;
}

/**
 * An audit page's rows (Usage, Ledger): the time in the chosen zone first, then the page's own
 * `columns` (memoised by the caller), then a button opening the row's details, labelled by
 * `openLabelKey` with the row's `{id}`.
 */
export function AuditTable<T extends { id: string; created_at: string }>({
  items,
  timeZone,
  selectedId,
  onOpen,
  busy,
  footer,
  columns,
  caption,
  rowTestId,
  openLabelKey,
}: AuditRowsProps<T> & { columns: TableOptions<T>["columns"]; caption: string; rowTestId: string; openLabelKey: MessageKey }) {
  const { t } = useI18n();
  const all = useMemo(() => {
    const column = createColumnHelper<T>();
    return [
      column.accessor((row) => row.created_at, {
        id: "created_at",
        header: () => t("usage.colTime", { tz: timeZone }),
        // Below 1440 px the date and the time take two lines (they wrap at their space), so a page
        // of 1280 px holds every column and the Details button without scrolling sideways.
        cell: (info) => (
          <time dateTime={info.getValue()} className="whitespace-nowrap tabular-nums text-zinc-700 sm:inline-block sm:max-w-[5.75rem] sm:whitespace-normal min-[1440px]:max-w-none min-[1440px]:whitespace-nowrap">
            {formatDateTime(info.getValue(), timeZone)}
          </time>
        ),
        meta: { primary: true },
      }),
      ...columns,
      column.display({
        id: "open",
        header: () => <span className="sr-only">{t("common.details")}</span>,
        cell: (info) => (
          <Button size="sm" onClick={() => onOpen(info.row.original.id)} aria-label={t(openLabelKey, { id: info.row.original.id })}>
            {t("common.details")}
          </Button>
        ),
        meta: { align: "right" },
      }),
    ];
  }, [t, timeZone, columns, onOpen, openLabelKey]);
  return <DataTable data={items} columns={all} caption={caption} getRowId={(e) => e.id} rowTestId={rowTestId} isRowSelected={(e) => e.id === selectedId} busy={busy} footer={footer} />;
}
