// GET /api/v1/auth/account/activity/export — the filtered activity log as CSV (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { activityCsv, listActivity } from "../../accounts/activity-log";
import { auditErrorResponses, auditRead, csvHeaders } from "../audit-route-support";
import { ActivityExportQuery, TEAM_EXTENSION, activityFilters } from "./account-members-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/account/activity/export",
  operationId: "exportAccountActivity",
  tags: ["Members"],
  summary: "The account's activity log as CSV, newest first, with the list's filters (JWT)",
  description: `${TEAM_EXTENSION} Columns: seq, activity_id, created_at, actor_type, actor_id, actor_label, action, object_type, object_id, before, after (JSON), ip_address, user_agent.`,
  request: { query: ActivityExportQuery },
  responses: { 200: { description: "CSV with a header row", content: { "text/csv": { schema: z.string() } } }, ...auditErrorResponses },
});

export function registerAccountActivityExport(app: ApiApp) {
  app.openapi(route, async (c) => {
    const filters = activityFilters(c.req.valid("query"));
    const stream = await auditRead(c, { accountId: c.req.valid("query").account_id }, async (accountId) => {
      // The filters are checked (a bad date is a 400) before the download starts.
      await listActivity(c.env.db, accountId, { filters, pageSize: 1 });
      return activityCsv(c.env.db, accountId, filters);
    });
    return c.body(stream, 200, csvHeaders("account-activity")) as never;
  });
}
