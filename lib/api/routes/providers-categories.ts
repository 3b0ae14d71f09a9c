// GET /api/v1/providers/categories — provider category slugs
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse, authErrorResponses } from "../../http/schemas";
import { listProviderCategories } from "../../search/list-providers";

const CategoryListSchema = z.object({
  items: z.array(z.object({ slug: z.string(), provider_count: z.number().int() }).openapi("ProviderCategory")),
  total: z.number().int(),
});

const route = createRoute({
  method: "get",
  path: "/providers/categories",
  operationId: "listProviderCategories",
  tags: ["Providers"],
  summary: "Every provider category slug, with how many providers declare it",
  responses: {
    200: { description: "Category slugs, sorted", content: { "application/json": { schema: apiResponse(CategoryListSchema, "ProviderCategoryListResponse") } } },
    ...authErrorResponses,
  },
});

export function registerProvidersCategories(app: ApiApp) {
  app.openapi(route, async (c) => {
    const items = await listProviderCategories(c.env.db);
    return apiOk(c, { items, total: items.length });
  });
}
