import { z } from "@hono/zod-openapi";
import { apiResponse, authErrorResponses } from "../../http/schemas";

/** The balance by credit kind, written once for both balance operations and the dashboard's type. */
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

export const balanceResponses = {
  200: { description: "Balance by credit kind", content: { "application/json": { schema: apiResponse(BalanceSchema, "CreditsBalanceResponse") } } },
  ...authErrorResponses,
};
