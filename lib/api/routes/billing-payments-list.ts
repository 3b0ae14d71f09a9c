// GET /api/v1/auth/billing/payments — the account's purchases of credits, newest first (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { listPayments } from "../../payments/payments";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { BILLING_EXTENSION, PaymentListQuerySchema, PaymentListSchema } from "./billing-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/billing/payments",
  operationId: "listPayments",
  tags: ["Billing"],
  summary: "The account's payments, newest first: status, amounts, credits, the grant's ledger row, Stripe's receipt, refunds (JWT)",
  description: `${BILLING_EXTENSION} Readable whether or not payments are configured now. Support users read another account's with \`account_id\` (logged).`,
  request: { query: PaymentListQuerySchema },
  responses: {
    200: { description: "A page of payments", content: { "application/json": { schema: apiResponse(PaymentListSchema, "PaymentListResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerBillingPaymentsList(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    return apiOk(c, await auditRead(c, { accountId: q.account_id }, (target) => listPayments(c.env.db, target, { status: q.status, kind: q.kind, page: q.page, pageSize: q.page_size })));
  });
}
