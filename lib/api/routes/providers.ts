// GET /api/v1/providers — list providers (filter, page, sort)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { HTTPValidationErrorSchema, apiResponse, authErrorResponses } from "../../http/schemas";
import { negotiateLang } from "../../search/lang";
import { listProviders, providerSortFields } from "../../search/list-providers";

export const ProvidersQuerySchema = z.object({
  categories: z
    .string()
    .optional()
    .transform((v) => v?.split(",").map((c) => c.trim()).filter(Boolean))
    .openapi({ description: "Comma-separated categories; a provider matches when it has any of them", example: "finance,time" }),
  query: z.string().max(200).optional().openapi({ description: "Case-insensitive text in the provider's id, name or description" }),
  skip: z.coerce.number().int().min(0).default(0).openapi({ type: "integer" }),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  sort_by: z
    .enum(providerSortFields, { error: `sort_by must be one of ${providerSortFields.join(", ")}` })
    .default("name"),
  sort_order: z.enum(["asc", "desc"], { error: "sort_order must be asc or desc" }).default("asc"),
});

export const ProviderItemSchema = z
  .object({
    id: z.string(),
    name: z.string().openapi({ description: "In the Accept-Language language when the catalog has it" }),
    description: z.string(),
    categories: z.array(z.string()),
    transport: z.string().openapi({ description: "`builtin`, `http`, `mcp`, or `none` (catalog-only: searchable and inspectable, not callable)" }),
    source: z.string().nullable(),
    tool_count: z.number().int().openapi({ description: "Active tools" }),
    created_at: z.string(),
  })
  .openapi("ProviderItem");

const ProviderListSchema = z.object({
  items: z.array(ProviderItemSchema),
  total: z.number().int().openapi({ description: "Providers matching the filters" }),
  skip: z.number().int(),
  limit: z.number().int(),
  page: z.number().int().openapi({ description: "1-based page of size `limit` that `skip` starts (skip / limit + 1)" }),
  page_size: z.number().int(),
  summary: z.null(),
});

const route = createRoute({
  method: "get",
  path: "/providers",
  operationId: "listProviders",
  tags: ["Providers"],
  summary: "List providers with filtering, paging and sorting",
  request: { query: ProvidersQuerySchema },
  responses: {
    200: { description: "Providers", content: { "application/json": { schema: apiResponse(ProviderListSchema, "ProviderListResponse") } } },
    422: { description: "Invalid query (e.g. an unknown sort_by)", content: { "application/json": { schema: HTTPValidationErrorSchema } } },
    ...authErrorResponses,
  },
});

export function registerProviders(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const { items, total } = await listProviders(c.env.db, {
      categories: q.categories,
      query: q.query,
      skip: q.skip,
      limit: q.limit,
      sortBy: q.sort_by,
      sortOrder: q.sort_order,
      lang: negotiateLang(c.req.header("accept-language")),
    });
    return apiOk(c, { items, total, skip: q.skip, limit: q.limit, page: Math.floor(q.skip / q.limit) + 1, page_size: q.limit, summary: null });
  });
}
