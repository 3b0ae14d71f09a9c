// GET /api/v1/auth/credits/ledger-readiness — can the range be served from the ledger alone?
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { ledgerReadiness } from "../../audit/ledger-readiness";
import { ReadinessQuery } from "../../audit/query-schemas";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { ReadinessSchema } from "../../audit/schemas";

const route = createRoute({
  method: "get",
  path: "/auth/credits/ledger-readiness",
  operationId: "getLedgerReadiness",
  tags: ["Credits ledger"],
  summary: "Whether the account history in a range can be served from the ledger (JWT)",
  description:
    "Ready when, for every usage event and ledger row in the range: each charged or failed_charged_review event has exactly one ledger row " +
    "whose amount is minus its actual_amount_credits; included and failed_not_charged events have none; each consume row (except " +
    "consume_payment_refund) has exactly one event; the balance chain is continuous (each balance_before equals the previous row's " +
    "balance_after, balance_after = balance_before + amount_credits); the sum of amounts equals the balance delta; and, for an open-ended range, " +
    "the last balance equals the account's current credits. Without dates: the whole history.",
  request: { query: ReadinessQuery },
  responses: {
    200: { description: "The readiness verdict and each check", content: { "application/json": { schema: apiResponse(ReadinessSchema, "LedgerReadinessResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerLedgerReadiness(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    return apiOk(c, await auditRead(c, { accountId: q.account_id }, (accountId) => ledgerReadiness(c.env.db, accountId, { startDate: q.start_date, endDate: q.end_date, tz: q.tz })));
  });
}
