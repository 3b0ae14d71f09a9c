// GET /api/v1/auth/usage/history/v2 — usage events, with the matching total and an optional summary
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { ownersOfFocus } from "../../audit/access";
import { UsageListQuery, usageFilters } from "../../audit/query-schemas";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { UsageHistorySchema } from "../../audit/schemas";
import { parseBucket } from "../../audit/time-window";
import { listUsageEvents } from "../../audit/usage-history";

const route = createRoute({
  method: "get",
  path: "/auth/usage/history/v2",
  operationId: "listUsageEvents",
  tags: ["Usage audit"],
  summary: "Usage events, newest first, with the matching total and an optional summary (JWT)",
  description:
    "Contract 4.2. Filters combine with AND. Anomalies are computed on read. `summary=true` adds the 2.7 usage summary " +
    "(last 24 hours without dates; `bucket` automatic). Extension: `tz` (IANA zone) sets bucket boundaries and is echoed in the summary.",
  request: { query: UsageListQuery },
  responses: {
    200: { description: "A page of usage events", content: { "application/json": { schema: apiResponse(UsageHistorySchema, "UsageHistoryResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerUsageHistoryList(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const filters = usageFilters(q);
    const bucket = parseBucket(q.bucket);
    const data = await auditRead(c, { accountId: q.account_id, owners: ownersOfFocus(c.env.db, filters) }, (accountId) =>
      listUsageEvents(c.env.db, accountId, {
        startDate: q.start_date,
        endDate: q.end_date,
        tz: q.tz,
        filters,
        page: q.page,
        pageSize: q.page_size,
        limit: q.limit,
        includeDetails: q.include_details,
        summary: q.summary,
        bucket,
      }),
    );
    return apiOk(c, data);
  });
}
