"use client";

import { useSearchParams } from "next/navigation";

/**
 * Links between dashboard pages, so an execution can be followed from Call to Usage to Ledger and
 * back. Each takes the account in view: support staff read a customer's account by its
 * `account_id` (the API refuses it from anyone else), and every link they follow keeps it, so a
 * ledger row opens in the customer's ledger, not in support's own.
 */
function withQuery(path: string, query: Record<string, string | null | undefined>): string {
  const qs = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) qs.set(name, value);
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

/** The account a support user is reading (the page's `account_id`); undefined for an account's own members. */
export function useAccountInView(): string | undefined {
  return useSearchParams().get("account_id")?.trim() || undefined;
}

export const consoleHref = (toolId: string, searchId?: string | null) => withQuery("/console", { tool_id: toolId, search_id: searchId });
export const executionHref = (id: string, account?: string) => withQuery("/executions", { id, account_id: account });
export const usageEventHref = (eventId: string, account?: string) => withQuery("/usage", { event: eventId, account_id: account });
/** The usage events of one execution, over all time (a Call may be older than the default window). */
export const usageForExecutionHref = (executionId: string, account?: string) => withQuery("/usage", { execution_id: executionId, range: "custom", account_id: account });
export const ledgerEntryHref = (entryId: string, account?: string) => withQuery("/ledger", { entry: entryId, account_id: account });
/** An agent run (a delegation token's `run_id`): its Calls in order and what they cost. */
export const runHref = (runId: string, account?: string) => withQuery(`/runs/${encodeURIComponent(runId)}`, { account_id: account });
/** The usage events of one agent run, over all time. */
export const usageForRunHref = (runId: string, account?: string) => withQuery("/usage", { run_id: runId, range: "custom", account_id: account });
