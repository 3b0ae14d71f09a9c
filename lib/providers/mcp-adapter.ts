import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { logger } from "../log";
import { privateUpstreamAllowList } from "../env";
import { lazySdk } from "../lazy-sdk";
import { outboundFetch } from "./outbound-fetch";
import { PrivateAddressError } from "./ssrf-guard";
import { isEmptyData, type ProviderAdapter, type ProviderOutcome, type ToolTarget } from "./types";

/**
 * A provider that is a remote MCP server (Streamable HTTP). One client per server URL (and
 * private-network permission) is kept open and reused; a broken connection is dropped and
 * re-opened on the next call.
 */
const clients = new Map<string, Promise<Client>>();

/** The MCP SDK's client, loaded for the first MCP provider called or listed. */
const mcpSdk = lazySdk(async () => ({
  ...(await import("@modelcontextprotocol/sdk/client/index.js")),
  ...(await import("@modelcontextprotocol/sdk/client/streamableHttp.js")),
  ...(await import("@modelcontextprotocol/sdk/types.js")),
}));

/**
 * An McpError's kind: a JSON-RPC error answered by a reachable server (unknown tool, invalid
 * arguments), the request's timeout, or the connection closed; undefined for any other error (an
 * error can be an McpError only once the SDK has loaded).
 */
function mcpErrorKind(err: unknown): "answered" | "timeout" | "closed" | undefined {
  const sdk = mcpSdk.loaded();
  if (!sdk || !(err instanceof sdk.McpError)) return undefined;
  if (err.code === sdk.ErrorCode.RequestTimeout) return "timeout";
  return err.code === sdk.ErrorCode.ConnectionClosed ? "closed" : "answered";
}

/**
 * The SDK's transport makes its requests with our fetch: the SSRF guard checks each connection as
 * it is made (a private or loopback server is refused unless `allowPrivateNetwork`).
 */
async function connect(url: string, allowPrivateNetwork: boolean, options?: { signal?: AbortSignal }): Promise<Client> {
  const { Client, StreamableHTTPClientTransport } = await mcpSdk();
  const client = new Client({ name: "tollgate", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: outboundFetch({ allowPrivateNetwork }) }), options);
  return client;
}

/** Forgets a client after a failure and closes it, so its session and sockets do not linger. */
function dropClient(key: string): void {
  const c = clients.get(key);
  clients.delete(key);
  c?.then((client) => client.close()).catch(() => undefined);
}

function mcpClient(key: string, url: string, allowPrivateNetwork: boolean): Promise<Client> {
  let c = clients.get(key);
  if (!c) {
    c = connect(url, allowPrivateNetwork);
    clients.set(key, c);
    c.catch(() => clients.delete(key));
  }
  return c;
}

export interface McpToolDescription {
  name: string;
  description?: string;
  inputSchema: { type?: string; properties?: Record<string, unknown>; required?: string[] };
}

/**
 * Lists a server's tools (`providers import --mcp URL`, live Inspect schemas). A private or
 * loopback server is refused unless `allowPrivateNetwork` (the SSRF guard applies here as to the
 * Calls). `signal` bounds the whole exchange; a fresh connection is opened and closed each time.
 */
export async function listMcpTools(url: string, options: { allowPrivateNetwork?: boolean; signal?: AbortSignal } = {}): Promise<McpToolDescription[]> {
  const request = { signal: options.signal };
  const client = await connect(url, options.allowPrivateNetwork === true, request);
  try {
    const out: McpToolDescription[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, request);
      out.push(...(page.tools as McpToolDescription[]));
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  } finally {
    await client.close();
  }
}

class Timeout extends Error {}

interface McpContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}
interface McpToolResult {
  content?: McpContentBlock[];
  structuredContent?: unknown;
}

/**
 * An MCP tool's answer as a Call's data, dropping nothing the tool returned: its structured content
 * when it gives one (the SDK client checks it against the tool's outputSchema); a lone text block
 * as its JSON (or `{text}`); only text blocks as `{texts}`; otherwise `{content}` with every block
 * as the tool sent it — images and audio with their mimeType and base64 data, resource links,
 * embedded resources. A large answer goes through the truncation path and its signed URL like any
 * other result.
 */
export function mcpResultData(result: McpToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const content = result.content ?? [];
  const texts = content.filter((c) => c.type === "text").map((c) => c.text ?? "");
  if (content.length === 1 && texts.length === 1) {
    try {
      return JSON.parse(texts[0]);
    } catch {
      return { text: texts[0] };
    }
  }
  if (content.length > 0 && texts.length === content.length) return { texts };
  return content.length ? { content } : {};
}

export const mcpAdapter: ProviderAdapter = {
  async execute(target: ToolTarget, parameters): Promise<ProviderOutcome> {
    const url = target.baseUrl ?? "";
    const name = String(target.execution.mcp_tool ?? "");
    const allowPrivateNetwork = target.allowPrivateNetwork || privateUpstreamAllowList().has(target.providerId);
    const key = `${allowPrivateNetwork ? "open" : "guarded"} ${url}`;
    let timer: NodeJS.Timeout | undefined;
    try {
      const client = await mcpClient(key, url, allowPrivateNetwork);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Timeout(`No MCP response within ${target.timeoutMs} ms`)), target.timeoutMs);
      });
      const result = await Promise.race([client.callTool({ name, arguments: parameters }, undefined, { timeout: target.timeoutMs + 1_000 }), timeout]);
      const texts = ((result.content ?? []) as McpContentBlock[]).filter((c) => c.type === "text").map((c) => c.text ?? "");
      const data = mcpResultData(result as McpToolResult);
      if (result.isError) return { reasonCode: "provider.error", data: {}, errorMessage: `MCP tool error: ${texts.join(" ").slice(0, 300) || "unknown error"}` };
      if (isEmptyData(data)) return { reasonCode: "result.empty", data: {}, errorMessage: "MCP tool returned no content" };
      return { reasonCode: "result.valid", data };
    } catch (err) {
      if (err instanceof PrivateAddressError) {
        logger.info({ provider_id: target.providerId, refused: err.detail }, "outbound connection refused");
        return { reasonCode: "transport.execution_failed", data: {}, errorMessage: err.message };
      }
      // A JSON-RPC error answered by a reachable server (unknown tool, invalid arguments) is the provider's.
      const kind = mcpErrorKind(err);
      if (kind === "answered") {
        const { code, message } = err as { code: number; message: string };
        return { reasonCode: "provider.error", data: {}, errorMessage: `MCP error ${code}: ${message.slice(0, 300)}` };
      }
      dropClient(key);
      if (err instanceof Timeout || kind === "timeout") return { reasonCode: "transport.timeout", data: {}, errorMessage: (err as Error).message };
      return { reasonCode: "transport.no_response", data: {}, errorMessage: `MCP server could not be reached: ${(err as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
  },
};
