// GET /api/v1/auth/credits — balance by credit kind (API key or JWT)
import { createRoute } from "@hono/zod-openapi";
import { getBalance } from "../../billing/get-balance";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { balanceResponses } from "./credits-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/credits",
  operationId: "getAuthCredits",
  tags: ["Credits"],
  summary: "Current credits by kind (API key or JWT)",
  responses: balanceResponses,
});

export function registerAuthCredits(app: ApiApp) {
  app.openapi(route, async (c) => apiOk(c, await getBalance(c.env.db, c.get("auth").accountId)));
}
