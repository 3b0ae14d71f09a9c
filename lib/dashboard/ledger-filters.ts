import type { AuditQuery } from "./audit-api";
import { buckets, type Bucket } from "./audit-vocab";
import { enumParam, pagingParams, type ParamReader } from "./url-state";
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

export function readLedgerView(params: ParamReader, timeZone: string): LedgerView {
  const range = resolveRange(params, timeZone);
  const filter: AuditQuery = { start_date: range.startDate, end_date: range.endDate, tz: timeZone };
  for (const name of ledgerFilterParams) filter[name] = params.get(name) ?? undefined;
  return {
    range,
    filter,
    ...pagingParams(params),
    bucket: enumParam(params, "bucket", buckets),
    entryId: params.get("entry"),
  };
}
