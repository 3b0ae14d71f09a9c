// GET /api/v1/auth/billing/payments/{payment_id} — one payment of the account (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { getPayment, ownersOfPayment } from "../../payments/payments";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { BILLING_EXTENSION, PaymentListQuerySchema, PaymentSchema } from "./billing-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/billing/payments/{payment_id}",
  operationId: "getPayment",
  tags: ["Billing"],
  summary: "One payment: its status (pending until granted), the grant's ledger row, Stripe's receipt, its refunds and lost disputes (JWT)",
  description: BILLING_EXTENSION,
  request: {
    params: z.object({ payment_id: z.string().min(1).max(100) }),
    query: z.object({ account_id: PaymentListQuerySchema.shape.account_id }),
  },
  responses: {
    200: { description: "The payment", content: { "application/json": { schema: apiResponse(PaymentSchema, "PaymentResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerBillingPaymentsGet(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { payment_id: paymentId } = c.req.valid("param");
    const { account_id } = c.req.valid("query");
    return apiOk(c, await auditRead(c, { accountId: account_id, owners: () => ownersOfPayment(c.env.db, paymentId) }, (accountId) => getPayment(c.env.db, accountId, paymentId)));
  });
}
