// Live MCP schemas: tools of a provider imported with `schema: "live"` are inspected with, and
// Probe/Call validate parameters against, the params their server lists now (`tools/list`) instead
// of the imported snapshot. The stored catalog row is never rewritten here, so Discover's index
// keeps the snapshot until a re-import.
import { and, eq, inArray, sql } from "drizzle-orm";
import { providers, tools } from "../db/schema";
import type { Db } from "../db/types";
import { privateUpstreamAllowList } from "../env";
import { DomainError } from "../errors";
import { listMcpTools, type McpToolDescription } from "../providers/mcp-adapter";
import type { ToolParam } from "./manifest";
import { mcpToolParams } from "./mcp-import";
import type { ToolTarget } from "../providers/types";

/** Upper bound on one `tools/list` exchange, whatever the tool's own `timeout_ms`: Inspect must stay quick. */
const TIMEOUT_CAP_MS = 5_000;
/** A server's listing is reused this long per provider, so repeated Inspects do not hammer it. */
export const LIVE_SCHEMA_CACHE_TTL_MS = 30_000;

/** A tool whose params are read live, and how to reach its server. */
export interface LiveSchemaTool {
  toolId: string;
  providerId: string;
  url: string;
  mcpTool: string;
  allowPrivateNetwork: boolean;
  timeoutMs: number;
}

export interface LiveSchema {
  params: ToolParam[];
  oneOfRequired: string[][] | undefined;
}

/** The tools among `toolIds` whose provider's schema is live, by tool id (one query). */
export async function findLiveSchemaTools(db: Db, toolIds: string[]): Promise<Map<string, LiveSchemaTool>> {
  if (toolIds.length === 0) return new Map();
  const rows = await db
    .select({
      toolId: tools.id,
      mcpTool: sql<string>`${tools.execution}->>'mcp_tool'`,
      timeoutMs: tools.timeoutMs,
      providerId: providers.id,
      url: providers.baseUrl,
      allowPrivateNetwork: providers.allowPrivateNetwork,
    })
    .from(tools)
    .innerJoin(providers, eq(providers.id, tools.providerId))
    .where(and(inArray(tools.id, toolIds), eq(providers.transport, "mcp"), sql`${tools.execution}->>'schema' = 'live'`));
  return new Map(rows.map((r) => [r.toolId, { ...r, url: r.url ?? "" }]));
}

/** The live-schema description of a Call's or Probe's tool; null for every other tool. */
export function liveSchemaToolOf(target: ToolTarget): LiveSchemaTool | null {
  if (target.transport !== "mcp" || target.execution.schema !== "live") return null;
  return {
    toolId: target.toolId,
    providerId: target.providerId,
    url: target.baseUrl ?? "",
    mcpTool: String(target.execution.mcp_tool),
    allowPrivateNetwork: target.allowPrivateNetwork,
    timeoutMs: target.timeoutMs,
  };
}

const listings = new Map<string, { tools: Promise<ReadonlyMap<string, McpToolDescription>>; expiresAt: number }>();

/**
 * The tool's params as its server lists them now; null when the server no longer lists it.
 * Throws `DomainError("upstream_timeout")` when `tools/list` does not answer in time and
 * `DomainError("upstream_unavailable")` when it cannot be obtained (refused, unreachable, protocol error).
 */
export async function fetchLiveSchema(tool: LiveSchemaTool): Promise<LiveSchema | null> {
  const listed = (await serverTools(tool)).get(tool.mcpTool);
  return listed ? mcpToolParams(listed) : null;
}

/** One listing per provider and server URL, shared by concurrent Inspects; failures are not cached. */
function serverTools(tool: LiveSchemaTool): Promise<ReadonlyMap<string, McpToolDescription>> {
  const key = `${tool.providerId} ${tool.url}`;
  const hit = listings.get(key);
  if (hit && hit.expiresAt > Date.now()) return hit.tools;
  const entry = { tools: listServerTools(tool), expiresAt: Number.POSITIVE_INFINITY };
  listings.set(key, entry);
  entry.tools.then(
    () => void (entry.expiresAt = Date.now() + LIVE_SCHEMA_CACHE_TTL_MS),
    () => {
      if (listings.get(key) === entry) listings.delete(key);
    },
  );
  return entry.tools;
}

async function listServerTools(tool: LiveSchemaTool): Promise<ReadonlyMap<string, McpToolDescription>> {
  const timeoutMs = Math.min(tool.timeoutMs, TIMEOUT_CAP_MS);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    // The same SSRF rule as a Call to this provider.
    const allowPrivateNetwork = tool.allowPrivateNetwork || privateUpstreamAllowList().has(tool.providerId);
    const listed = await listMcpTools(tool.url, { allowPrivateNetwork, signal });
    return new Map(listed.map((t) => [t.name, t]));
  } catch (err) {
    if (signal.aborted) throw new DomainError("upstream_timeout", `The MCP server of provider ${tool.providerId} did not list its tools within ${timeoutMs} ms`);
    throw new DomainError("upstream_unavailable", `The MCP server of provider ${tool.providerId} could not list its tools: ${(err as Error).message.slice(0, 300)}`);
  }
}
