// GET /api/v1/auth/usage/breakdown — spend by tool, provider, key, OAuth client, model, run, channel
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { usageBreakdown } from "../../audit/breakdown";
import { breakdownCsv } from "../../audit/breakdown-csv";
import { BreakdownQuery, BreakdownSchema, breakdownFilters, parseGroupBy } from "../../audit/breakdown-schemas";
import { EXTENSION, auditErrorResponses, auditRead, csvHeaders } from "../audit-route-support";

const description =
  "Usage events and credits grouped by one or two dimensions, the largest spend first; groups past `limit` are summed in one `other` group. " +
  "Totals equal the usage summary's for the same window and filters, and `settled_credits` the ledger's consumption. Refunds count when they were made, " +
  "in the refunded Call's groups. With `bucket`, each group is also split over time in tz. Served from sealed rollups plus the unsealed tail.";

const route = createRoute({
  method: "get",
  path: "/auth/usage/breakdown",
  operationId: "getUsageBreakdown",
  tags: ["Usage audit"],
  summary: "Spend by tool, provider, API key, OAuth client, model, agent run or channel (JWT)",
  description: `${EXTENSION} ${description}`,
  request: { query: BreakdownQuery },
  responses: {
    200: { description: "The groups and totals", content: { "application/json": { schema: apiResponse(BreakdownSchema, "UsageBreakdownResponse") } } },
    ...auditErrorResponses,
  },
});

const exportRoute = createRoute({
  method: "get",
  path: "/auth/usage/breakdown/export",
  operationId: "exportUsageBreakdown",
  tags: ["Usage audit"],
  summary: "The spend breakdown as CSV (JWT)",
  description: `${EXTENSION} The same query and figures as the breakdown: one line per group (per bucket and group with \`bucket\`), amounts as exact decimals.`,
  request: { query: BreakdownQuery },
  responses: { 200: { description: "CSV with a header row", content: { "text/csv": { schema: z.string() } } }, ...auditErrorResponses },
});

export function registerUsageBreakdown(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const groupBy = parseGroupBy(q.group_by);
    const data = await auditRead(c, { accountId: q.account_id }, (accountId) =>
      usageBreakdown(c.env.db, accountId, { startDate: q.start_date, endDate: q.end_date, tz: q.tz, groupBy, bucket: q.bucket, limit: q.limit, filters: breakdownFilters(q) }),
    );
    return apiOk(c, data);
  });
  app.openapi(exportRoute, async (c) => {
    const q = c.req.valid("query");
    const groupBy = parseGroupBy(q.group_by);
    const data = await auditRead(c, { accountId: q.account_id }, (accountId) =>
      usageBreakdown(c.env.db, accountId, { startDate: q.start_date, endDate: q.end_date, tz: q.tz, groupBy, bucket: q.bucket, limit: q.limit, filters: breakdownFilters(q) }),
    );
    return c.body(breakdownCsv(data), 200, csvHeaders("usage-breakdown")) as never;
  });
}
