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

/** Credits that will expire, soonest first (`GET /auth/credits/expirations`); the dashboard's type too. */
export const CreditExpirationsSchema = z
  .object({
    items: z.array(
      z.object({
        grant_id: z.string().openapi({ description: "The grant's ledger entry id" }),
        kind: z.enum(["paid", "bonus", "reward"]),
        amount_credits: z.number().openapi({ description: "Granted" }),
        remaining_credits: z.number().openapi({ description: "Left to spend; what expires at expires_at" }),
        expires_at: z.string().openapi({ description: "ISO-8601; what is left leaves the balance at the sweeper's next run (every 15 s by default)" }),
      }),
    ),
    has_more: z.boolean().openapi({ description: "More grants expire after the 100 listed" }),
  })
  .openapi("CreditExpirations");
