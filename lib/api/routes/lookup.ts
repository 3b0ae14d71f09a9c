// GET /api/v1/auth/lookup?id= — any id to one reconciled timeline (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { ownersOfAnyId } from "../../audit/access";
import { lookupId } from "../../audit/lookup";
import { LookupQuery } from "../../audit/query-schemas";
import { EXTENSION, auditErrorResponses, auditRead } from "../audit-route-support";
import { LookupSchema } from "../../audit/schemas";

const route = createRoute({
  method: "get",
  path: "/auth/lookup",
  operationId: "lookupId",
  tags: ["Usage audit"],
  summary: "Resolve any id to its timeline and reconciliation verdict (JWT)",
  description:
    `${EXTENSION} Accepts an execution_id, search_id, usage event id, ledger entry id or session_id and returns everything around it: ` +
    "the search and its Inspect events, each Call (execution row, usage event, ledger rows, balance change) with a reconciliation " +
    "verdict naming any missing link, a time-ordered timeline, and an overall verdict. The dashboard's Executions page reads it.",
  request: { query: LookupQuery },
  responses: {
    200: { description: "The timeline", content: { "application/json": { schema: apiResponse(LookupSchema, "LookupResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerLookup(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    return apiOk(c, await auditRead(c, { accountId: q.account_id, owners: ownersOfAnyId(c.env.db, q.id) }, (accountId) => lookupId(c.env.db, accountId, q.id)));
  });
}
