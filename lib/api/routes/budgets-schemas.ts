import { z } from "@hono/zod-openapi";
import { budgetPeriods, budgetScopes } from "../../db/schema";

export const BUDGETS_EXTENSION =
  "Extension (not in the contract): spend budgets per account, API key or OAuth client, enforced in the statement that reserves or records a Call (docs/billing.md).";

export const BudgetSchema = z
  .object({
    budget_id: z.string(),
    scope: z.enum(budgetScopes),
    scope_id: z.string().nullable().openapi({ description: "API key id or OAuth client id; null for the account's own budget" }),
    scope_name: z.string().nullable().openapi({ description: "The API key's or OAuth client's name; null for the account's own budget" }),
    limit_credits: z.number(),
    period: z.enum(budgetPeriods).openapi({ description: "`none` = lifetime" }),
    time_zone: z.string().openapi({ description: "IANA time zone the period boundaries are in" }),
    period_start: z.string().nullable(),
    resets_at: z.string().nullable().openapi({ description: "When the current period ends (null for a lifetime budget)" }),
    spent_credits: z.number(),
    reserved_credits: z.number().openapi({ description: "Held by Calls in flight, counted against the limit" }),
    remaining_credits: z.number(),
    used_percent: z.number(),
    updated_at: z.string(),
  })
  .openapi("Budget");

export const SetBudgetBodySchema = z
  .object({
    scope: z.enum(budgetScopes),
    scope_id: z.string().min(1).max(200).optional().openapi({ description: "The API key id (scope api_key) or OAuth client id (scope oauth_client)" }),
    limit_credits: z.union([z.number().nonnegative().max(1e14), z.string().max(30)]).openapi({ description: "Credits per period, at most 6 decimals" }),
    period: z.enum(budgetPeriods),
    time_zone: z.string().min(1).max(64).optional().openapi({ description: "IANA time zone (default UTC)" }),
  })
  .openapi("SetBudgetBody");
