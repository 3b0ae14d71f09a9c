// GET /.well-known/oauth-authorization-server — RFC 8414 authorization server metadata
import type { Context } from "hono";
import type { ApiApp } from "../../http/context";
import { authorizationServerMetadata } from "../../oauth/metadata";
import { AuthorizationServerMetadataSchema, jsonContent } from "./oauth-schemas";

export const OAUTH_METADATA_PATH = "/.well-known/oauth-authorization-server";

/** Served by the root app (outside `/api/v1`), where RFC 8414 puts it for an issuer without a path. */
export function oauthMetadataHandler(c: Context) {
  c.header("Cache-Control", "public, max-age=300");
  return c.json(authorizationServerMetadata(), 200);
}

/** Publishes the operation in the OpenAPI description (its server is the site root, not `/api/v1`). */
export function registerOAuthMetadata(app: ApiApp) {
  app.openAPIRegistry.registerPath({
    method: "get",
    path: OAUTH_METADATA_PATH,
    operationId: "getAuthorizationServerMetadata",
    servers: [{ url: "/" }],
    tags: ["OAuth"],
    summary: "Authorization server metadata (RFC 8414); its jwks_uri is /.well-known/jwks.json",
    responses: { 200: jsonContent(AuthorizationServerMetadataSchema, "Metadata") },
  });
}
