// GET /api/v1/auth/credits/statements/{month}/export — one month's statement as CSV
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { getCreditStatement } from "../../audit/credit-statements";
import { statementCsv } from "../../audit/credit-statement-csv";
import { EXTENSION, auditErrorResponses, auditRead, csvHeaders } from "../audit-route-support";
import { StatementParams, StatementQuery } from "./credits-statements-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/credits/statements/{month}/export",
  operationId: "exportCreditStatement",
  tags: ["Credits ledger"],
  summary: "A monthly credit statement as CSV (JWT)",
  description:
    `${EXTENSION} One line per figure: section, item, kind, amount_credits (exact decimals), entry_count, detail. ` +
    "The first lines (section `statement`) name the account, month, time zone, period, status and content_hash.",
  request: { params: StatementParams, query: StatementQuery },
  responses: { 200: { description: "CSV with a header row", content: { "text/csv": { schema: z.string() } } }, ...auditErrorResponses },
});

export function registerCreditsStatementsExport(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { month } = c.req.valid("param");
    const q = c.req.valid("query");
    const data = await auditRead(c, { accountId: q.account_id }, (accountId) => getCreditStatement(c.env.db, accountId, { month, tz: q.tz }));
    return c.body(statementCsv(data), 200, csvHeaders(`credit-statement-${data.statement.month}`)) as never;
  });
}
