// GET /api/v1/auth/credits/ledger/{entry_id} — one ledger row
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { ownersOfLedgerEntry } from "../../audit/access";
import { getLedgerEntry } from "../../audit/ledger-history";
import { LedgerListQuery } from "../../audit/query-schemas";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { LedgerItemSchema } from "../../audit/schemas";

const route = createRoute({
  method: "get",
  path: "/auth/credits/ledger/{entry_id}",
  operationId: "getLedgerEntry",
  tags: ["Credits ledger"],
  summary: "One ledger row (JWT)",
  request: {
    params: z.object({ entry_id: z.string().min(1).max(200) }),
    query: z.object({ account_id: LedgerListQuery.shape.account_id }),
  },
  responses: {
    200: { description: "The ledger row", content: { "application/json": { schema: apiResponse(LedgerItemSchema, "LedgerItemResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerLedgerEntriesGet(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { entry_id: id } = c.req.valid("param");
    const { account_id } = c.req.valid("query");
    return apiOk(c, await auditRead(c, { accountId: account_id, owners: ownersOfLedgerEntry(c.env.db, id) }, (accountId) => getLedgerEntry(c.env.db, accountId, id)));
  });
}
