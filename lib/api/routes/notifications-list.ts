// GET /api/v1/auth/notifications — the account's notifications, newest first, and the unread count (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { listNotifications } from "../../alerts/notifications";
import { ALERTS_EXTENSION, NotificationListQuerySchema, NotificationListSchema } from "./alerts-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/notifications",
  operationId: "listNotifications",
  tags: ["Alerts and webhooks"],
  summary: "The account's notifications (thresholds crossed), newest first, with the unread count (JWT)",
  description: ALERTS_EXTENSION,
  request: { query: NotificationListQuerySchema },
  responses: {
    200: { description: "Notifications", content: { "application/json": { schema: apiResponse(NotificationListSchema, "NotificationListResponse") } } },
    ...accountErrorResponses,
  },
});

export function registerNotificationsList(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { limit, before } = c.req.valid("query");
    return apiOk(c, await listNotifications(c.env.db, { accountId: c.get("auth").accountId, limit, before: before ? new Date(before) : undefined }));
  });
}
