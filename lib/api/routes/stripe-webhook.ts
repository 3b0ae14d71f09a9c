// POST /api/v1/billing/stripe/webhook — Stripe's events, signed (public: the signature is the credential; extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { InvalidQuerySchema, PublicApiErrorSchema, apiResponse } from "../../http/schemas";
import { receiveStripeWebhook } from "../../payments/stripe-events";
import { BILLING_EXTENSION, StripeWebhookResultSchema } from "./billing-schemas";

const error = (description: string) => ({ description, content: { "application/json": { schema: PublicApiErrorSchema } } });

// No request schema: the signature covers the raw bytes, which a parsed and re-serialised body would not match.
const route = createRoute({
  method: "post",
  path: "/billing/stripe/webhook",
  operationId: "receiveStripeWebhook",
  tags: ["Billing"],
  summary: "Stripe's webhook endpoint: Checkout, payment intent, refund and dispute events, signed with STRIPE_WEBHOOK_SECRET",
  description:
    `${BILLING_EXTENSION} The body is a Stripe event (JSON), checked with the \`Stripe-Signature\` header by the official SDK ` +
    "(300 s tolerance). Events handled: checkout.session.completed / async_payment_succeeded / async_payment_failed / expired, " +
    "payment_intent.succeeded, refund.created / refund.updated / refund.failed, charge.refunded, charge.dispute.created / charge.dispute.closed. " +
    "An event id already received answers 200 and does nothing again. A refund or dispute of a payment not granted yet answers " +
    "409, so that Stripe delivers it again later. An event of another Stripe account or mode, a purchase at another price or currency, " +
    "or a refund in another currency than its payment is refused (outcome refused_…, 200: Stripe stops retrying), grants or takes nothing, " +
    "and is listed by the reconciliation as refused_event.",
  responses: {
    200: { description: "Received (applied, or received before)", content: { "application/json": { schema: apiResponse(StripeWebhookResultSchema, "StripeWebhookResponse") } } },
    400: {
      description: "Unsigned, badly signed, or signed too long ago (replayed); or signed but not an event Tollgate can use (not an event, or a handled event whose object lacks a field or has one of the wrong shape, named in the message): refused and logged, nothing recorded",
      content: { "application/json": { schema: InvalidQuerySchema } },
    },
    404: error("Payments are not configured on this server"),
    409: error("A refund or dispute of a payment not granted yet: delivered again later"),
    502: error("Stripe could not be reached for what the event needs: delivered again later"),
    504: error("Stripe did not answer in time for what the event needs: delivered again later"),
  },
});

export function registerStripeWebhook(app: ApiApp) {
  app.openapi(route, async (c) => {
    const payload = new Uint8Array(await c.req.arrayBuffer());
    return apiOk(c, await receiveStripeWebhook(c.env.db, { payload, signature: c.req.header("stripe-signature") }, c.env.deps.clock));
  });
}
