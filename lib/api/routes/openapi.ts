// GET /api/v1/openapi.json and /api/v1/openapi.yaml — this description (no authentication)
import { createRoute, z } from "@hono/zod-openapi";
import YAML from "yaml";
import type { ApiApp } from "../../http/context";

const describe = (path: string, mediaType: string, description: string) =>
  createRoute({
    method: "get",
    path,
    tags: ["Metadata"],
    summary: description,
    security: [],
    responses: { 200: { description, content: { [mediaType]: { schema: z.record(z.string(), z.unknown()) } } } },
  });

const json = describe("/openapi.json", "application/json", "This OpenAPI 3.1 description (JSON)");
const yaml = describe("/openapi.yaml", "application/yaml", "This OpenAPI 3.1 description (YAML)");

/** `document` is built on first use, once every operation (these two included) is registered. */
export function registerOpenApi(app: ApiApp, document: () => object) {
  app.openapi(json, (c) => c.json(document(), 200));
  app.openapi(yaml, (c) => c.body(YAML.stringify(document()), 200, { "Content-Type": "application/yaml; charset=utf-8" }));
}
