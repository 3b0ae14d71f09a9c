import type { RunItem, RunList } from "../audit/run-schemas";
import { apiData } from "./api-client";
import { clean, type AuditQuery } from "./audit-api";

/** `GET /api/v1/auth/runs` (JWT): the account's agent runs with their delegation caps; types from the API's schema. */
export type { RunItem, RunList };
export type RunDelegation = RunItem["delegations"][number];

export function fetchRuns(query: AuditQuery, signal?: AbortSignal): Promise<RunList> {
  return apiData<RunList>("/auth/runs", { query: clean(query), signal });
}

/** The run's one item, or null when the account has no run of that id. */
export async function fetchRun(runId: string, accountId: string | undefined, signal?: AbortSignal): Promise<RunItem | null> {
  return (await fetchRuns({ run_id: runId, account_id: accountId }, signal)).items[0] ?? null;
}

/**
 * What the run's newest delegation token has used of its cap (spent and still held by Calls in
 * flight), as a share of it; null when the token has no cap.
 */
export function capUse(d: RunDelegation | undefined): { used: number; share: number } | null {
  if (!d || d.max_credits === null) return null;
  const used = d.spent_credits + d.reserved_credits;
  return { used, share: d.max_credits > 0 ? Math.min(1, used / d.max_credits) : 1 };
}
