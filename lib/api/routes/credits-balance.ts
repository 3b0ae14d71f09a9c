// GET /api/v1/auth/credits (API key or JWT) and GET /api/v1/credits (JWT) — balance by kind
import { createRoute, z } from "@hono/zod-openapi";
import { getBalance } from "../../billing/get-balance";
import type { ApiApp } from "../../http/context";
import { requireAuth } from "../../http/auth";
import { apiOk } from "../../http/responses";
import { apiResponse, authErrorResponses, security } from "../../http/schemas";

export const BalanceSchema = z
  .object({
    account_id: z.string(),
    paid_credits: z.number(),
    bonus_credits: z.number(),
    reward_credits: z.number(),
    reserved_credits: z.number().openapi({ description: "Held by Calls in flight" }),
    total_credits: z.number(),
    total_available_credits: z.number().openapi({ description: "total_credits - reserved_credits" }),
    currency: z.literal("credits"),
  })
  .openapi("CreditsBalance");

const response = { 200: { description: "Balance by credit kind", content: { "application/json": { schema: apiResponse(BalanceSchema, "CreditsBalanceResponse") } } }, ...authErrorResponses };

const authCredits = createRoute({
  method: "get",
  path: "/auth/credits",
  tags: ["Credits"],
  summary: "Current credits by kind (API key or JWT)",
  security: security.apiKeyOrJwt,
  middleware: [requireAuth("api_key_or_jwt")] as const,
  responses: response,
});

const credits = createRoute({
  method: "get",
  path: "/credits",
  tags: ["Credits"],
  summary: "Current credits by kind (JWT)",
  security: security.jwt,
  middleware: [requireAuth("jwt")] as const,
  responses: response,
});

export function registerCreditsBalance(app: ApiApp) {
  app.openapi(authCredits, async (c) => apiOk(c, await getBalance(c.env.db, c.get("auth").accountId)));
  app.openapi(credits, async (c) => apiOk(c, await getBalance(c.env.db, c.get("auth").accountId)));
}
