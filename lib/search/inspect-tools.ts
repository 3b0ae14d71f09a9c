// inspectTools: Inspect. The full (or lean) capability results for tool ids, in request order;
// ids that are unknown or retired are reported, never silently dropped. Writes a
// `search_by_ids` usage event.
import type { Db } from "../db/types";
import { recordUsageEvent } from "../audit/usage-event";
import { DomainError } from "../errors";
import { creditsToNumber } from "../money";
import { capabilityResult } from "./capability";
import { catalogSnapshot, readCatalogVersionAndCredits, type CatalogTool } from "./catalog-index";
import type { CapabilityResult, InspectRequest, InspectResponse, SearchLang } from "./schemas";

/**
 * Where a capability's schema comes from. Catalog tools answer from the snapshot; a provider
 * whose schema must be fetched live (MCP `tools/list`) plugs in here and may throw
 * `DomainError("upstream_timeout")`, which the route answers 504 `{error, remaining_credits}`.
 */
export type SchemaSource = (tool: CatalogTool, lang: SearchLang, view: "full" | "lean") => Promise<CapabilityResult>;

const catalogSchema: SchemaSource = async (tool, lang, view) => capabilityResult(tool, lang, view);

export interface InspectToolsInput {
  accountId: string;
  apiKeyId: string | null;
  request: InspectRequest;
  lang: SearchLang;
  schemaSource?: SchemaSource;
}

export type InspectOutcome =
  | { outcome: "ok"; response: InspectResponse }
  /** A live schema fetch timed out (504) or failed (502): contract shape `{error, remaining_credits}`. */
  | { outcome: "upstream_timeout" | "upstream_unavailable"; error: string; remaining_credits: number | null };

export async function inspectTools(db: Db, input: InspectToolsInput): Promise<InspectOutcome> {
  const started = performance.now();
  const { request, lang } = input;
  const { version, available } = await readCatalogVersionAndCredits(db, input.accountId);
  const snapshot = await catalogSnapshot(db, version);
  const ids = [...new Set(request.tool_ids)];
  const found = ids.map((id) => snapshot.byId.get(id)).filter((t): t is CatalogTool => t !== undefined);
  const unknown = ids.filter((id) => !snapshot.byId.has(id));
  const source = input.schemaSource ?? catalogSchema;
  const remaining = available === null ? null : creditsToNumber(available);
  let results: CapabilityResult[] = [];
  let upstream: DomainError | undefined;
  try {
    results = await Promise.all(found.map((t) => source(t, lang, request.view)));
  } catch (err) {
    if (!(err instanceof DomainError) || (err.code !== "upstream_timeout" && err.code !== "upstream_unavailable")) throw err;
    upstream = err;
  }
  const elapsedMs = Math.round((performance.now() - started) * 100) / 100;
  const errorMessage = upstream
    ? upstream.message
    : unknown.length === 0
      ? null
      : `${unknown.length} of ${ids.length} tool_ids are unknown or retired (${unknown.join(", ")}): run Discover again for them`;

  await recordUsageEvent(db, {
    accountId: input.accountId,
    apiKeyId: input.apiKeyId,
    eventType: "search_by_ids",
    sourceRefType: "search",
    sourceRefId: request.search_id,
    sessionId: request.session_id ?? null,
    searchId: request.search_id ?? null,
    toolId: ids.length === 1 ? ids[0] : null,
    success: !upstream && found.length > 0,
    reasonCode: upstream ? (upstream.code === "upstream_timeout" ? "transport.timeout" : "transport.no_response") : null,
    settledAmount: "0",
    errorMessage,
    durationMs: Math.round(elapsedMs),
    billingSummary: "Included (free inspect)",
    displayTarget: ids.slice(0, 5).join(", ") + (ids.length > 5 ? ", …" : ""),
    requestPayload: { tool_ids: ids, view: request.view, lang },
    responsePayloadSummary: { total: results.length, unknown_tool_ids: unknown },
  });

  if (upstream) return { outcome: upstream.code === "upstream_timeout" ? "upstream_timeout" : "upstream_unavailable", error: upstream.message, remaining_credits: remaining };
  return {
    outcome: "ok",
    response: {
      search_id: request.search_id ?? null,
      total: results.length,
      results,
      unknown_tool_ids: unknown,
      elapsed_time_ms: elapsedMs,
      remaining_credits: remaining,
      error_message: errorMessage,
    },
  };
}
