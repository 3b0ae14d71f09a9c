// GET /api/v1/auth/account/settlement-history — daily settlement feed from the sealed ledger summary
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { SettlementHistoryQuery } from "../../audit/query-schemas";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { SettlementHistorySchema } from "../../audit/schemas";
import { settlementHistory } from "../../audit/settlement-history";

const route = createRoute({
  method: "get",
  path: "/auth/account/settlement-history",
  operationId: "listSettlementHistory",
  tags: ["Credits ledger"],
  summary: "Settlement history: one item per UTC day with ledger activity, newest first (JWT)",
  description:
    "Closed days are served from the immutable daily ledger summary, written once when the day is sealed (ten minutes after it ends) and " +
    "its ledger readiness checks pass. Today, and any day whose checks failed, are computed live and marked `source: live` with their " +
    "`ready` verdict. Paged by an opaque cursor on the day. Days are UTC days.",
  request: { query: SettlementHistoryQuery },
  responses: {
    200: { description: "A page of settlement days", content: { "application/json": { schema: apiResponse(SettlementHistorySchema, "SettlementHistoryResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerSettlementHistory(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const data = await auditRead(c, { accountId: q.account_id }, (accountId) =>
      settlementHistory(c.env.db, accountId, { startDate: q.start_date, endDate: q.end_date, scope: q.scope, cursor: q.cursor, pageSize: q.page_size }),
    );
    return apiOk(c, data);
  });
}
