// POST /api/v1/auth/notifications/read — mark notifications read (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { markNotificationsRead } from "../../alerts/notifications";
import { ALERTS_EXTENSION, MarkedReadSchema, MarkReadBodySchema } from "./alerts-schemas";

const route = createRoute({
  method: "post",
  path: "/auth/notifications/read",
  operationId: "markNotificationsRead",
  tags: ["Alerts and webhooks"],
  summary: "Mark the given notifications read, or every unread one (JWT)",
  description: `${ALERTS_EXTENSION} Ids that are not the account's are ignored.`,
  request: { body: { content: { "application/json": { schema: MarkReadBodySchema } }, required: true } },
  responses: {
    200: { description: "How many were marked", content: { "application/json": { schema: apiResponse(MarkedReadSchema, "MarkedNotificationsReadResponse") } } },
    ...accountErrorResponses,
  },
});

export function registerNotificationsRead(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { notification_ids: ids } = c.req.valid("json");
    return apiOk(c, await markNotificationsRead(c.env.db, { accountId: c.get("auth").accountId, ids }));
  });
}
