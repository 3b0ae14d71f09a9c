// GET /api/v1/auth/alerts — the account's alert settings (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { getAlertSettings } from "../../alerts/settings";
import { ALERTS_EXTENSION, AlertSettingsSchema } from "./alerts-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/alerts",
  operationId: "getAlertSettings",
  tags: ["Alerts and webhooks"],
  summary: "The account's alert thresholds: low balance and budget percentages (JWT)",
  description: ALERTS_EXTENSION,
  responses: {
    200: { description: "The settings (the defaults until changed)", content: { "application/json": { schema: apiResponse(AlertSettingsSchema, "AlertSettingsResponse") } } },
    ...accountErrorResponses,
  },
});

export function registerAlertsGet(app: ApiApp) {
  app.openapi(route, async (c) => apiOk(c, await getAlertSettings(c.env.db, { accountId: c.get("auth").accountId })));
}
