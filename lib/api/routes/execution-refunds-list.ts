// GET /api/v1/auth/executions/{execution_id}/refunds — a Call's refunds (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { PublicApiErrorSchema, accountErrorResponses, apiResponse } from "../../http/schemas";
import { ownersOfFocus } from "../../audit/access";
import { ledgerItem } from "../../audit/ledger-history";
import { auditRead } from "../audit-route-support";
import { listExecutionRefunds } from "../../billing/list-execution-refunds";
import { ExecutionIdParams, REFUNDS_EXTENSION, RefundListSchema, refundStateItem } from "./execution-refunds-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/executions/{execution_id}/refunds",
  operationId: "listRefunds",
  tags: ["Credits ledger"],
  summary: "A Call's refunds, and what is left to refund (JWT)",
  description:
    `${REFUNDS_EXTENSION} The account's users read their own Calls; a support user reads any account's, found from the ` +
    "execution id, and each such read is recorded in the support access log.",
  request: { params: ExecutionIdParams },
  responses: {
    200: { description: "The refund ledger rows", content: { "application/json": { schema: apiResponse(RefundListSchema, "RefundListResponse") } } },
    ...accountErrorResponses,
    404: { description: "No execution with this id in the account", content: { "application/json": { schema: PublicApiErrorSchema } } },
  },
});

export function registerExecutionRefundsList(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { execution_id: executionId } = c.req.valid("param");
    const { execution, entries } = await auditRead(c, { owners: ownersOfFocus(c.env.db, { executionId }) }, (accountId) =>
      listExecutionRefunds(c.env.db, { accountId, executionId }),
    );
    return apiOk(c, { items: entries.map(ledgerItem), execution: refundStateItem(execution) });
  });
}
