// GET /api/v1/auth/usage/credits-spent — credits spent in a range, one aggregate
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { CreditsSpentQuery } from "../../audit/query-schemas";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { CreditsSpentSchema } from "../../audit/schemas";
import { creditsSpent } from "../../audit/usage-history";

const route = createRoute({
  method: "get",
  path: "/auth/usage/credits-spent",
  operationId: "getCreditsSpent",
  tags: ["Usage audit"],
  summary: "Total credits spent in a range, as one aggregate (JWT)",
  description:
    "Sum of actual_amount_credits of the account's usage events in the range (all history without dates), optionally by kind and charge_outcome. " +
    "Computed by a single aggregate (sealed hourly rollups plus the raw remainder), never limited by pagination.",
  request: { query: CreditsSpentQuery },
  responses: {
    200: { description: "Credits spent", content: { "application/json": { schema: apiResponse(CreditsSpentSchema, "CreditsSpentResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerUsageCreditsSpent(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const data = await auditRead(c, { accountId: q.account_id }, (accountId) =>
      creditsSpent(c.env.db, accountId, { startDate: q.start_date, endDate: q.end_date, tz: q.tz, kind: q.kind, chargeOutcome: q.charge_outcome }),
    );
    return apiOk(c, data);
  });
}
