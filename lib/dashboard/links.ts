/** Links between dashboard pages, so an execution can be followed from Call to Usage to Ledger and back. */
function withQuery(path: string, query: Record<string, string | null | undefined>): string {
  const qs = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) qs.set(name, value);
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

export const consoleHref = (toolId: string, searchId?: string | null) => withQuery("/console", { tool_id: toolId, search_id: searchId });
export const executionHref = (id: string) => withQuery("/executions", { id });
export const usageEventHref = (eventId: string) => withQuery("/usage", { event: eventId });
/** The usage events of one execution, over all time (a Call may be older than the default window). */
export const usageForExecutionHref = (executionId: string) => withQuery("/usage", { execution_id: executionId, range: "custom" });
export const ledgerEntryHref = (entryId: string) => withQuery("/ledger", { entry: entryId });
/** An agent run (a delegation token's `run_id`): its Calls in order and what they cost. */
export const runHref = (runId: string) => `/runs/${encodeURIComponent(runId)}`;
/** The usage events of one agent run, over all time. */
export const usageForRunHref = (runId: string) => withQuery("/usage", { run_id: runId, range: "custom" });
