// MCP "direct mode" (`/api/v1/mcp?tools=direct[&source=…]`): the catalog's own tools listed as MCP
// tools, a page at a time, each called like Call. For small catalogs and clients that want the
// tools themselves; meta mode (discover, inspect, probe, call) keeps a large catalog out of the
// agent's context.
import { signinNotice } from "./signin-notice";
import type { Context } from "hono";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ApiEnv } from "../http/context";
import type { AuthContext } from "../auth/auth-context";
import { consumeRateLimit } from "../http/rate-limit";
import { DomainError } from "../errors";
import { catalogSnapshot, readCatalogVersionAndCredits, type CatalogTool } from "../search/catalog-index";
import { callTool, type Caller } from "../execution/call-tool";
import { DEFAULT_MAX_RESPONSE_SIZE } from "../execution/shape-result";
import { admit } from "../http/auth";
import { OPERATION_ACCESS } from "../api/access";
import { describeBillingRule } from "../catalog/manifest";
import { API_VERSION } from "../version";
import { toolInputSchema } from "./tool-input-schema";

/** Tools per tools/list page. */
export const DIRECT_PAGE_SIZE = 100;

/**
 * MCP tool names keep to letters, digits, `_`, `-` and `.` and at most 128 characters; tool ids
 * may also hold `:` and run to 200. Each id gets a name (a clash gets a numbered suffix), and a
 * call finds its tool through the same mapping of the same snapshot.
 */
function namesOf(tools: readonly CatalogTool[]): { byName: Map<string, CatalogTool>; nameOf: Map<string, string> } {
  const byName = new Map<string, CatalogTool>();
  const nameOf = new Map<string, string>();
  for (const t of tools) {
    const base = t.id.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 120);
    let name = base;
    for (let n = 2; byName.has(name); n++) name = `${base}_${n}`;
    byName.set(name, t);
    nameOf.set(t.id, name);
  }
  return { byName, nameOf };
}

function describe(t: CatalogTool): string {
  const price = t.billingRule ? describeBillingRule(t.billingRule, t.params) : "Free";
  return `${t.description} (Price: ${price}. Provider: ${t.providerName}.)`;
}

/** The Call's body as JSON text (and as structured content when it succeeded); an error is text only. */
function text(data: Record<string, unknown>, isError: boolean): CallToolResult {
  const content: CallToolResult["content"] = [...(isError ? signinNotice(data) : []), { type: "text", text: JSON.stringify(data) }];
  return isError ? { content, isError: true } : { content, structuredContent: data };
}

export function buildDirectMcpServer(c: Context<ApiEnv>, auth: AuthContext, caller: Caller, source: string | undefined): Server {
  const db = c.env.db;
  const server = new Server(
    { name: "tollgate", version: API_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: "Each tool is a catalog tool of Tollgate, metered in credits per its stated price; a result is charged only when it is usable.",
    },
  );
  const tools = async () => {
    const { version } = await readCatalogVersionAndCredits(db, auth.accountId);
    const snapshot = await catalogSnapshot(db, version);
    return snapshot.tools.filter((t) => source === undefined || t.source === source);
  };

  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    // Listing the catalog's tools with their schemas is Inspect's: its row of the access table decides.
    try {
      admit(auth, OPERATION_ACCESS.inspectTools);
    } catch (err) {
      if (err instanceof DomainError) throw new McpError(ErrorCode.InvalidRequest, err.message, err.details);
      throw err;
    }
    await consumeRateLimit(c, "inspect", `acct:${auth.accountId}`);
    const all = await tools();
    const { nameOf } = namesOf(all);
    const cursor = request.params?.cursor;
    const start = cursor === undefined ? 0 : /^[0-9a-z]{1,8}$/.test(cursor) ? Number.parseInt(cursor, 36) : -1;
    if (start < 0 || start > all.length) throw new McpError(ErrorCode.InvalidParams, "Invalid cursor: use nextCursor as given");
    const page = all.slice(start, start + DIRECT_PAGE_SIZE);
    const next = start + DIRECT_PAGE_SIZE;
    return {
      tools: page.map(
        (t): Tool => ({
          name: nameOf.get(t.id)!,
          title: t.name,
          description: describe(t),
          inputSchema: toolInputSchema(t.params, t.oneOfRequired) as Tool["inputSchema"],
          annotations: { title: t.name, readOnlyHint: false, destructiveHint: false, openWorldHint: true },
        }),
      ),
      ...(next < all.length ? { nextCursor: next.toString(36) } : {}),
    };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    try {
      admit(auth, OPERATION_ACCESS.executeTool);
      await consumeRateLimit(c, "execute", `acct:${auth.accountId}`);
      const tool = namesOf(await tools()).byName.get(request.params.name);
      if (!tool) return text({ success: false, reason_code: "tool_unavailable", error_message: `Unknown tool ${request.params.name}: list the tools again` }, true);
      const { status, body } = await callTool(db, caller, {
        toolId: tool.id,
        parameters: (request.params.arguments ?? {}) as Record<string, unknown>,
        searchId: undefined,
        sessionId: undefined,
        model: caller.delegation?.model,
        maxResponseSize: DEFAULT_MAX_RESPONSE_SIZE,
        respondWith: undefined,
        cacheMode: "default",
        idempotencyKey: undefined,
      }, c.env.deps.clock);
      const data = body as Record<string, unknown>;
      const failed = status >= 400 || data.success === false;
      const reason = (data.execution_outcome as { reason_code?: string } | undefined)?.reason_code;
      return text(failed ? { ...data, reason_code: reason ?? (status === 402 ? "billing.insufficient_credits" : status === 422 ? "validation_error" : "provider.error") } : data, failed);
    } catch (err) {
      if (err instanceof DomainError) return text({ success: false, reason_code: err.details?.required_scope ? "insufficient_scope" : err.code, error_message: err.message }, true);
      throw err;
    }
  });
  return server;
}
