// POST /api/v1/auth/billing/checkout — start buying credits: a Stripe Checkout session (owner's JWT; extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { PublicApiErrorSchema, accountErrorResponses, apiResponse } from "../../http/schemas";
import { startCheckout } from "../../payments/payments";
import { requestActor } from "../request-actor";
import { BILLING_EXTENSION, CheckoutBodySchema, PaymentSchema } from "./billing-schemas";

const error = (description: string) => ({ description, content: { "application/json": { schema: PublicApiErrorSchema } } });

const route = createRoute({
  method: "post",
  path: "/auth/billing/checkout",
  operationId: "startCheckout",
  tags: ["Billing"],
  summary: "Start a purchase of credits: a pending payment and Stripe's Checkout page to pay it on (owner's JWT)",
  description:
    `${BILLING_EXTENSION} Body: \`credits\` or \`pack\`. The answer's \`checkout_url\` is Stripe's hosted page; it comes back to ` +
    "`PUBLIC_URL/billing?payment=<payment_id>`. The payment stays `pending` until Stripe's webhook grants it. Stripe down, slow " +
    "(STRIPE_TIMEOUT_MS) or refusing: 502 or 504, nothing charged and no payment recorded.",
  request: { body: { content: { "application/json": { schema: CheckoutBodySchema } }, required: true } },
  responses: {
    201: { description: "The pending payment and its checkout_url", content: { "application/json": { schema: apiResponse(PaymentSchema, "CheckoutResponse") } } },
    ...accountErrorResponses,
    404: error("Payments are not configured on this server"),
    502: error("Stripe could not be reached or refused the session: nothing was charged"),
    504: error("Stripe did not answer in time: nothing was charged"),
  },
});

export function registerBillingCheckout(app: ApiApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const auth = c.get("auth");
    if (auth.kind !== "jwt") throw new Error("unreachable: the access table admits users' tokens only");
    const payment = await startCheckout(c.env.db, {
      accountId: auth.accountId,
      userId: auth.userId,
      credits: body.credits === undefined ? undefined : String(body.credits),
      pack: body.pack === undefined ? undefined : String(body.pack),
      actor: await requestActor(c),
    });
    return c.json({ status: "success" as const, message: "success", status_code: 0 as const, data: payment }, 201);
  });
}
