// GET /api/v1/openapi.yaml — this description as YAML (no authentication)
import { createRoute, z } from "@hono/zod-openapi";
import YAML from "yaml";
import type { ApiApp } from "../../http/context";

const route = createRoute({
  method: "get",
  path: "/openapi.yaml",
  operationId: "getOpenApiYaml",
  tags: ["Metadata"],
  summary: "This OpenAPI 3.1 description (YAML)",
  responses: { 200: { description: "This OpenAPI 3.1 description (YAML)", content: { "application/yaml": { schema: z.record(z.string(), z.unknown()) } } } },
});

/** `document` is built on first use, once every operation (this one included) is registered. */
export function registerOpenApiYaml(app: ApiApp, document: () => object) {
  app.openapi(route, (c) => c.body(YAML.stringify(document()), 200, { "Content-Type": "application/yaml; charset=utf-8" }));
}
