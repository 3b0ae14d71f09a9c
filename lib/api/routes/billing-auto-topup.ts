// /api/v1/auth/billing/auto-topup — read and set auto top-up, save and forget its card (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { PublicApiErrorSchema, accountErrorResponses, apiResponse } from "../../http/schemas";
import { getAutoTopup, removeCard, setAutoTopup, startCardSetup } from "../../payments/auto-topup";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { requestActor } from "../request-actor";
import { AutoTopupBodySchema, AutoTopupSchema, BILLING_EXTENSION, CardSetupSchema, PaymentListQuerySchema } from "./billing-schemas";

const error = (description: string) => ({ description, content: { "application/json": { schema: PublicApiErrorSchema } } });
const AUTO_TOPUP = `${BILLING_EXTENSION} Auto top-up (docs/billing.md): when the available balance falls below threshold_credits, buy amount_credits with the saved card, one top-up at a time, at most daily_limit_credits in any 24 hours; three failed charges in a row pause it.`;
const autoTopupResponse = (description: string) => ({ description, content: { "application/json": { schema: apiResponse(AutoTopupSchema, "AutoTopupResponse") } } });
const notConfigured = { 404: error("Payments are not configured on this server") };
const stripeErrors = { 502: error("Stripe could not be reached or refused: nothing was saved"), 504: error("Stripe did not answer in time: nothing was saved") };

const get = createRoute({
  method: "get",
  path: "/auth/billing/auto-topup",
  operationId: "getAutoTopup",
  tags: ["Billing"],
  summary: "The account's auto top-up: state, threshold, amount, daily limit, saved card, failures and the last 24 hours' top-ups (JWT)",
  description: `${AUTO_TOPUP} Support users read another account's with \`account_id\` (logged).`,
  request: { query: z.object({ account_id: PaymentListQuerySchema.shape.account_id }) },
  responses: { 200: autoTopupResponse("The auto top-up"), ...auditErrorResponses, ...notConfigured },
});

const put = createRoute({
  method: "put",
  path: "/auth/billing/auto-topup",
  operationId: "setAutoTopup",
  tags: ["Billing"],
  summary: "Set auto top-up: turn it on or off, its threshold, amount and daily limit (owner's JWT)",
  description:
    `${AUTO_TOPUP} Absent fields are kept. \`enabled: true\` resumes a paused auto top-up. When it is on and the balance is ` +
    "already below the threshold, a top-up starts at once; the answer waits for Stripe's reply to its charge (at most STRIPE_TIMEOUT_MS), so a declined card shows in it.",
  request: { body: { content: { "application/json": { schema: AutoTopupBodySchema } }, required: true } },
  responses: { 200: autoTopupResponse("The auto top-up as set"), ...accountErrorResponses, ...notConfigured },
});

const setupCard = createRoute({
  method: "post",
  path: "/auth/billing/auto-topup/card",
  operationId: "startAutoTopupCardSetup",
  tags: ["Billing"],
  summary: "Save a card for auto top-up: Stripe's Checkout page in setup mode (owner's JWT)",
  description: `${AUTO_TOPUP} The card is stored when Stripe's signed webhook says the setup completed; it replaces the previous card and resumes a paused auto top-up.`,
  responses: {
    201: { description: "The setup page", content: { "application/json": { schema: apiResponse(CardSetupSchema, "CardSetupResponse") } } },
    ...accountErrorResponses,
    ...notConfigured,
    ...stripeErrors,
  },
});

const forgetCard = createRoute({
  method: "delete",
  path: "/auth/billing/auto-topup/card",
  operationId: "removeAutoTopupCard",
  tags: ["Billing"],
  summary: "Forget the saved card (detached in Stripe) and turn auto top-up off (owner's JWT)",
  description: AUTO_TOPUP,
  responses: { 200: autoTopupResponse("The auto top-up, off and without a card"), ...accountErrorResponses, ...notConfigured },
});

export function registerBillingAutoTopup(app: ApiApp) {
  app.openapi(get, async (c) => {
    const { account_id } = c.req.valid("query");
    return apiOk(c, await auditRead(c, { accountId: account_id }, (accountId) => getAutoTopup(c.env.db, accountId)));
  });
  app.openapi(put, async (c) => {
    const auth = c.get("auth");
    if (auth.kind !== "jwt") throw new Error("unreachable: the access table admits users' tokens only");
    return apiOk(c, await setAutoTopup(c.env.db, { accountId: auth.accountId, userId: auth.userId, actor: await requestActor(c), change: c.req.valid("json") }));
  });
  app.openapi(setupCard, async (c) => {
    const auth = c.get("auth");
    if (auth.kind !== "jwt") throw new Error("unreachable: the access table admits users' tokens only");
    const actor = await requestActor(c);
    const setup = await startCardSetup(c.env.db, { accountId: auth.accountId, userId: auth.userId, actor, email: actor.label?.includes("@") ? actor.label : null });
    return c.json({ status: "success" as const, message: "success", status_code: 0 as const, data: setup }, 201);
  });
  app.openapi(forgetCard, async (c) => apiOk(c, await removeCard(c.env.db, { accountId: c.get("auth").accountId, actor: await requestActor(c) })));
}
