import type { Context } from "hono";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { AuthContext } from "../auth/auth-context";
import type { ApiEnv } from "../http/context";
import { buildDirectMcpServer } from "./direct-mcp-server";
import { buildMcpServer, mcpCaller } from "./tollgate-mcp-server";

/**
 * Answers one authenticated JSON-RPC message: a server of the mode's tools (`meta`: discover,
 * inspect, probe, call; `direct`: the catalog's tools, of `source` only when given) connected to
 * a stateless transport — no session to keep, so any instance answers any request; JSON
 * responses, no SSE stream. The route loads this module, and with it the MCP SDK, on the first
 * MCP request (lib/lazy-sdk.ts).
 */
export async function answerMcp(c: Context<ApiEnv>, auth: AuthContext, mode: "meta" | "direct", source: string | undefined): Promise<Response> {
  const server = mode === "direct" ? buildDirectMcpServer(c, auth, mcpCaller(auth), source) : buildMcpServer(c, auth);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(c.req.raw);
  } finally {
    void server.close();
  }
}
