// DELETE /api/v1/auth/webhooks/{endpoint_id} — remove a webhook endpoint (owner; extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { removeWebhookEndpoint } from "../../webhooks/endpoints";
import { ALERTS_EXTENSION, notFoundResponse } from "./alerts-schemas";
import { EndpointIdParam, RemovedWebhookSchema } from "./webhooks-schemas";
import { requestActor } from "../request-actor";

const route = createRoute({
  method: "delete",
  path: "/auth/webhooks/{endpoint_id}",
  operationId: "removeWebhook",
  tags: ["Alerts and webhooks"],
  summary: "Remove a webhook endpoint: it receives nothing more and its pending deliveries give up (JWT, owner)",
  description: ALERTS_EXTENSION,
  request: { params: EndpointIdParam },
  responses: {
    200: { description: "Removed", content: { "application/json": { schema: apiResponse(RemovedWebhookSchema, "RemovedWebhookResponse") } } },
    ...notFoundResponse,
    ...accountErrorResponses,
  },
});

export function registerWebhooksRemove(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { endpoint_id: id } = c.req.valid("param");
    return apiOk(c, await removeWebhookEndpoint(c.env.db, { id, accountId: c.get("auth").accountId, actor: await requestActor(c) }));
  });
}
