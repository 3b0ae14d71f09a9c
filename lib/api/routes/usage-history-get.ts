// GET /api/v1/auth/usage/history/v2/{event_id} — one usage event with its audit details
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { ownersOfEvent } from "../../audit/access";
import { UsageListQuery } from "../../audit/query-schemas";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { UsageEventItemSchema } from "../../audit/schemas";
import { getUsageEvent } from "../../audit/usage-history";

const route = createRoute({
  method: "get",
  path: "/auth/usage/history/v2/{event_id}",
  operationId: "getUsageEvent",
  tags: ["Usage audit"],
  summary: "One usage event, with its audit details (JWT)",
  request: {
    params: z.object({ event_id: z.guid().openapi({ description: "Usage event id (UUID)" }) }),
    query: z.object({ account_id: UsageListQuery.shape.account_id }),
  },
  responses: {
    200: { description: "The usage event", content: { "application/json": { schema: apiResponse(UsageEventItemSchema, "UsageEventResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerUsageHistoryGet(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { event_id: id } = c.req.valid("param");
    const { account_id } = c.req.valid("query");
    return apiOk(c, await auditRead(c, { accountId: account_id, owners: ownersOfEvent(c.env.db, id) }, (accountId) => getUsageEvent(c.env.db, accountId, id)));
  });
}
