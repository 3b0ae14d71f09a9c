// GET /api/v1/auth/webhooks/{endpoint_id}/deliveries — an endpoint's deliveries with their attempts (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { listWebhookDeliveries } from "../../webhooks/deliveries";
import { ALERTS_EXTENSION, notFoundResponse } from "./alerts-schemas";
import { EndpointIdParam, WebhookDeliverySchema } from "./webhooks-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/webhooks/{endpoint_id}/deliveries",
  operationId: "listWebhookDeliveries",
  tags: ["Alerts and webhooks"],
  summary: "The delivery log of one endpoint: deliveries newest first, each with its attempts and status codes (JWT)",
  description: ALERTS_EXTENSION,
  request: {
    params: EndpointIdParam,
    query: z.object({ limit: z.coerce.number().int().min(1).max(200).optional().openapi({ description: "At most this many (default 50)" }) }),
  },
  responses: {
    200: { description: "Deliveries", content: { "application/json": { schema: apiResponse(z.object({ items: z.array(WebhookDeliverySchema) }), "WebhookDeliveryListResponse") } } },
    ...notFoundResponse,
    ...accountErrorResponses,
  },
});

export function registerWebhookDeliveriesList(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { endpoint_id: endpointId } = c.req.valid("param");
    const { limit } = c.req.valid("query");
    return apiOk(c, { items: await listWebhookDeliveries(c.env.db, { accountId: c.get("auth").accountId, endpointId, limit }) });
  });
}
