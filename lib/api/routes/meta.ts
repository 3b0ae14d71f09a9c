// GET /api/v1/meta — the published contract version (no authentication)
import { createRoute, z } from "@hono/zod-openapi";
import { API_VERSION } from "../../version";
import type { ApiApp } from "../../http/context";

export const MetaResponseSchema = z
  .object({
    api_version: z.string().openapi({ example: API_VERSION }),
    service: z.string(),
    openapi_url: z.string(),
  })
  .openapi("MetaResponse");

const route = createRoute({
  method: "get",
  path: "/meta",
  operationId: "getMeta",
  tags: ["Metadata"],
  summary: "Published API contract version",
  responses: { 200: { description: "Contract version", content: { "application/json": { schema: MetaResponseSchema } } } },
});

const body = { api_version: API_VERSION, service: "tollgate", openapi_url: "/api/v1/openapi.json" };

export function registerMeta(app: ApiApp) {
  app.openapi(route, (c) => c.json(body, 200));
}
