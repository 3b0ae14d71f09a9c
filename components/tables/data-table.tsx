"use client";

import { flexRender, getCoreRowModel, useReactTable, type RowData, type TableOptions } from "@tanstack/react-table";
import type { ReactNode } from "react";
import { usePhoneLayout } from "@/lib/dashboard/use-media-query";
import { useHorizontalOverflow } from "@/lib/dashboard/use-overflow";

declare module "@tanstack/react-table" {
  interface ColumnMeta<TData extends RowData, TValue> {
    align?: "left" | "right";
    /** Classes for this column's cells in the table layout. */
    className?: string;
    /** In the phone layout: the card's title line rather than a labelled row. */
    primary?: boolean;
    /** Left out of the phone layout (secondary detail). */
    hideOnPhone?: boolean;
  }
}

export interface DataTableProps<T> {
  data: T[];
  /** Column definitions of mixed value types, as `createColumnHelper` builds them. */
  columns: TableOptions<T>["columns"];
  caption: string;
  getRowId: (row: T) => string;
  /** One test id for every row, or one per row. */
  rowTestId?: string | ((row: T) => string);
  /** Highlights a row (the one open in a side panel, the one linked to). */
  isRowSelected?: (row: T) => boolean;
  footer?: ReactNode;
  busy?: boolean;
}

/**
 * A TanStack Table (v8) in the dashboard's style. Pagination and filtering happen on the server,
 * so the table renders the page it is given. Below the `sm` breakpoint each row becomes a card of
 * labelled values, readable without horizontal scrolling.
 */
export function DataTable<T>({ data, columns, caption, getRowId, rowTestId, isRowSelected, footer, busy }: DataTableProps<T>) {
  const table = useReactTable({ data, columns, getCoreRowModel: getCoreRowModel(), getRowId, manualPagination: true, manualSorting: true, manualFiltering: true });
  const phone = usePhoneLayout();
  const [scroller, scrolls] = useHorizontalOverflow<HTMLDivElement>();
  const testIdOf = (row: T) => (typeof rowTestId === "function" ? rowTestId(row) : rowTestId);

  if (phone) {
    return (
      <div aria-busy={busy || undefined}>
        <ul aria-label={caption} className={`space-y-3 ${busy ? "opacity-60" : ""}`}>
          {table.getRowModel().rows.map((row) => {
            const cells = row.getVisibleCells().filter((c) => !c.column.columnDef.meta?.hideOnPhone);
            const primary = cells.filter((c) => c.column.columnDef.meta?.primary);
            const rest = cells.filter((c) => !c.column.columnDef.meta?.primary);
            return (
              <li
                key={row.id}
                data-testid={testIdOf(row.original)}
                className={`rounded-xl border bg-white p-4 shadow-xs ${isRowSelected?.(row.original) ? "border-indigo-300 ring-2 ring-indigo-100" : "border-zinc-200"}`}
              >
                {primary.length > 0 && (
                  <div className="mb-2 flex flex-wrap items-center gap-2">
                    {primary.map((cell) => (
                      <div key={cell.id} className="min-w-0">
                        {flexRender(cell.column.columnDef.cell, cell.getContext())}
                      </div>
                    ))}
                  </div>
                )}
                <dl className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)] gap-x-3 gap-y-1.5 text-sm">
                  {rest.map((cell) => {
                    const header = table.getFlatHeaders().find((h) => h.column.id === cell.column.id);
                    return (
                      <div key={cell.id} className="contents">
                        <dt className="break-words text-xs leading-6 text-zinc-500">{header && !header.isPlaceholder ? flexRender(header.column.columnDef.header, header.getContext()) : null}</dt>
                        <dd className="min-w-0 break-words text-zinc-800">{flexRender(cell.column.columnDef.cell, cell.getContext())}</dd>
                      </div>
                    );
                  })}
                </dl>
              </li>
            );
          })}
        </ul>
        {footer}
      </div>
    );
  }

  return (
    <div className="overflow-hidden rounded-xl border border-zinc-200 bg-white shadow-xs" aria-busy={busy || undefined}>
      {/* When the columns are wider than the page, the table scrolls sideways: then it is a named, focusable region, so a keyboard can scroll it.
          Positioned, so an absolutely placed cell content (an `sr-only` header) scrolls with it instead of widening the page. */}
      <div
        ref={scroller}
        className="relative overflow-x-auto focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-indigo-500"
        {...(scrolls ? { role: "region", "aria-label": caption, tabIndex: 0 } : {})}
        data-scrolls={scrolls || undefined}
      >
        <table className={`w-full border-collapse text-left text-sm ${busy ? "opacity-60" : ""}`}>
          <caption className="sr-only">{caption}</caption>
          <thead className="bg-zinc-50 text-xs font-medium text-zinc-500">
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => (
                  <th
                    key={header.id}
                    scope="col"
                    className={`whitespace-nowrap border-b border-zinc-200 px-3 py-2.5 font-medium ${header.column.columnDef.meta?.align === "right" ? "text-right" : ""}`}
                  >
                    {header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext())}
                  </th>
                ))}
              </tr>
            ))}
          </thead>
          <tbody className="divide-y divide-zinc-100">
            {table.getRowModel().rows.map((row) => (
              <tr key={row.id} data-testid={testIdOf(row.original)} className={isRowSelected?.(row.original) ? "bg-indigo-50/70" : "hover:bg-zinc-50"}>
                {row.getVisibleCells().map((cell) => {
                  const meta = cell.column.columnDef.meta;
                  return (
                    <td key={cell.id} className={`px-3 py-2.5 align-middle ${meta?.align === "right" ? "text-right tabular-nums" : ""} ${meta?.className ?? ""}`}>
                      {flexRender(cell.column.columnDef.cell, cell.getContext())}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {footer && <div className="border-t border-zinc-200">{footer}</div>}
    </div>
  );
}
