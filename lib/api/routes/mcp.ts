// POST/GET/DELETE /api/v1/mcp — Tollgate as an MCP server (Streamable HTTP, stateless), and the
// RFC 9728 protected-resource metadata MCP clients read to run the OAuth flow themselves.
import type { Context } from "hono";
import { z } from "@hono/zod-openapi";
import type { ApiApp, ApiEnv } from "../../http/context";
import type { AuthContext } from "../../auth/auth-context";
import { apiAudience, issuer } from "../../auth/issuer";
import { DomainError } from "../../errors";
import { SCOPES } from "../../oauth/scopes";
import { authenticateBearer, authorizeAccess } from "../../http/auth";
import { OPERATION_ACCESS } from "../access";
import { clientIp, consumeRateLimit } from "../../http/rate-limit";
import { publicApiError } from "../../http/responses";
import { PublicApiErrorSchema } from "../../http/schemas";
import { publicUrl } from "../../env";
import { lazySdk } from "../../lazy-sdk";
import { catalogSnapshot, readCatalogVersionAndCredits } from "../../search/catalog-index";
import { assertKnownSource } from "../../search/search-tools";

export const MCP_PATH = "/mcp";
export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";

/** Where an MCP client finds how to get a token (RFC 9728 §5.1, the `resource_metadata` parameter). */
function resourceMetadataUrl(): string {
  return `${publicUrl()}${PROTECTED_RESOURCE_PATH}`;
}

const access = OPERATION_ACCESS.mcpPost;

/** Tollgate's MCP servers and the SDK under them, loaded for the first MCP request. */
const mcpServers = lazySdk(() => import("../../mcp/answer"));

async function handleMcp(c: Context<ApiEnv>) {
  c.env.operation = `${c.req.method} ${MCP_PATH}`;
  let auth: AuthContext;
  try {
    auth = await authenticateBearer(c.env.db, c.req.header("authorization"), access.accepts);
  } catch (err) {
    if (!(err instanceof DomainError) || err.code !== "unauthorized") throw err;
    await consumeRateLimit(c, "execute", `ip:${clientIp(c)}`);
    // RFC 6750 section 3.1: no error code when the request carried no credential at all.
    const error = err.details?.challenge === "none" ? "" : `, error="invalid_token", error_description="${err.message.replaceAll('"', "'")}"`;
    c.header("WWW-Authenticate", `Bearer resource_metadata="${resourceMetadataUrl()}"${error}`);
    return publicApiError(c, 401, err.message, { guidance: "Send `Authorization: Bearer <API_KEY>` or an OAuth access token (see resource_metadata in WWW-Authenticate).", remaining_credits: null });
  }
  // Each tool checks its own scope too (discover, inspect, probe: tools:read; call: tools:execute).
  authorizeAccess(auth, access);
  c.env.accountId = auth.accountId;
  // Stateless: no server-to-client stream to open (GET) and no session to end (DELETE).
  if (c.req.method !== "POST") {
    c.header("Allow", "POST");
    return c.json({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this MCP server is stateless; send JSON-RPC messages with POST" }, id: null }, 405);
  }
  const mode = c.req.query("tools") ?? "meta";
  if (mode !== "meta" && mode !== "direct") return publicApiError(c, 400, "tools must be meta (discover, inspect, probe, call; the default) or direct (the catalog's tools)");
  const source = c.req.query("source") || undefined;
  if (mode === "direct" && source !== undefined) {
    // An unknown source is refused by name (404), not listed as a catalog without tools.
    const { version } = await readCatalogVersionAndCredits(c.env.db, auth.accountId);
    assertKnownSource(await catalogSnapshot(c.env.db, version), source);
  }
  return (await mcpServers()).answerMcp(c, auth, mode, source);
}

function protectedResourceHandler(c: Context) {
  c.header("Cache-Control", "public, max-age=300");
  return c.json(
    {
      resource: apiAudience(),
      authorization_servers: [issuer()],
      bearer_methods_supported: ["header"],
      scopes_supported: Object.keys(SCOPES),
      resource_name: "Tollgate API (REST and MCP)",
    },
    200,
  );
}

const ProtectedResourceSchema = z
  .object({
    resource: z.string(),
    authorization_servers: z.array(z.string()),
    bearer_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    resource_name: z.string(),
  })
  .openapi("ProtectedResourceMetadata");

export function registerMcp(app: ApiApp) {
  app.on(["GET", "POST", "DELETE"], MCP_PATH, handleMcp);
  const described = {
    path: MCP_PATH,
    tags: ["MCP"] as string[],
    request: {
      query: z.object({
        tools: z.enum(["meta", "direct"]).optional().openapi({ description: "`meta` (default): discover, inspect, probe, call. `direct`: the catalog's tools themselves, 100 per tools/list page" }),
        source: z.string().optional().openapi({ description: "Direct mode: only the tools imported from this catalog source (404 when no active tool comes from it)" }),
      }),
    },
    description:
      "The MCP Streamable HTTP transport (stateless; JSON responses). Tools: discover, inspect, probe, call — the Discover, Inspect, Probe and Call " +
      "operations with the same credentials, rate limits and reason codes. Errors of the contract come back as tool results with isError. docs/mcp.md.",
    responses: {
      200: { description: "A JSON-RPC response", content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } },
      401: { description: "No or bad credential; WWW-Authenticate names the protected-resource metadata", content: { "application/json": { schema: PublicApiErrorSchema } } },
      400: { description: "Not a JSON-RPC message (JSON-RPC error object)", content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } },
      404: { description: "Direct mode: `source` names no catalog source with an active tool; the message names it", content: { "application/json": { schema: PublicApiErrorSchema } } },
      405: { description: "GET and DELETE: no server-initiated stream or session in stateless mode", content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } },
      406: { description: "The client does not accept both application/json and text/event-stream (JSON-RPC error object)", content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } },
    },
  };
  app.openAPIRegistry.registerPath({ ...described, method: "post", operationId: "mcpPost", summary: "MCP: one JSON-RPC message (initialize, tools/list, tools/call, ...)" });
  app.openAPIRegistry.registerPath({ ...described, method: "get", operationId: "mcpGet", summary: "MCP: server-to-client stream (not offered: 405)" });
  app.openAPIRegistry.registerPath({ ...described, method: "delete", operationId: "mcpDelete", summary: "MCP: end a session (none in stateless mode: 405)" });
  app.openAPIRegistry.registerPath({
    method: "get",
    path: PROTECTED_RESOURCE_PATH,
    operationId: "getProtectedResourceMetadata",
    servers: [{ url: "/" }],
    tags: ["OAuth"],
    summary: "Protected resource metadata (RFC 9728): the authorization server MCP clients get tokens from",
    responses: { 200: { description: "Metadata", content: { "application/json": { schema: ProtectedResourceSchema } } } },
  });
}

/** The root app serves this at the site root (RFC 9728 §3), next to the authorization server's metadata. */
export { protectedResourceHandler };
