// GET /api/v1/auth/usage/history/v2 (+ /summary, /export, /{event_id}) — usage audit
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { requireAuth } from "../../http/auth";
import { apiOk } from "../../http/responses";
import { apiResponse, security } from "../../http/schemas";
import { ownersOfEvent, ownersOfFocus } from "../../audit/access";
import { exportUsageCsv } from "../../audit/exports";
import { UsageExportQuery, UsageFeedQuery, UsageListQuery, usageFilters } from "../../audit/query-schemas";
import { auditErrorResponses, auditRead, csvHeaders } from "../../audit/route-support";
import { UsageEventItemSchema, UsageFeedSchema, UsageHistorySchema } from "../../audit/schemas";
import { parseBucket } from "../../audit/time-window";
import { getUsageEvent, listUsageEvents, usageFeed } from "../../audit/usage-history";

const TAGS = ["Usage audit"];
const json = <T extends z.ZodTypeAny>(description: string, schema: T) => ({ description, content: { "application/json": { schema } } });

const list = createRoute({
  method: "get",
  path: "/auth/usage/history/v2",
  tags: TAGS,
  summary: "Usage events, newest first, with the matching total and an optional summary (JWT)",
  description:
    "Contract 4.2. Filters combine with AND. Anomalies are computed on read. `summary=true` adds the 2.7 usage summary " +
    "(last 24 hours without dates; `bucket` automatic). Extension: `tz` (IANA zone) sets bucket boundaries and is echoed in the summary.",
  security: security.jwt,
  middleware: [requireAuth("jwt")] as const,
  request: { query: UsageListQuery },
  responses: { 200: json("A page of usage events", apiResponse(UsageHistorySchema, "UsageHistoryResponse")), ...auditErrorResponses },
});

const feed = createRoute({
  method: "get",
  path: "/auth/usage/history/v2/summary",
  tags: TAGS,
  summary: "Lightweight usage feed paged by keyset cursor (JWT)",
  description: "Same filters as the list. Newest first; `next_cursor` is an opaque keyset position on (created_at, id), so rows written meanwhile never shift later pages.",
  security: security.jwt,
  middleware: [requireAuth("jwt")] as const,
  request: { query: UsageFeedQuery },
  responses: { 200: json("A page of the feed", apiResponse(UsageFeedSchema, "UsageFeedResponse")), ...auditErrorResponses },
});

const exportCsv = createRoute({
  method: "get",
  path: "/auth/usage/history/v2/export",
  tags: TAGS,
  summary: "Usage events as CSV, streamed (JWT)",
  description:
    "Same filters as the list; newest first; streamed in keyset batches with constant memory. Text cells starting with = + - @ TAB or CR " +
    "are prefixed with a single quote (spreadsheet formula-injection guard). JSON columns hold JSON text; amounts are exact decimals.",
  security: security.jwt,
  middleware: [requireAuth("jwt")] as const,
  request: { query: UsageExportQuery },
  responses: { 200: { description: "CSV with a header row", content: { "text/csv": { schema: z.string() } } }, ...auditErrorResponses },
});

const one = createRoute({
  method: "get",
  path: "/auth/usage/history/v2/{event_id}",
  tags: TAGS,
  summary: "One usage event, with its audit details (JWT)",
  security: security.jwt,
  middleware: [requireAuth("jwt")] as const,
  request: {
    params: z.object({ event_id: z.guid().openapi({ description: "Usage event id (UUID)" }) }),
    query: z.object({ account_id: UsageListQuery.shape.account_id }),
  },
  responses: { 200: json("The usage event", apiResponse(UsageEventItemSchema, "UsageEventResponse")), ...auditErrorResponses },
});

export function registerUsageHistory(app: ApiApp) {
  // Static paths first: `/summary` and `/export` must not be taken for an {event_id}.
  app.openapi(list, async (c) => {
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

  app.openapi(feed, async (c) => {
    const q = c.req.valid("query");
    const filters = usageFilters(q);
    const data = await auditRead(c, { accountId: q.account_id, owners: ownersOfFocus(c.env.db, filters) }, (accountId) =>
      usageFeed(c.env.db, accountId, { startDate: q.start_date, endDate: q.end_date, tz: q.tz, filters, cursor: q.cursor, pageSize: q.page_size }),
    );
    return apiOk(c, data);
  });

  app.openapi(exportCsv, async (c) => {
    const q = c.req.valid("query");
    const filters = usageFilters(q);
    const open = await auditRead(c, { accountId: q.account_id, owners: ownersOfFocus(c.env.db, filters) }, (accountId) =>
      exportUsageCsv(c.env.db, accountId, { startDate: q.start_date, endDate: q.end_date, tz: q.tz, filters, includeDetails: q.include_details }),
    );
    return c.body(open(), 200, csvHeaders("usage-events")) as never;
  });

  app.openapi(one, async (c) => {
    const { event_id: id } = c.req.valid("param");
    const { account_id } = c.req.valid("query");
    return apiOk(c, await auditRead(c, { accountId: account_id, owners: ownersOfEvent(c.env.db, id) }, (accountId) => getUsageEvent(c.env.db, accountId, id)));
  });
}
