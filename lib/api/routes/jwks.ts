// GET /api/v1/oauth/jwks — public keys that verify access tokens
import { createRoute, z } from "@hono/zod-openapi";
import { publicJwks } from "../../auth/signing-keys";
import type { ApiApp } from "../../http/context";

export const JwksSchema = z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).openapi("JWKS");

const route = createRoute({
  method: "get",
  path: "/oauth/jwks",
  tags: ["OAuth"],
  summary: "JSON Web Key Set of the token signing keys",
  security: [],
  responses: { 200: { description: "JWKS", content: { "application/json": { schema: JwksSchema } } } },
});

export function registerJwks(app: ApiApp) {
  app.openapi(route, async (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(await publicJwks(c.get("db")), 200);
  });
}
