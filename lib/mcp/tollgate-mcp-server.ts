// Tollgate as an MCP server: four tools (discover, inspect, probe, call) over the same domain verbs
// as the REST operations, with the same credentials, rate-limit buckets, delegation limits and
// reason codes. One server per request (the transport is stateless), so any instance serves any
// request of a session.
import { signinNotice } from "./signin-notice";
import type { Context } from "hono";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ApiEnv } from "../http/context";
import type { AuthContext } from "../auth/auth-context";
import { consumeRateLimit } from "../http/rate-limit";
import type { RateLimitedAction } from "../http/rate-limits";
import { DomainError } from "../errors";
import { env } from "../env";
import { searchTools } from "../search/search-tools";
import { inspectTools } from "../search/inspect-tools";
import { probeTool, spenderOf } from "../execution/probe-tool";
import { callTool, type Caller } from "../execution/call-tool";
import { DEFAULT_MAX_RESPONSE_SIZE } from "../execution/shape-result";
import { admit } from "../http/auth";
import { OPERATION_ACCESS } from "../api/access";
import { searchLangs } from "../search/schemas";
import { API_VERSION } from "../version";

/**
 * What a tool answers: the REST body as structured content, and the same JSON as text for clients
 * that read only text. An error is text only (its JSON: reason_code, error_message, ...): clients
 * validate structured content against the tool's outputSchema, which describes success.
 */
function answer(data: Record<string, unknown>, isError = false): CallToolResult {
  const content: CallToolResult["content"] = [...(isError ? signinNotice(data) : []), { type: "text", text: JSON.stringify(data) }];
  return isError ? { content, isError: true } : { content, structuredContent: data };
}

/** A refusal in REST's words: the reason code and the message the REST operation would give. */
function refusal(reasonCode: string, message: string, extra: Record<string, unknown> = {}): CallToolResult {
  return answer({ success: false, reason_code: reasonCode, error_message: message, ...extra }, true);
}

/** Runs a tool's body; contract errors (rate limit, forbidden, ...) become results with isError, never transport failures. */
async function guarded(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DomainError) return refusal(err.details?.required_scope ? "insufficient_scope" : err.code, err.message, err.details ?? {});
    throw err;
  }
}

/** The Caller of an MCP request: its credential's account, key or delegation, on the `mcp` channel. */
export function mcpCaller(auth: AuthContext): Caller {
  if (auth.kind === "api_key") return { accountId: auth.accountId, apiKeyId: auth.apiKeyId, userId: null, channel: "mcp" };
  if (auth.kind === "jwt") return { accountId: auth.accountId, apiKeyId: null, userId: auth.userId, channel: "mcp" };
  const { claims } = auth;
  return {
    accountId: auth.accountId,
    apiKeyId: null,
    userId: auth.userId,
    channel: "mcp",
    delegation: { jti: claims.jti, clientId: claims.client_id, toolIds: claims.tool_ids, providerIds: claims.provider_ids, runId: claims.run_id, model: claims.model },
  };
}

const card = z.looseObject({ tool_id: z.string(), capability: z.string(), cost_class: z.string(), reliability: z.number().nullable() });
const capability = z.looseObject({ tool_id: z.string() });

