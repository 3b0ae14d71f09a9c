// GET /api/v1/oauth/jwks — public keys that verify access tokens (also at /.well-known/jwks.json)
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { JWKS_MAX_AGE_SECONDS, publicJwks } from "../../auth/signing-keys";
import type { ApiApp, ApiEnv } from "../../http/context";

export const JwksSchema = z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).openapi("JWKS");

const route = createRoute({
  method: "get",
  path: "/oauth/jwks",
  operationId: "getJwks",
  tags: ["OAuth"],
  summary: "JSON Web Key Set of the token signing keys",
  responses: { 200: { description: "JWKS", content: { "application/json": { schema: JwksSchema } } } },
});

/**
 * Both JWKS addresses answer with this handler: the same keys and the same max-age, which is the
 * caching that signing-key rotation waits out (`PUBLISH_BEFORE_SIGNING_MS`).
 */
export async function jwksHandler(c: Context<ApiEnv>) {
  c.header("Cache-Control", `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
  return c.json(await publicJwks(c.env.db), 200);
}

/** The root app serves the same handler at this path (the `jwks_uri` of the metadata). */
export const WELL_KNOWN_JWKS_PATH = "/.well-known/jwks.json";

export function registerJwks(app: ApiApp) {
  app.openapi(route, jwksHandler);
  // Published in the description too; its server is the site root, not `/api/v1`.
  app.openAPIRegistry.registerPath({ ...route, path: WELL_KNOWN_JWKS_PATH, operationId: "getWellKnownJwks", servers: [{ url: "/" }] });
}
