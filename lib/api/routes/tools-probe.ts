// POST /api/v1/tools/probe — Probe: free validation and quote, never executes
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { zodIssuesToDetail } from "../../http/errors";
import { publicApiError } from "../../http/responses";
import { ValidationIssueSchema } from "../../errors";
import { PublicApiErrorSchema, authErrorResponses } from "../../http/schemas";
import { probeChecks, probeTool, spenderOf, subjectOf } from "../../execution/probe-tool";

export const ProbeBodySchema = z
  .object({
    parameters: z.record(z.string(), z.unknown()).default({}),
    checks: z.array(z.enum(probeChecks)).max(4).optional().openapi({ description: "Default: schema and quote" }),
    live_budget: z.string().optional().openapi({ description: "Only `none` (validation only) is offered" }),
  });

const Verdict = z.object({ verdict: z.literal("unknown"), reason: z.string() });
export const ProbeResponseSchema = z
  .object({
    tool_id: z.string(),
    checks: z.array(z.enum(probeChecks)),
    schema: z.object({ valid: z.boolean(), details: z.array(ValidationIssueSchema) }).optional(),
    quote: z
      .object({
        estimate_credits: z.number(),
        currency: z.literal("credits"),
        exact: z.boolean(),
        basis: z.string(),
        budget: z
          .object({
            budget_id: z.string(),
            scope: z.enum(["account", "api_key", "oauth_client"]),
            scope_id: z.string().nullable(),
            scope_name: z.string().nullable().openapi({ description: "The API key's or OAuth client's name; null for the account's own budget" }),
            period: z.enum(["day", "week", "month", "none"]),
            time_zone: z.string(),
            limit_credits: z.number(),
            remaining_credits: z.number(),
            resets_at: z.string().nullable(),
            would_refuse: z.boolean().openapi({ description: "The estimate is more than the budget has left: a Call now would be refused (402 billing.budget_exceeded)" }),
          })
          .nullable()
          .optional()
          .openapi({ description: "Extension: the tightest budget (account, this API key, this OAuth client) that would count the Call, and its headroom; null when none applies" }),
      })
      .optional(),
    coverage: Verdict.optional(),
    sample: Verdict.optional(),
    readiness: z
      .object({
        callable: z.boolean().openapi({ description: "false: a Call now would be refused before anything is sent, with reason_code" }),
        reason_code: z.enum(["oauth_signin_required", "region_restricted"]).nullable(),
        message: z.string().nullable(),
        signin_url: z.string().optional().openapi({ description: "oauth_signin_required: the dashboard page where the user connects the provider" }),
        provider_id: z.string().optional(),
        scopes: z.array(z.string()).optional(),
        regions: z.array(z.string()).optional().openapi({ description: "region_restricted: where the tool may be called" }),
      })
      .optional()
      .openapi({ description: "Extension: for tools that act as the caller at the provider or are limited to regions, whether a Call by this caller would be refused (the same reason codes a Call answers)" }),
    executed: z.literal(false),
    charged: z.literal(false),
  })
  .openapi("ProbeResponse");

const error = (description: string) => ({ description, content: { "application/json": { schema: PublicApiErrorSchema } } });

const route = createRoute({
  method: "post",
  path: "/tools/probe",
  operationId: "probeTool",
  tags: ["Probe"],
  summary: "Validate parameters and quote a Call without executing it (free)",
  request: {
    query: z.object({ tool_id: z.string().min(1) }),
    body: { content: { "application/json": { schema: ProbeBodySchema } }, required: false },
  },
  responses: {
    200: { description: "Probe result", content: { "application/json": { schema: ProbeResponseSchema } } },
    400: error("Invalid input"),
    404: error("Capability not found"),
    429: error("Rate limited"),
    ...authErrorResponses,
  },
});

export function registerToolsProbe(app: ApiApp) {
  app.openapi(
    route,
    async (c) => {
      const { tool_id } = c.req.valid("query");
      const body = c.req.valid("json") ?? { parameters: {} };
      const result = await probeTool(c.env.db, { toolId: tool_id, parameters: body.parameters ?? {}, checks: body.checks, liveBudget: body.live_budget, spender: spenderOf(c.get("auth")), subject: subjectOf(c.get("auth")), clock: c.env.deps.clock });
      if (result.kind === "invalid") return publicApiError(c, 400, result.message);
      if (result.kind === "not_found") return publicApiError(c, 404, result.message);
      return c.json(result.body, 200);
    },
    (result, c) => {
      if (!result.success) {
        const details = zodIssuesToDetail(result.error, result.target);
        return publicApiError(c, 400, `Invalid probe request: ${details.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; ")}`);
      }
    },
  );
}
