// POST /api/v1/auth/webhooks/{endpoint_id}/test — send a webhook.test event to one endpoint (owner; extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { sendTestEvent } from "../../webhooks/test-event";
import { ALERTS_EXTENSION, notFoundResponse } from "./alerts-schemas";
import { EndpointIdParam, WebhookTestSchema } from "./webhooks-schemas";

const route = createRoute({
  method: "post",
  path: "/auth/webhooks/{endpoint_id}/test",
  operationId: "testWebhook",
  tags: ["Alerts and webhooks"],
  summary: "Queue a webhook.test delivery to this endpoint, whatever its event filter (JWT, owner)",
  description: ALERTS_EXTENSION,
  request: { params: EndpointIdParam },
  responses: {
    200: { description: "Queued; it appears in the endpoint's delivery log", content: { "application/json": { schema: apiResponse(WebhookTestSchema, "WebhookTestEventResponse") } } },
    ...notFoundResponse,
    ...accountErrorResponses,
  },
});

export function registerWebhooksTest(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { endpoint_id: endpointId } = c.req.valid("param");
    return apiOk(c, await sendTestEvent(c.env.db, { accountId: c.get("auth").accountId, endpointId }));
  });
}
