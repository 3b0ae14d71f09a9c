import type { z } from "zod";
import type { CreditStatementListSchema, CreditStatementSchema } from "../api/routes/credits-statements-schemas";
import { apiData, apiUrl, clearAccessToken, getAccessToken, ApiError } from "./api-client";

/** The statement payloads; their types come from the API's own schemas. */
export type CreditStatement = z.infer<typeof CreditStatementSchema>;
export type CreditStatementList = z.infer<typeof CreditStatementListSchema>;
export type StatementLine = CreditStatement["consumption"]["lines"][number];

export interface StatementTarget {
  tz?: string;
  /** Support users: the account to read. */
  account_id?: string;
}

export const statementsQueryKey = (q: StatementTarget) => ["auth", "credits", "statements", q.tz ?? "UTC", q.account_id ?? ""] as const;
export const statementQueryKey = (month: string, q: StatementTarget) => ["auth", "credits", "statement", month, q.tz ?? "UTC", q.account_id ?? ""] as const;

export function fetchStatements(q: StatementTarget, signal?: AbortSignal): Promise<CreditStatementList> {
  return apiData<CreditStatementList>("/auth/credits/statements", { query: { ...q }, signal });
}

export function fetchStatement(month: string, q: StatementTarget, signal?: AbortSignal): Promise<CreditStatement> {
  return apiData<CreditStatement>(`/auth/credits/statements/${encodeURIComponent(month)}`, { query: { ...q }, signal });
}

/** Downloads the statement's CSV (fetched with the JWT, handed to the browser as a file). */
export async function downloadStatementCsv(month: string, q: StatementTarget): Promise<void> {
  const path = `/auth/credits/statements/${encodeURIComponent(month)}/export`;
  const get = async () => fetch(apiUrl(path, { ...q }), { headers: { Authorization: `Bearer ${await getAccessToken()}`, Accept: "text/csv" }, cache: "no-store" });
  let res = await get();
  if (res.status === 401) {
    clearAccessToken();
    res = await get();
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { message?: string } | null;
    throw new ApiError(res.status, body?.message ?? `Export failed (HTTP ${res.status})`);
  }
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = `credit-statement-${month}${q.tz && q.tz !== "UTC" ? `-${q.tz.replaceAll("/", "_")}` : ""}.csv`;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
