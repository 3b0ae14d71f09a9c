// GET /api/v1/auth/account/members — the account's members with the API keys each created (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { listMembers } from "../../accounts/members";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { MemberSchema, SupportAccountQuery, TEAM_EXTENSION } from "./account-members-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/account/members",
  operationId: "listAccountMembers",
  tags: ["Members"],
  summary: "The account's members: email, role, when they joined and last signed in, two-factor, the API keys they created (JWT)",
  description: `${TEAM_EXTENSION} Owners first. Any member may read it; support users read an account they investigate with \`account_id\`.`,
  request: { query: SupportAccountQuery },
  responses: {
    200: { description: "Members", content: { "application/json": { schema: apiResponse(z.object({ items: z.array(MemberSchema) }), "AccountMemberListResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerAccountMembersList(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    return apiOk(c, { items: await auditRead(c, { accountId: q.account_id }, (accountId) => listMembers(c.env.db, accountId)) });
  });
}
