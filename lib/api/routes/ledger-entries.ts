// GET /api/v1/auth/credits/ledger (+ /export, /{entry_id}) — the credits ledger
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { requireAuth } from "../../http/auth";
import { apiOk } from "../../http/responses";
import { apiResponse, security } from "../../http/schemas";
import { ownersOfLedgerEntry } from "../../audit/access";
import { exportLedgerCsv } from "../../audit/exports";
import { getLedgerEntry, listLedgerEntries } from "../../audit/ledger-history";
import { LedgerExportQuery, LedgerListQuery, ledgerFilters } from "../../audit/query-schemas";
import { auditErrorResponses, auditRead, csvHeaders } from "../../audit/route-support";
import { LedgerItemSchema, LedgerListSchema } from "../../audit/schemas";
import { parseBucket } from "../../audit/time-window";

const TAGS = ["Credits ledger"];

const list = createRoute({
  method: "get",
  path: "/auth/credits/ledger",
  tags: TAGS,
  summary: "Ledger rows, newest first, with the matching total and an optional summary (JWT)",
  description:
    "Contract 4.3. `min_credits`/`max_credits` bound the absolute amount. `summary=true` adds the 2.7 ledger summary (last 24 hours without dates). " +
    "Extension: `tz` (IANA zone) sets bucket boundaries and is echoed in the summary; `scope=all` selects every entry type.",
  security: security.jwt,
  middleware: [requireAuth("jwt")] as const,
  request: { query: LedgerListQuery },
  responses: {
    200: { description: "A page of ledger rows", content: { "application/json": { schema: apiResponse(LedgerListSchema, "LedgerListResponse") } } },
    ...auditErrorResponses,
  },
});

const exportCsv = createRoute({
  method: "get",
  path: "/auth/credits/ledger/export",
  tags: TAGS,
  summary: "Ledger rows as CSV, streamed (JWT)",
  description:
    "`scope` defaults to account_history. Also accepts the list's entry_type, direction and credit bounds. Newest first, streamed in keyset " +
    "batches with constant memory; amounts are exact decimals; text cells starting with = + - @ TAB or CR are prefixed with a single quote.",
  security: security.jwt,
  middleware: [requireAuth("jwt")] as const,
  request: { query: LedgerExportQuery },
  responses: { 200: { description: "CSV with a header row", content: { "text/csv": { schema: z.string() } } }, ...auditErrorResponses },
});

const one = createRoute({
  method: "get",
  path: "/auth/credits/ledger/{entry_id}",
  tags: TAGS,
  summary: "One ledger row (JWT)",
  security: security.jwt,
  middleware: [requireAuth("jwt")] as const,
  request: {
    params: z.object({ entry_id: z.string().min(1).max(200) }),
    query: z.object({ account_id: LedgerListQuery.shape.account_id }),
  },
  responses: {
    200: { description: "The ledger row", content: { "application/json": { schema: apiResponse(LedgerItemSchema, "LedgerItemResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerLedgerEntries(app: ApiApp) {
  app.openapi(list, async (c) => {
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

  app.openapi(exportCsv, async (c) => {
    const q = c.req.valid("query");
    const filters = ledgerFilters({ ...q, scope: q.scope ?? "account_history" });
    const open = await auditRead(c, { accountId: q.account_id }, (accountId) =>
      exportLedgerCsv(c.env.db, accountId, { startDate: q.start_date, endDate: q.end_date, tz: q.tz, filters }),
    );
    return c.body(open(), 200, csvHeaders("credits-ledger")) as never;
  });

  app.openapi(one, async (c) => {
    const { entry_id: id } = c.req.valid("param");
    const { account_id } = c.req.valid("query");
    return apiOk(c, await auditRead(c, { accountId: account_id, owners: ownersOfLedgerEntry(c.env.db, id) }, (accountId) => getLedgerEntry(c.env.db, accountId, id)));
  });
}
