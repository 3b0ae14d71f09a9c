// POST /api/v1/auth/executions/{execution_id}/refunds — refund a failed_charged_review Call (support; extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { PublicApiErrorSchema, accountErrorResponses, apiResponse } from "../../http/schemas";
import { ledgerItem } from "../../audit/ledger-history";
import { accessRecord } from "../audit-route-support";
import { requestActor } from "../request-actor";
import { refundExecution } from "../../billing/refund-execution";
import { ExecutionIdParams, REFUNDS_EXTENSION, RefundRequestSchema, RefundSchema, refundStateItem } from "./execution-refunds-schemas";

const error = (description: string) => ({ description, content: { "application/json": { schema: PublicApiErrorSchema } } });

const route = createRoute({
  method: "post",
  path: "/auth/executions/{execution_id}/refunds",
  operationId: "createRefund",
  tags: ["Credits ledger"],
  summary: "Refund a failed but charged Call, in full or in part (support users; JWT)",
  description:
    `${REFUNDS_EXTENSION} Gives credits of a \`failed_charged_review\` Call back to the account that owns it, to the credit ` +
    "kinds the charge drew on (paid first, then reward, then bonus), with a `refund_tool_execute` ledger row linked to the " +
    "execution and its usage event. Refunds of one Call never add up to more than its charge, also when sent concurrently. " +
    "Every refund is recorded in the support access log.",
  request: {
    params: ExecutionIdParams,
    body: { content: { "application/json": { schema: RefundRequestSchema } }, required: true },
  },
  responses: {
    201: { description: "The refund ledger row and where the Call stands", content: { "application/json": { schema: apiResponse(RefundSchema, "RefundResponse") } } },
    ...accountErrorResponses,
    403: error("The caller is not a support user"),
    404: error("No execution with this id"),
    409: error("Not refundable: the Call is not failed_charged_review, or the amount is more than is left to refund"),
  },
});

export function registerExecutionRefundsCreate(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { execution_id: executionId } = c.req.valid("param");
    const body = c.req.valid("json");
    const auth = c.get("auth");
    if (auth.kind !== "jwt") throw new Error("unreachable: the access table admits support users' tokens only");
    const access = accessRecord(c);
    const who = await requestActor(c);
    const { entry, execution } = await refundExecution(c.env.db, {
      actor: { userId: auth.userId, role: auth.role, email: who.label, ipAddress: who.ipAddress, userAgent: who.userAgent },
      input: { executionId, amount: body.amount_credits === undefined ? undefined : String(body.amount_credits), reason: body.reason },
      access: { resource: access.resource, query: { ...access.query, ...body } },
    });
    return c.json({ status: "success" as const, message: "success", status_code: 0 as const, data: { refund: ledgerItem(entry), execution: refundStateItem(execution) } }, 201);
  });
}
