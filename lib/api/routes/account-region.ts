// PUT /api/v1/auth/account/region — where the account calls from (owner; extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { RegionSchema } from "../../catalog/manifest";
import { accountRegion, setAccountRegion } from "../../accounts/region";
import { requestActor } from "../request-actor";

const RegionBody = z.object({ region: RegionSchema.nullable().openapi({ description: "A region code (`eu`, `us`, `cn`); null: none" }) }).strict().openapi("AccountRegionRequest");
export const RegionAnswer = z.object({ account_id: z.string(), region: z.string().nullable() }).openapi("AccountRegion");

const route = createRoute({
  method: "put",
  path: "/auth/account/region",
  operationId: "setAccountRegion",
  tags: ["Members"],
  summary: "Set the account's region: tools that declare regions answer region_restricted to accounts elsewhere (JWT, owner)",
  description: "Extension (not in the published contract). The caller's region is its account's, set here or by the operator (`npm run cli -- accounts region`); see docs/connections.md.",
  request: { body: { content: { "application/json": { schema: RegionBody } }, required: true } },
  responses: {
    200: { description: "The account's region", content: { "application/json": { schema: apiResponse(RegionAnswer, "AccountRegionResponse") } } },
    ...accountErrorResponses,
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/auth/account/region",
  operationId: "getAccountRegion",
  tags: ["Members"],
  summary: "The account's region, which tools that declare regions are called from; null when none is set (JWT)",
  description: "Extension (not in the published contract); see docs/connections.md, Region.",
  responses: {
    200: { description: "The account's region", content: { "application/json": { schema: apiResponse(RegionAnswer, "AccountRegionReadResponse") } } },
    ...accountErrorResponses,
  },
});

export function registerAccountRegion(app: ApiApp) {
  app.openapi(getRoute, async (c) => {
    const accountId = c.get("auth").accountId;
    return apiOk(c, { account_id: accountId, region: await accountRegion(c.env.db, accountId) });
  });
  app.openapi(route, async (c) => {
    const { region } = c.req.valid("json");
    return apiOk(c, await setAccountRegion(c.env.db, c.get("auth").accountId, region, await requestActor(c)));
  });
}
