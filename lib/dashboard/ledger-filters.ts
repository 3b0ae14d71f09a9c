import type { AuditQuery } from "./audit-api";
import { buckets, type Bucket } from "./audit-vocab";
import { resolveRange, type ResolvedRange } from "./date-range";

/** The Ledger page's filters: the API's query parameters, kept in the URL under the same names. */
export const ledgerFilterParams = ["entry_type", "scope", "direction", "min_credits", "max_credits", "account_id"] as const;

export interface LedgerView {
  range: ResolvedRange;
  filter: AuditQuery;
  page: number;
  pageSize: number;
  bucket: Bucket | undefined;
  /** The ledger entry open in the side panel. */
  entryId: string | null;
}

export const LEDGER_PAGE_SIZES = [25, 50, 100];

export function readLedgerView(params: { get(name: string): string | null }, timeZone: string): LedgerView {
  const range = resolveRange(params, timeZone);
  const filter: AuditQuery = { start_date: range.startDate, end_date: range.endDate, tz: timeZone };
  for (const name of ledgerFilterParams) filter[name] = params.get(name) ?? undefined;
  const size = Number.parseInt(params.get("page_size") ?? "", 10);
  const bucket = params.get("bucket");
  return {
    range,
    filter,
    page: Math.max(1, Number.parseInt(params.get("page") ?? "1", 10) || 1),
    pageSize: LEDGER_PAGE_SIZES.includes(size) ? size : 50,
    bucket: (buckets as readonly string[]).includes(bucket ?? "") ? (bucket as Bucket) : undefined,
    entryId: params.get("entry"),
  };
}
