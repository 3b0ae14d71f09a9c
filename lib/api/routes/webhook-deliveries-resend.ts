// POST /api/v1/auth/webhook-deliveries/{delivery_id}/resend — send a delivery again now (owner; extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse, PublicApiErrorSchema } from "../../http/schemas";
import { resendWebhookDelivery } from "../../webhooks/deliveries";
import { ALERTS_EXTENSION, notFoundResponse } from "./alerts-schemas";
import { DeliveryIdParam, WebhookDeliverySchema } from "./webhooks-schemas";

const route = createRoute({
  method: "post",
  path: "/auth/webhook-deliveries/{delivery_id}/resend",
  operationId: "resendWebhookDelivery",
  tags: ["Alerts and webhooks"],
  summary: "Send a delivery again now, with the same webhook-id and body (JWT, owner)",
  description: `${ALERTS_EXTENSION} The delivery becomes pending and due at once; past its 24 h retry window it gets this one attempt.`,
  request: { params: DeliveryIdParam },
  responses: {
    200: { description: "Queued again", content: { "application/json": { schema: apiResponse(WebhookDeliverySchema, "WebhookDeliveryResentResponse") } } },
    409: { description: "The delivery's endpoint was removed", content: { "application/json": { schema: PublicApiErrorSchema } } },
    ...notFoundResponse,
    ...accountErrorResponses,
  },
});

export function registerWebhookDeliveriesResend(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { delivery_id: id } = c.req.valid("param");
    return apiOk(c, await resendWebhookDelivery(c.env.db, { id, accountId: c.get("auth").accountId }));
  });
}
