// PUT /api/v1/auth/alerts — change the account's alert settings (owner; extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { setAlertSettings } from "../../alerts/settings";
import { ALERTS_EXTENSION, AlertSettingsBodySchema, AlertSettingsSchema } from "./alerts-schemas";
import { requestActor } from "../request-actor";

const route = createRoute({
  method: "put",
  path: "/auth/alerts",
  operationId: "setAlertSettings",
  tags: ["Alerts and webhooks"],
  summary: "Change the account's alert thresholds; fields left out keep their value (JWT, owner)",
  description: ALERTS_EXTENSION,
  request: { body: { content: { "application/json": { schema: AlertSettingsBodySchema } }, required: true } },
  responses: {
    200: { description: "The settings now", content: { "application/json": { schema: apiResponse(AlertSettingsSchema, "AlertSettingsUpdatedResponse") } } },
    ...accountErrorResponses,
  },
});

export function registerAlertsPut(app: ApiApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const change = { lowBalanceCredits: body.low_balance_credits, budgetPercents: body.budget_percents };
    return apiOk(c, await setAlertSettings(c.env.db, { accountId: c.get("auth").accountId, change, actor: await requestActor(c) }));
  });
}
