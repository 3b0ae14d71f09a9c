// GET /api/v1/auth/credits/statements/{month} — one month's statement, reconciled against the ledger
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { getCreditStatement } from "../../audit/credit-statements";
import { EXTENSION, auditErrorResponses, auditRead } from "../audit-route-support";
import { CreditStatementSchema, StatementParams, StatementQuery, statementResponse } from "./credits-statements-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/credits/statements/{month}",
  operationId: "getCreditStatement",
  tags: ["Credits ledger"],
  summary: "A monthly credit statement (JWT)",
  description:
    `${EXTENSION} Opening and closing balance by kind, grants by type, consumption by provider and tool, refunds, expiries, and the check ` +
    "opening + grants − consumption + refunds − expiries = closing, computed from the ledger (reconciled, or the difference and the rows causing it). " +
    "A final month is served as stored, with its content_hash. A month that has not started, or lies before the account's first ledger row, is 404.",
  request: { params: StatementParams, query: StatementQuery },
  responses: {
    200: { description: "The statement", content: { "application/json": { schema: apiResponse(CreditStatementSchema, "CreditStatementResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerCreditsStatementsGet(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { month } = c.req.valid("param");
    const q = c.req.valid("query");
    const data = await auditRead(c, { accountId: q.account_id }, (accountId) => getCreditStatement(c.env.db, accountId, { month, tz: q.tz }));
    return apiOk(c, statementResponse(data));
  });
}
