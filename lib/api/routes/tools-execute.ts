// POST /api/v1/tools/execute — Call
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import type { AuthContext } from "../../auth/auth-context";
import { setResponseHeader } from "../../http/headers";
import { zodIssuesToDetail } from "../../http/errors";
import { ValidationIssueSchema } from "../../errors";
import { PublicApiErrorSchema, authErrorResponses } from "../../http/schemas";
import type { CallPhase } from "../../execution/call-phases";
import { callTool, type Caller } from "../../execution/call-tool";
import { DEFAULT_MAX_RESPONSE_SIZE } from "../../execution/shape-result";
import { msSince } from "../../timing";
import { observeCallPhases } from "../../observability/metrics";

export const ExecuteBodySchema = z
  .object({
    tool_id: z.string().optional().openapi({ description: "Required here unless given as ?tool_id=" }),
    search_id: z.string().max(200).optional(),
    session_id: z.string().max(200).optional().openapi({ description: "Defaults to the execution id" }),
    model: z.string().max(128).optional(),
    parameters: z.record(z.string(), z.unknown()),
    max_response_size: z
      .number()
      .int()
      .refine((v) => v === -1 || v >= 1, "max_response_size must be -1 (no limit) or a positive number of bytes")
      .default(DEFAULT_MAX_RESPONSE_SIZE),
    respond_with: z.string().max(2000).optional().openapi({ description: "`full` (default), `fields:<JSONPath,...>` rooted at result.data, or `summary`" }),
  });

export const CallResponseSchema = z
  .object({
    execution_id: z.string().optional(),
    success: z.boolean(),
    result: z.record(z.string(), z.unknown()).optional(),
    error_message: z.string().nullable(),
    details: z.array(ValidationIssueSchema).optional(),
    execution_time: z.number().optional(),
    elapsed_time_ms: z.number().optional(),
    billing: z.object({ summary: z.string(), list_amount_credits: z.number() }).optional(),
    cost: z.number().optional(),
    remaining_credits: z.number().nullable(),
    execution_outcome: z
      .object({ outcome: z.string(), reason_code: z.string(), charge_outcome: z.string(), http_status: z.number().optional(), cache_hit: z.boolean() })
      .optional(),
  })
  .openapi("CallResponse");

const json = (description: string) => ({ description, content: { "application/json": { schema: CallResponseSchema } } });

const route = createRoute({
  method: "post",
  path: "/tools/execute",
  operationId: "executeTool",
  tags: ["Call"],
  summary: "Call a tool through its provider (metered per billing_rule)",
  description: "Bearer: an API key, or an agent's delegation token from the token exchange grant (its tool and provider lists and `max_credits` are enforced; its `run_id` and `model` are recorded). A user's ordinary access token is refused.",
  request: {
    query: z.object({ tool_id: z.string().optional() }),
    headers: z.object({
      "x-service-cache-mode": z.enum(["default", "bypass"]).optional(),
      "idempotency-key": z.string().min(1).max(255).optional().openapi({ description: "Extension: a retried Call with the same key and body returns the first outcome and is charged once" }),
    }),
    body: { content: { "application/json": { schema: ExecuteBodySchema } }, required: true },
  },
  responses: {
    200: {
      ...json("Call response (also for upstream failures: success=false)"),
      headers: z.object({
        "Server-Timing": z.string().openapi({
          description: "Extension: milliseconds per phase of this Call (`request`: authentication and body parsing, `validate`, `reserve` when credits were held, `provider`, `shape`, `settle`), e.g. `request;dur=0.2, validate;dur=0.06, reserve;dur=0.9, provider;dur=41.2, shape;dur=0.02, settle;dur=1.1`",
        }),
      }),
    },
    400: json("tool_id missing"),
    402: json("Insufficient credits"),
    403: {
      description: "A delegation token that does not allow this tool or provider (Call response), or lacks the tools:execute scope (PublicApiError)",
      content: { "application/json": { schema: CallResponseSchema.or(PublicApiErrorSchema) } },
    },
    404: json("Unknown or retired tool_id"),
    409: json("A request with this Idempotency-Key is still running"),
    422: json("Invalid parameters, projection or body"),
    429: { description: "Rate limited", content: { "application/json": { schema: PublicApiErrorSchema } } },
    ...authErrorResponses,
  },
});

/**
 * `Server-Timing` (W3C) of a Call's phases, e.g. `request;dur=0.3, validate;dur=0.06, reserve;dur=0.9,
 * provider;dur=1.2, shape;dur=0.02, settle;dur=1.1`; `request` is authentication and body parsing.
 */
function serverTiming(timings: Partial<Record<CallPhase | "request", number>>): string {
  let out = "";
  let phase: keyof typeof timings;
  for (phase in timings) out += `${out === "" ? "" : ", "}${phase};dur=${timings[phase]}`;
  return out;
}

/** The Caller of an authenticated Call (its row of the access table admits an API key or a delegation token). */
function callerOf(auth: AuthContext): Caller {
  if (auth.kind === "api_key") return { accountId: auth.accountId, apiKeyId: auth.apiKeyId, userId: null };
  if (auth.kind === "jwt") throw new Error("unreachable: Call admits no user access token");
  const { claims } = auth;
  return {
    accountId: auth.accountId,
    apiKeyId: null,
    userId: auth.userId,
    delegation: { jti: claims.jti, clientId: claims.client_id, toolIds: claims.tool_ids, providerIds: claims.provider_ids, runId: claims.run_id, model: claims.model },
  };
}

export function registerToolsExecute(app: ApiApp) {
  app.openapi(
    route,
    async (c) => {
      const body = c.req.valid("json");
      const query = c.req.valid("query");
      const headers = c.req.valid("header");
      const caller = callerOf(c.get("auth"));
      const received = msSince(c.env.startedAt);
      const { status, body: response, timings } = await callTool(c.env.db, caller, {
        toolId: query.tool_id ?? body.tool_id,
        parameters: body.parameters,
        searchId: body.search_id,
        sessionId: body.session_id,
        // A delegation token's model is what the user delegated to: it wins over the body's.
        model: caller.delegation?.model ?? body.model,
        maxResponseSize: body.max_response_size,
        respondWith: body.respond_with,
        cacheMode: headers["x-service-cache-mode"] ?? "default",
        idempotencyKey: headers["idempotency-key"],
      }, c.env.deps.clock);
      if (timings) {
        const phases = { request: received, ...timings };
        // Onto Node's response when there is one: a Fetch Headers object for one header costs more than the rest of the response.
        setResponseHeader(c, "Server-Timing", serverTiming(phases));
        (c.env.afterResponse ??= []).push(() => observeCallPhases(phases));
      }
      return c.json(response as z.infer<typeof CallResponseSchema>, status);
    },
    (result, c) => {
      if (!result.success) {
        const details = zodIssuesToDetail(result.error, result.target);
        return c.json(
          { success: false, error_message: `Invalid request: ${details.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; ")}`, details, remaining_credits: null, execution_time: 0, elapsed_time_ms: 0 },
          422,
        );
      }
    },
  );
}
