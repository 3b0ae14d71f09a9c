// POST /api/v1/search — Discover
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { HTTPValidationErrorSchema, PublicApiErrorSchema, authErrorResponses } from "../../http/schemas";
import { env } from "../../env";
import { negotiateLang } from "../../search/lang";
import { SearchRequestSchema, SearchResponseSchema } from "../../search/schemas";
import { searchTools } from "../../search/search-tools";

const searchResponse = (description: string) => ({ description, content: { "application/json": { schema: SearchResponseSchema } } });

const route = createRoute({
  method: "post",
  path: "/search",
  operationId: "searchTools",
  tags: ["Discover"],
  summary: "Find capabilities for a natural-language query",
  description:
    "Ranks the active catalog (see docs/search.md). Every search is stored under its `search_id` and recorded as a `search` usage event. " +
    "Free unless the deployment sets SEARCH_PRICE_CREDITS, in which case an account without enough credits gets a 402 search response.",
  request: {
    body: { content: { "application/json": { schema: SearchRequestSchema } }, required: true },
  },
  responses: {
    200: searchResponse("Ranked capabilities"),
    402: searchResponse("Insufficient credits for a priced search: empty results, error_message and remaining_credits"),
    404: {
      description: "Extension: `source` names no catalog source with an active tool; the message names it. Not recorded and not charged",
      content: { "application/json": { schema: PublicApiErrorSchema } },
    },
    422: { description: "Invalid request body", content: { "application/json": { schema: HTTPValidationErrorSchema } } },
    429: { description: "Rate limited (120 searches per minute per account)", content: { "application/json": { schema: PublicApiErrorSchema } } },
    ...authErrorResponses,
  },
});

export function registerSearch(app: ApiApp) {
  app.openapi(route, async (c) => {
    const request = c.req.valid("json");
    const auth = c.get("auth");
    const { outcome, response } = await searchTools(c.env.db, {
      accountId: auth.accountId,
      apiKeyId: auth.kind === "api_key" ? auth.apiKeyId : null,
      request,
      lang: request.lang ?? negotiateLang(c.req.header("accept-language")),
      priceCredits: env().SEARCH_PRICE_CREDITS,
      clientId: auth.kind === "delegation" ? (auth.claims.client_id ?? null) : null,
      clock: c.env.deps.clock,
    });
    return c.json(response, outcome === "ok" ? 200 : 402);
  });
}
