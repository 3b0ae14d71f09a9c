// GET /api/v1/auth/usage/history/v2/export — usage events as CSV, streamed
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { ownersOfFocus } from "../../audit/access";
import { exportUsageCsv } from "../../audit/exports";
import { UsageExportQuery, usageFilters } from "../../audit/query-schemas";
import { auditErrorResponses, auditRead, csvHeaders } from "../audit-route-support";

const route = createRoute({
  method: "get",
  path: "/auth/usage/history/v2/export",
  operationId: "exportUsageEvents",
  tags: ["Usage audit"],
  summary: "Usage events as CSV, streamed (JWT)",
  description:
    "Same filters as the list; newest first; streamed with constant memory. Text cells starting with = + - @ TAB or CR " +
    "are prefixed with a single quote (spreadsheet formula-injection guard). JSON columns hold JSON text; amounts are exact decimals.",
  request: { query: UsageExportQuery },
  responses: { 200: { description: "CSV with a header row", content: { "text/csv": { schema: z.string() } } }, ...auditErrorResponses },
});

export function registerUsageHistoryExport(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const filters = usageFilters(q);
    const open = await auditRead(c, { accountId: q.account_id, owners: ownersOfFocus(c.env.db, filters) }, (accountId) =>
      exportUsageCsv(c.env.db, accountId, { startDate: q.start_date, endDate: q.end_date, tz: q.tz, filters, includeDetails: q.include_details }),
    );
    return c.body(open(), 200, csvHeaders("usage-events")) as never;
  });
}
