// GET /api/v1/auth/billing/reconciliation — the account's Stripe balance transactions matched to its ledger (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { reconcilePayments } from "../../payments/reconcile-payments";
import { reconciliationCsv } from "../../payments/reconciliation-csv";
import { auditErrorResponses, auditRead, csvHeaders } from "../audit-route-support";
import { BILLING_EXTENSION, ReconciliationQuerySchema, ReconciliationSchema } from "./billing-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/billing/reconciliation",
  operationId: "getPaymentReconciliation",
  tags: ["Billing"],
  summary: "The account's payments reconciliation for a period: Stripe's balance transactions matched to its payments, refunds and ledger rows (JWT)",
  description:
    `${BILLING_EXTENSION} Lines: matched, missing_in_ledger, missing_in_stripe, amount_differs; totals per currency (gross, fees, net, credits granted and reversed). ` +
    "Stripe's fees and payouts belong to no account: they are in the operator's report (`payments reconcile`). `format=csv` or `Accept: text/csv` answers CSV. " +
    "Support users read another account's with `account_id` (logged).",
  request: { query: ReconciliationQuerySchema },
  responses: {
    200: {
      description: "The report",
      content: { "application/json": { schema: apiResponse(ReconciliationSchema, "PaymentReconciliationResponse") }, "text/csv": { schema: z.string() } },
    },
    ...auditErrorResponses,
  },
});

export function registerBillingReconciliation(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const report = await auditRead(c, { accountId: q.account_id }, (accountId) => reconcilePayments(c.env.db, { from: q.from, to: q.to, accountId }));
    const csv = q.format === "csv" || (q.format === undefined && /\btext\/csv\b/.test(c.req.header("accept") ?? ""));
    if (csv) return c.body(reconciliationCsv(report), 200, csvHeaders(`payments-reconciliation-${report.from.slice(0, 10)}`)) as never;
    return apiOk(c, report);
  });
}
