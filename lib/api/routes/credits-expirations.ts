// GET /api/v1/auth/credits/expirations — credits that will expire, soonest first (API key or JWT)
import { createRoute } from "@hono/zod-openapi";
import { listCreditExpirations } from "../../billing/list-expirations";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse, authErrorResponses } from "../../http/schemas";
import { CreditExpirationsSchema } from "./credits-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/credits/expirations",
  operationId: "listCreditExpirations",
  tags: ["Credits"],
  summary: "Credits that will expire, soonest first (API key or JWT)",
  description:
    "Extension (not in the published contract): grants given with an expiry and what is left of each. Within a kind, consumption draws the soonest-expiring first.",
  responses: {
    200: { description: "Expiring grants, soonest first", content: { "application/json": { schema: apiResponse(CreditExpirationsSchema, "CreditExpirationsResponse") } } },
    ...authErrorResponses,
  },
});

export function registerCreditsExpirations(app: ApiApp) {
  app.openapi(route, async (c) => apiOk(c, await listCreditExpirations(c.env.db, { accountId: c.get("auth").accountId })));
}
