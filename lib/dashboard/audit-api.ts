import type { z } from "zod";
import type {
  CreditsSpentSchema,
  LedgerItem,
  LedgerListSchema,
  LedgerSummary,
  Lookup,
  ReadinessSchema,
  UsageEventItem,
  UsageHistorySchema,
  UsageSummary,
} from "../audit/schemas";
import type { AccountSummary } from "../accounts/summary";
import type { ReviewCase } from "../audit/review-queue";
import { ApiError, apiData, apiUrl, getAccessToken, clearAccessToken, type QueryValue } from "./api-client";

/**
 * The audit endpoints (contract 4.2 and 4.3, plus `GET /auth/lookup`) as the dashboard reads
 * them, with the dashboard's JWT. Types come from the API's own response schemas.
 */
export type { AccountSummary, ReviewCase, LedgerItem, LedgerSummary, Lookup, UsageEventItem, UsageSummary };
export type UsageHistory = z.infer<typeof UsageHistorySchema>;
export type LedgerList = z.infer<typeof LedgerListSchema>;
export type CreditsSpent = z.infer<typeof CreditsSpentSchema>;
export type Readiness = z.infer<typeof ReadinessSchema>;
export type CallTrace = Lookup["calls"][number];

/** Query parameters exactly as the API names them; undefined ones are left out. */
export type AuditQuery = Record<string, string | undefined>;

export function clean(query: AuditQuery): Record<string, QueryValue> {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== ""));
}

export function fetchUsage(query: AuditQuery, signal?: AbortSignal): Promise<UsageHistory> {
  return apiData<UsageHistory>("/auth/usage/history/v2", { query: clean(query), signal });
}

export function fetchUsageEvent(eventId: string, accountId: string | undefined, signal?: AbortSignal): Promise<UsageEventItem> {
  return apiData<UsageEventItem>(`/auth/usage/history/v2/${encodeURIComponent(eventId)}`, { query: clean({ account_id: accountId }), signal });
}

export function fetchCreditsSpent(query: AuditQuery, signal?: AbortSignal): Promise<CreditsSpent> {
  return apiData<CreditsSpent>("/auth/usage/credits-spent", { query: clean(query), signal });
}

export function fetchLedger(query: AuditQuery, signal?: AbortSignal): Promise<LedgerList> {
  return apiData<LedgerList>("/auth/credits/ledger", { query: clean(query), signal });
}

export function fetchLedgerEntry(entryId: string, accountId: string | undefined, signal?: AbortSignal): Promise<LedgerItem> {
  return apiData<LedgerItem>(`/auth/credits/ledger/${encodeURIComponent(entryId)}`, { query: clean({ account_id: accountId }), signal });
}

export function fetchReadiness(query: AuditQuery, signal?: AbortSignal): Promise<Readiness> {
  return apiData<Readiness>("/auth/credits/ledger-readiness", { query: clean(query), signal });
}

export function fetchLookup(id: string, accountId: string | undefined, signal?: AbortSignal): Promise<Lookup> {
  return apiData<Lookup>("/auth/lookup", { query: clean({ id, account_id: accountId }), signal });
}

export interface ReviewQueue {
  items: ReviewCase[];
  total: number;
  skip: number;
  limit: number;
}

/** Support's queue of failed but charged Calls across accounts, oldest first (`GET /auth/review-queue`). */
export function fetchReviewQueue(skip: number, limit: number, signal?: AbortSignal): Promise<ReviewQueue> {
  return apiData<ReviewQueue>("/auth/review-queue", { query: { skip: String(skip), limit: String(limit) }, signal });
}

export interface AccountsByEmail {
  email: string;
  items: { account_id: string; name: string; role: string }[];
}

/** The accounts a person belongs to, by email (`GET /auth/accounts`; support). */
export function fetchAccountsByEmail(email: string, signal?: AbortSignal): Promise<AccountsByEmail> {
  return apiData<AccountsByEmail>("/auth/accounts", { query: { email }, signal });
}

/** Whose account it is (`GET /auth/account`): the one support is reading, or the caller's own. */
export function fetchAccountSummary(accountId: string | undefined, signal?: AbortSignal): Promise<AccountSummary> {
  return apiData<AccountSummary>("/auth/account", { query: clean({ account_id: accountId }), signal });
}

/**
 * Downloads a CSV export of the current filter: fetched with the JWT (a plain link could not
 * carry it), then handed to the browser as a file.
 */
export async function downloadCsv(
  path: "/auth/usage/history/v2/export" | "/auth/credits/ledger/export" | "/auth/usage/breakdown/export" | "/auth/account/activity/export" | "/auth/billing/reconciliation",
  query: AuditQuery,
  filename: string,
): Promise<void> {
  const get = async () => fetch(apiUrl(path, clean(query)), { headers: { Authorization: `Bearer ${await getAccessToken()}`, Accept: "text/csv" }, cache: "no-store" });
  let res = await get();
  if (res.status === 401) {
    clearAccessToken();
    res = await get();
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { message?: string } | null;
    throw new ApiError(res.status, body?.message ?? `Export failed (HTTP ${res.status})`);
  }
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  // Give the browser time to start the download before the blob goes away.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
