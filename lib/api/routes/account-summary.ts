// GET /api/v1/auth/account — whose account this is: name, owners, members (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { accountSummary } from "../../accounts/summary";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { SupportAccountQuery, TEAM_EXTENSION } from "./account-members-schemas";

export const AccountSummarySchema = z
  .object({
    account_id: z.string(),
    name: z.string(),
    owners: z.array(z.string()).openapi({ description: "The owners' email addresses, the earliest member first" }),
    member_count: z.number().int(),
    created_at: z.string().openapi({ description: "ISO-8601" }),
  })
  .openapi("AccountSummary");

const route = createRoute({
  method: "get",
  path: "/auth/account",
  operationId: "getAccountSummary",
  tags: ["Members"],
  summary: "The account's name, owners and member count (JWT)",
  description: `${TEAM_EXTENSION} Any member reads their own account; support users read the account they investigate with \`account_id\` (the dashboard names it on every page they open for it).`,
  request: { query: SupportAccountQuery },
  responses: {
    200: { description: "The account", content: { "application/json": { schema: apiResponse(AccountSummarySchema, "AccountSummaryResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerAccountSummary(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    return apiOk(c, await auditRead(c, { accountId: q.account_id }, (accountId) => accountSummary(c.env.db, accountId)));
  });
}
