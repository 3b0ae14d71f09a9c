// GET /api/v1/auth/credits/ledger/export — ledger rows as CSV, streamed
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { exportLedgerCsv } from "../../audit/exports";
import { LedgerExportQuery, ledgerFilters } from "../../audit/query-schemas";
import { auditErrorResponses, auditRead, csvHeaders } from "../audit-route-support";

const route = createRoute({
  method: "get",
  path: "/auth/credits/ledger/export",
  operationId: "exportLedgerEntries",
  tags: ["Credits ledger"],
  summary: "Ledger rows as CSV, streamed (JWT)",
  description:
    "`scope` defaults to account_history. Also accepts the list's entry_type, direction and credit bounds. Newest first, streamed with " +
    "constant memory; amounts are exact decimals; text cells starting with = + - @ TAB or CR are prefixed with a single quote.",
  request: { query: LedgerExportQuery },
  responses: { 200: { description: "CSV with a header row", content: { "text/csv": { schema: z.string() } } }, ...auditErrorResponses },
});

export function registerLedgerEntriesExport(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const filters = ledgerFilters({ ...q, scope: q.scope ?? "account_history" });
    const open = await auditRead(c, { accountId: q.account_id }, (accountId) =>
      exportLedgerCsv(c.env.db, accountId, { startDate: q.start_date, endDate: q.end_date, tz: q.tz, filters }),
    );
    return c.body(open(), 200, csvHeaders("credits-ledger")) as never;
  });
}
