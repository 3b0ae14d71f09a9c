// GET /api/v1/auth/credits/statements — the account's monthly statements, newest first
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { listCreditStatements } from "../../audit/credit-statements";
import { EXTENSION, auditErrorResponses, auditRead } from "../audit-route-support";
import { CreditStatementListSchema, StatementQuery } from "./credits-statements-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/credits/statements",
  operationId: "listCreditStatements",
  tags: ["Credits ledger"],
  summary: "Monthly credit statements (JWT)",
  description:
    `${EXTENSION} The months from the account's first ledger month to the current one in tz (default UTC), newest first. ` +
    "`final`: the month has ended and all its hours are sealed; its statement is stored and carries its content_hash. `open`: computed on each read.",
  request: { query: StatementQuery },
  responses: {
    200: { description: "Months with their status", content: { "application/json": { schema: apiResponse(CreditStatementListSchema, "CreditStatementListResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerCreditsStatementsList(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const data = await auditRead(c, { accountId: q.account_id }, (accountId) => listCreditStatements(c.env.db, accountId, { tz: q.tz }));
    return apiOk(c, data);
  });
}
