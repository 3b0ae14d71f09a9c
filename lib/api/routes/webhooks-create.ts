// POST /api/v1/auth/webhooks — register a webhook endpoint; its signing secret is shown only in this response (owner; extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { createWebhookEndpoint } from "../../webhooks/endpoints";
import { ALERTS_EXTENSION } from "./alerts-schemas";
import { CreatedWebhookSchema, CreateWebhookBodySchema } from "./webhooks-schemas";
import { requestActor } from "../request-actor";

const route = createRoute({
  method: "post",
  path: "/auth/webhooks",
  operationId: "createWebhook",
  tags: ["Alerts and webhooks"],
  summary: "Register a webhook endpoint; the signing secret is shown only in this response (JWT, owner)",
  description: `${ALERTS_EXTENSION} Deliveries are signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). A URL whose host is a private or loopback address is refused (400).`,
  request: { body: { content: { "application/json": { schema: CreateWebhookBodySchema } }, required: true } },
  responses: {
    200: { description: "The new endpoint and its secret", content: { "application/json": { schema: apiResponse(CreatedWebhookSchema, "CreatedWebhookResponse") } } },
    ...accountErrorResponses,
  },
});

export function registerWebhooksCreate(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { url, events } = c.req.valid("json");
    return apiOk(c, await createWebhookEndpoint(c.env.db, { accountId: c.get("auth").accountId, url, events, actor: await requestActor(c) }));
  });
}
