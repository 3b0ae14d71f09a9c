// inspectTools: Inspect. The full (or lean) capability results for tool ids, in request order;
// ids that are unknown or retired are reported, never silently dropped. Tools of an MCP provider
// with a live schema answer with the params its server lists now. Writes a `search_by_ids` usage event.
import type { UsageChannel } from "../db/schema";
import type { Db } from "../db/types";
import { recordUsageEvent } from "../audit/usage-event";
import { fetchLiveSchema, findLiveSchemaTools, type LiveSchemaTool } from "../catalog/live-schema";
import { DomainError } from "../errors";
import { creditsToNumber } from "../money";
import { capabilityResult } from "./capability";
import { catalogSnapshot, readCatalogVersionAndCredits, type CatalogTool } from "./catalog-index";
import type { CapabilityResult, InspectRequest, InspectResponse, SearchLang } from "./schemas";
import { msSince } from "../timing";

export interface InspectToolsInput {
  accountId: string;
  apiKeyId: string | null;
  request: InspectRequest;
  lang: SearchLang;
  channel?: UsageChannel;
}

export type InspectOutcome =
  | { outcome: "ok"; response: InspectResponse }
  /** A live schema fetch timed out (504) or failed (502): contract shape `{error, remaining_credits}`. */
  | { outcome: "upstream_timeout" | "upstream_unavailable"; error: string; remaining_credits: number | null };

/**
 * A tool's result from the catalog snapshot, or with its live params; null when its live server
 * no longer lists it. Live fetches may throw `DomainError("upstream_timeout" | "upstream_unavailable")`.
 */
async function describeTool(tool: CatalogTool, live: LiveSchemaTool | undefined, lang: SearchLang, view: "full" | "lean", region: string | null): Promise<CapabilityResult | null> {
  if (!live) return capabilityResult(tool, lang, view, region);
  const schema = await fetchLiveSchema(live);
  return schema && capabilityResult({ ...tool, params: schema.params, oneOfRequired: schema.oneOfRequired ?? null }, lang, view, region);
}

export async function inspectTools(db: Db, input: InspectToolsInput): Promise<InspectOutcome> {
  const started = performance.now();
  const { request, lang } = input;
  const { version, available, region } = await readCatalogVersionAndCredits(db, input.accountId);
  const snapshot = await catalogSnapshot(db, version);
  const ids = [...new Set(request.tool_ids)];
  const found = ids.map((id) => snapshot.byId.get(id)).filter((t): t is CatalogTool => t !== undefined);
  const live = await findLiveSchemaTools(db, found.map((t) => t.id));
  const remaining = available === null ? null : creditsToNumber(available);
  let answered: (CapabilityResult | null)[] = [];
  let upstream: DomainError | undefined;
  try {
    answered = await Promise.all(found.map((t) => describeTool(t, live.get(t.id), lang, request.view, region)));
  } catch (err) {
    if (!(err instanceof DomainError) || (err.code !== "upstream_timeout" && err.code !== "upstream_unavailable")) throw err;
    upstream = err;
  }
  const results = answered.filter((r): r is CapabilityResult => r !== null);
  // A live tool its server no longer lists is as stale as a retired one: reported, not dropped.
  const goneUpstream = new Set(found.filter((_, i) => answered[i] === null).map((t) => t.id));
  const unknown = ids.filter((id) => !snapshot.byId.has(id) || goneUpstream.has(id));
  const elapsedMs = msSince(started);
  const errorMessage = upstream
    ? upstream.message
    : unknown.length === 0
      ? null
      : `${unknown.length} of ${ids.length} tool_ids are unknown or retired (${unknown.join(", ")}): run Discover again for them`;

  await recordUsageEvent(db, {
    accountId: input.accountId,
    apiKeyId: input.apiKeyId,
    eventType: "search_by_ids",
    channel: input.channel,
    sourceRefType: "search",
    sourceRefId: request.search_id,
    sessionId: request.session_id ?? null,
    searchId: request.search_id ?? null,
    toolId: ids.length === 1 ? ids[0] : null,
    success: !upstream && results.length > 0,
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
      ...(request.search_id !== undefined && { search_id: request.search_id }),
      total: results.length,
      results,
      unknown_tool_ids: unknown,
      elapsed_time_ms: elapsedMs,
      remaining_credits: remaining,
      error_message: errorMessage,
    },
  };
}
