// GET /api/v1/auth/account/activity — the account's activity log, newest first, by keyset cursor (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { listActivity } from "../../accounts/activity-log";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { ActivityListQuery, ActivityPageSchema, TEAM_EXTENSION, activityFilters } from "./account-members-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/account/activity",
  operationId: "listAccountActivity",
  tags: ["Members"],
  summary: "Who changed what in the account, when and from where: the append-only activity log (JWT)",
  description:
    `${TEAM_EXTENSION} Newest first; \`next_cursor\` is an opaque keyset position on the entry's number, so entries written ` +
    "meanwhile never shift later pages. Any member may read it; support users read an account they investigate with `account_id`.",
  request: { query: ActivityListQuery },
  responses: {
    200: { description: "A page of the log", content: { "application/json": { schema: apiResponse(ActivityPageSchema, "AccountActivityResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerAccountActivityList(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const page = await auditRead(c, { accountId: q.account_id }, (accountId) =>
      listActivity(c.env.db, accountId, { filters: activityFilters(q), cursor: q.cursor, pageSize: q.page_size }),
    );
    return apiOk(c, page);
  });
}
