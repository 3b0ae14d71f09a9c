// GET /api/v1/credits — balance by credit kind (JWT)
import { createRoute } from "@hono/zod-openapi";
import { getBalance } from "../../billing/get-balance";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { balanceResponses } from "./credits-schemas";

const route = createRoute({
  method: "get",
  path: "/credits",
  operationId: "getCredits",
  tags: ["Credits"],
  summary: "Current credits by kind (JWT)",
  responses: balanceResponses,
});

export function registerCredits(app: ApiApp) {
  app.openapi(route, async (c) => apiOk(c, await getBalance(c.env.db, c.get("auth").accountId)));
}
