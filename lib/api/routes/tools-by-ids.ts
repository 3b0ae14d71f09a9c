// POST /api/v1/tools/by-ids — Inspect
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { HTTPValidationErrorSchema, PublicApiErrorSchema, authErrorResponses } from "../../http/schemas";
import { inspectTools } from "../../search/inspect-tools";
import { negotiateLang } from "../../search/lang";
import { InspectRequestSchema, InspectResponseSchema } from "../../search/schemas";

export const UpstreamErrorSchema = z
  .object({ error: z.string(), remaining_credits: z.number().nullable() })
  .openapi("UpstreamError");

const route = createRoute({
  method: "post",
  path: "/tools/by-ids",
  operationId: "inspectTools",
  tags: ["Inspect"],
  summary: "Full parameter schemas, examples, quality and cost signals for tool ids",
  description:
    "Results follow the request order. Ids that are unknown or retired are listed in `unknown_tool_ids` (and named in `error_message`); " +
    "the request still succeeds for the others. Tools of an MCP provider with a live schema answer with the params its server lists now " +
    "(cached 30 s); 504 when that `tools/list` times out, 502 when it fails. Recorded as a `search_by_ids` usage event.",
  request: {
    body: { content: { "application/json": { schema: InspectRequestSchema } }, required: true },
  },
  responses: {
    200: { description: "Capabilities", content: { "application/json": { schema: InspectResponseSchema } } },
    422: { description: "Invalid request body", content: { "application/json": { schema: HTTPValidationErrorSchema } } },
    429: { description: "Rate limited (120 per minute per account)", content: { "application/json": { schema: PublicApiErrorSchema } } },
    502: { description: "A live schema fetch failed", content: { "application/json": { schema: UpstreamErrorSchema } } },
    504: { description: "A live schema fetch timed out", content: { "application/json": { schema: UpstreamErrorSchema } } },
    ...authErrorResponses,
  },
});

export function registerToolsByIds(app: ApiApp) {
  app.openapi(route, async (c) => {
    const request = c.req.valid("json");
    const auth = c.get("auth");
    const result = await inspectTools(c.env.db, {
      accountId: auth.accountId,
      apiKeyId: auth.kind === "api_key" ? auth.apiKeyId : null,
      request,
      lang: request.lang ?? negotiateLang(c.req.header("accept-language")),
    });
    if (result.outcome === "ok") return c.json(result.response, 200);
    return c.json({ error: result.error, remaining_credits: result.remaining_credits }, result.outcome === "upstream_timeout" ? 504 : 502);
  });
}