export function buildMcpServer(c: Context<ApiEnv>, auth: AuthContext): McpServer {
  const db = c.env.db;
  const apiKeyId = auth.kind === "api_key" ? auth.apiKeyId : null;
  const limit = (action: RateLimitedAction) => consumeRateLimit(c, action, `acct:${auth.accountId}`);
  const server = new McpServer(
    { name: "tollgate", version: API_VERSION },
    {
      instructions:
        "Tollgate is a gateway to third-party tools, metered in credits. Use `discover` with a capability-level query, " +
        "`inspect` the chosen tool_id for its parameter schema and price, optionally `probe` your parameters (free validation and quote), " +
        "then `call` it. Build parameters only from the inspected schema.",
    },
  );

  server.registerTool(
    "discover",
    {
      title: "Discover tools",
      description:
        "Find tools for a natural-language capability query (English or Chinese). Returns compact routing cards: tool_id, one-line capability, " +
        "cost_class (free, low ≤ 1 credit, medium ≤ 10, high, variable) and reliability (historical success rate). Free. Keep the search_id for inspect and call.",
      inputSchema: {
        query: z.string().min(1).max(4000).describe("What the tool should do, e.g. 'convert celsius to fahrenheit'"),
        limit: z.number().int().min(1).max(50).optional().describe("How many cards (default 10)"),
        lang: z.enum(searchLangs).optional().describe("Language of the cards: en or zh (default en)"),
      },
      outputSchema: z.looseObject({ search_id: z.string(), total: z.number(), results: z.array(card), remaining_credits: z.number().nullable(), error_message: z.string().nullable() }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, limit: count, lang }) =>
      guarded(async () => {
        admit(auth, OPERATION_ACCESS.searchTools);
        await limit("search");
        const { outcome, response } = await searchTools(db, {
          accountId: auth.accountId,
          apiKeyId,
          request: { query, limit: count ?? 10, view: "routing", lang },
          lang: lang ?? "en",
          priceCredits: env().SEARCH_PRICE_CREDITS,
          channel: "mcp",
          clientId: auth.kind === "delegation" ? (auth.claims.client_id ?? null) : null,
          clock: c.env.deps.clock,
        });
        const data = { search_id: response.search_id, total: response.total, results: response.results, remaining_credits: response.remaining_credits, error_message: response.error_message };
        if (outcome === "ok") return answer(data);
        return refusal(outcome === "budget_exceeded" ? "billing.budget_exceeded" : "billing.insufficient_credits", response.error_message ?? "Insufficient credits", data);
      }),
  );

  server.registerTool(
    "inspect",
    {
      title: "Inspect tools",
      description: "The full parameter schemas (params, one_of_required), examples and prices of up to 20 tools by tool_id. Free.",
      inputSchema: {
        tool_ids: z.array(z.string().min(1).max(200)).min(1).max(20).describe("tool_id values from discover"),
        search_id: z.string().max(200).optional().describe("The discover call's search_id"),
        lang: z.enum(searchLangs).optional(),
      },
      outputSchema: z.looseObject({ total: z.number(), results: z.array(capability), unknown_tool_ids: z.array(z.string()).optional() }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ tool_ids, search_id, lang }) =>
      guarded(async () => {
        admit(auth, OPERATION_ACCESS.inspectTools);
        await limit("inspect");
        const result = await inspectTools(db, { accountId: auth.accountId, apiKeyId, request: { tool_ids, search_id, view: "full", lang }, lang: lang ?? "en", channel: "mcp" });
        if (result.outcome !== "ok") return refusal(result.outcome === "upstream_timeout" ? "transport.timeout" : "transport.no_response", JSON.stringify(result.error));
        return answer(result.response as unknown as Record<string, unknown>);
      }),
  );

  server.registerTool(
    "probe",
    {
      title: "Probe a call",
      description: "Validate parameters for a tool and get a quote, without executing it or spending credits.",
      inputSchema: {
        tool_id: z.string().min(1).max(200),
        parameters: z.record(z.string(), z.unknown()).describe("The parameters you would call with"),
      },
      outputSchema: z.looseObject({ tool_id: z.string(), schema: z.looseObject({ valid: z.boolean() }).optional(), quote: z.looseObject({ estimate_credits: z.number() }).optional(), executed: z.literal(false), charged: z.literal(false) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ tool_id, parameters }) =>
      guarded(async () => {
        admit(auth, OPERATION_ACCESS.probeTool);
        await limit("probe");
        const result = await probeTool(db, { toolId: tool_id, parameters, checks: undefined, liveBudget: undefined, spender: spenderOf(auth), clock: c.env.deps.clock });
        if (result.kind === "invalid") return refusal("validation_error", result.message);
        if (result.kind === "not_found") return refusal("tool_unavailable", result.message);
        return answer(result.body as unknown as Record<string, unknown>);
      }),
  );

  server.registerTool(
    "call",
    {
      title: "Call a tool",
      description:
        "Execute a tool through its provider, metered in credits (charged only for a usable result). Returns result, cost, remaining_credits and execution_id. " +
        "Pass idempotency_key to retry safely; max_cost refuses the call before execution when its quote is higher.",
      inputSchema: {
        tool_id: z.string().min(1).max(200),
        parameters: z.record(z.string(), z.unknown()),
        idempotency_key: z.string().min(1).max(255).optional().describe("The same key and parameters return the first outcome, charged once"),
        max_cost: z.number().min(0).optional().describe("Most credits you accept to spend on this call"),
        search_id: z.string().max(200).optional(),
        session_id: z.string().max(200).optional(),
        respond_with: z.string().max(2000).optional().describe("full (default), summary, or fields:<JSONPath,...>"),
        model: z.string().max(128).optional().describe("The model that chose this tool or wrote its parameters, recorded with the call for audit (a delegation token's own model wins)"),
      },
      // Loose objects: the answers carry REST's full bodies (a client validates structured content against these).
      outputSchema: z.looseObject({
        execution_id: z.string().optional(),
        success: z.boolean(),
        result: z.record(z.string(), z.unknown()).optional(),
        error_message: z.string().nullable(),
        cost: z.number().optional(),
        remaining_credits: z.number().nullable(),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (input) =>
      guarded(async () => {
        admit(auth, OPERATION_ACCESS.executeTool);
        await limit("execute");
        if (input.max_cost !== undefined) {
          const probe = await probeTool(db, { toolId: input.tool_id, parameters: input.parameters, checks: ["quote"], liveBudget: undefined });
          const estimate = probe.kind === "ok" ? probe.body.quote?.estimate_credits : undefined;
          if (estimate !== undefined && estimate > input.max_cost) {
            return refusal("billing.max_cost_exceeded", `This call is quoted at ${estimate} credits, above max_cost ${input.max_cost}; nothing was executed or charged`, { quote: probe.kind === "ok" ? probe.body.quote : undefined });
          }
        }
        const caller = mcpCaller(auth);
        const { status, body } = await callTool(db, caller, {
          toolId: input.tool_id,
          parameters: input.parameters,
          searchId: input.search_id,
          sessionId: input.session_id,
          model: caller.delegation?.model ?? input.model,
          maxResponseSize: DEFAULT_MAX_RESPONSE_SIZE,
          respondWith: input.respond_with,
          cacheMode: "default",
          idempotencyKey: input.idempotency_key,
        }, c.env.deps.clock);
        const data = body as Record<string, unknown>;
        const failed = status >= 400 || data.success === false;
        return answer(failed ? { ...data, reason_code: (data.execution_outcome as { reason_code?: string } | undefined)?.reason_code ?? reasonOfStatus(status) } : data, failed);
      }),
  );

  // Meta mode's four tools never change: say so (the SDK declares listChanged when a tool is registered).
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}

/** The reason of a Call refused before execution, by its REST status. */
function reasonOfStatus(status: number): string {
  switch (status) {
    case 402:
      return "billing.insufficient_credits";
    case 403:
      return "forbidden";
    case 404:
      return "tool_unavailable";
    case 409:
      return "conflict";
    case 422:
      return "validation_error";
    default:
      return status >= 400 ? "invalid_request" : "provider.error";
  }
}
