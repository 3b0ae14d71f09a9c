// GET /api/v1/openapi.json — this description as JSON (no authentication)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";

const route = createRoute({
  method: "get",
  path: "/openapi.json",
  operationId: "getOpenApiJson",
  tags: ["Metadata"],
  summary: "This OpenAPI 3.1 description (JSON)",
  responses: { 200: { description: "This OpenAPI 3.1 description (JSON)", content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } } },
});

/** `document` is built on first use, once every operation (this one included) is registered. */
export function registerOpenApiJson(app: ApiApp, document: () => object) {
  app.openapi(route, (c) => c.json(document(), 200));
}
