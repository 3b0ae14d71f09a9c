// GET /api/v1/auth/usage/history/v2/summary — Usage feed
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { ownersOfFocus } from "../../audit/access";
import { UsageFeedQuery, usageFilters } from "../../audit/query-schemas";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { UsageFeedSchema } from "../../audit/schemas";
import { usageFeed } from "../../audit/usage-history";

const route = createRoute({
  method: "get",
  path: "/auth/usage/history/v2/summary",
  operationId: "listUsageSummary",
  tags: ["Usage audit"],
  summary: "Lightweight usage feed paged by keyset cursor (JWT)",
  description: "Same filters as the list. Newest first; `next_cursor` is an opaque keyset position on (created_at, id), so rows written meanwhile never shift later pages.",
  request: { query: UsageFeedQuery },
  responses: {
    200: { description: "A page of the feed", content: { "application/json": { schema: apiResponse(UsageFeedSchema, "UsageFeedResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerUsageHistorySummary(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const filters = usageFilters(q);
    const data = await auditRead(c, { accountId: q.account_id, owners: ownersOfFocus(c.env.db, filters) }, (accountId) =>
      usageFeed(c.env.db, accountId, { startDate: q.start_date, endDate: q.end_date, tz: q.tz, filters, cursor: q.cursor, pageSize: q.page_size }),
    );
    return apiOk(c, data);
  });
}
