// /api/v1/auth/budgets — read (API key or JWT), set and remove (an owner's JWT) spend budgets (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { PublicApiErrorSchema, accountErrorResponses, apiResponse } from "../../http/schemas";
import { listBudgets, removeBudget, setBudget } from "../../billing/budgets";
import { BUDGETS_EXTENSION, BudgetSchema, SetBudgetBodySchema } from "./budgets-schemas";
import { requestActor } from "../request-actor";

const list = createRoute({
  method: "get",
  path: "/auth/budgets",
  operationId: "listBudgets",
  tags: ["Budgets"],
  summary: "The account's budgets with their spend in the current period, tightest first (API key or JWT)",
  description: BUDGETS_EXTENSION,
  responses: {
    200: { description: "Budgets", content: { "application/json": { schema: apiResponse(z.object({ items: z.array(BudgetSchema) }), "BudgetListResponse") } } },
    ...accountErrorResponses,
  },
});

const put = createRoute({
  method: "put",
  path: "/auth/budgets",
  operationId: "setBudget",
  tags: ["Budgets"],
  summary: "Create or change the budget of a scope (owner's JWT)",
  description: `${BUDGETS_EXTENSION} One budget per scope: setting it again changes its limit (counters kept) or its period/time zone (spend recounted from the ledger for the new period).`,
  request: { body: { content: { "application/json": { schema: SetBudgetBodySchema } }, required: true } },
  responses: {
    200: { description: "The budget", content: { "application/json": { schema: apiResponse(BudgetSchema, "BudgetResponse") } } },
    404: { description: "No such API key in the account, or no such OAuth client", content: { "application/json": { schema: PublicApiErrorSchema } } },
    ...accountErrorResponses,
  },
});

const remove = createRoute({
  method: "delete",
  path: "/auth/budgets/{budget_id}",
  operationId: "removeBudget",
  tags: ["Budgets"],
  summary: "Remove one of the account's budgets (owner's JWT)",
  description: BUDGETS_EXTENSION,
  request: { params: z.object({ budget_id: z.string().max(100) }) },
  responses: {
    200: { description: "Removed", content: { "application/json": { schema: apiResponse(z.object({ budget_id: z.string(), removed: z.literal(true) }), "RemovedBudgetResponse") } } },
    404: { description: "No such budget in the caller's account", content: { "application/json": { schema: PublicApiErrorSchema } } },
    ...accountErrorResponses,
  },
});

export function registerBudgets(app: ApiApp) {
  app.openapi(list, async (c) => apiOk(c, { items: await listBudgets(c.env.db, c.get("auth").accountId, c.env.deps.clock) }));
  app.openapi(put, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    const budget = await setBudget(
      c.env.db,
      { accountId: auth.accountId, scope: body.scope, scopeId: body.scope_id, limitCredits: String(body.limit_credits), period: body.period, timeZone: body.time_zone, actor: await requestActor(c) },
      c.env.deps.clock,
    );
    return apiOk(c, budget);
  });
  app.openapi(remove, async (c) => {
    const auth = c.get("auth");
    return apiOk(c, await removeBudget(c.env.db, { budgetId: c.req.valid("param").budget_id, accountId: auth.accountId, actor: await requestActor(c) }));
  });
}
