// GET /api/v1/auth/credits/ledger — ledger rows, with the matching total and an optional summary
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { listLedgerEntries } from "../../audit/ledger-history";
import { LedgerListQuery, ledgerFilters } from "../../audit/query-schemas";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { LedgerListSchema } from "../../audit/schemas";
import { parseBucket } from "../../audit/time-window";

const route = createRoute({
  method: "get",
  path: "/auth/credits/ledger",
  operationId: "listLedgerEntries",
  tags: ["Credits ledger"],
  summary: "Ledger rows, newest first, with the matching total and an optional summary (JWT)",
  description:
    "Contract 4.3. `min_credits`/`max_credits` bound the absolute amount. `summary=true` adds the 2.7 ledger summary (last 24 hours without dates). " +
    "Extension: `tz` (IANA zone) sets bucket boundaries and is echoed in the summary; `scope=all` selects every entry type.",
  request: { query: LedgerListQuery },
  responses: {
    200: { description: "A page of ledger rows", content: { "application/json": { schema: apiResponse(LedgerListSchema, "LedgerListResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerLedgerEntriesList(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const filters = ledgerFilters(q);
    const bucket = parseBucket(q.bucket);
    const data = await auditRead(c, { accountId: q.account_id }, (accountId) =>
      listLedgerEntries(c.env.db, accountId, {
        startDate: q.start_date,
        endDate: q.end_date,
        tz: q.tz,
        filters,
        page: q.page,
        pageSize: q.page_size,
        limit: q.limit,
        summary: q.summary,
        bucket,
      }),
    );
    return apiOk(c, data);
  });
}
