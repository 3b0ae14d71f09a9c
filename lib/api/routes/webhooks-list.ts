// GET /api/v1/auth/webhooks — the account's webhook endpoints (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { listWebhookEndpoints } from "../../webhooks/endpoints";
import { ALERTS_EXTENSION } from "./alerts-schemas";
import { WebhookEndpointSchema } from "./webhooks-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/webhooks",
  operationId: "listWebhooks",
  tags: ["Alerts and webhooks"],
  summary: "The account's webhook endpoints, newest first, with a summary of their deliveries (JWT)",
  description: ALERTS_EXTENSION,
  responses: {
    200: { description: "Endpoints", content: { "application/json": { schema: apiResponse(z.object({ items: z.array(WebhookEndpointSchema) }), "WebhookEndpointListResponse") } } },
    ...accountErrorResponses,
  },
});

export function registerWebhooksList(app: ApiApp) {
  app.openapi(route, async (c) => apiOk(c, { items: await listWebhookEndpoints(c.env.db, { accountId: c.get("auth").accountId }) }));
}
