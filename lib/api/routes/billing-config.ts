// GET /api/v1/auth/billing/config — whether and how credits can be bought here (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { billingConfig } from "../../payments/payments";
import { BILLING_EXTENSION, BillingConfigSchema } from "./billing-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/billing/config",
  operationId: "getBillingConfig",
  tags: ["Billing"],
  summary: "Whether credits can be bought here, at what price, in which packs, and the account's debt (JWT)",
  description: `${BILLING_EXTENSION} \`enabled: false\`: payments are off, and the dashboard shows no Buy button.`,
  responses: {
    200: { description: "The billing configuration", content: { "application/json": { schema: apiResponse(BillingConfigSchema, "BillingConfigResponse") } } },
    ...accountErrorResponses,
  },
});

export function registerBillingConfig(app: ApiApp) {
  app.openapi(route, async (c) => apiOk(c, await billingConfig(c.env.db, c.get("auth").accountId)));
}
