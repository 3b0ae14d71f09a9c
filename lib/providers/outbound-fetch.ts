import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import { agentFor, outboundAgents } from "./ssrf-guard";

export type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

const agents = outboundAgents({ keepAlive: true, maxSockets: 64, timeout: 30_000 });

/** Statuses whose response has no body (Response refuses one). */
const NULL_BODY = new Set([204, 205, 304]);

/**
 * A `fetch` for clients that open their own connections (the MCP SDK's transport), sent through
 * our agents so that every connection is checked as it is made — a host that resolves differently
 * on the next request, or the next hop of a redirect the SDK follows. It never follows a redirect
 * itself: a 3xx is returned as `redirect: "manual"` would (the SDK follows same-origin ones by
 * calling this again).
 */
export function outboundFetch(options: { allowPrivateNetwork: boolean }): Fetch {
  const pool = options.allowPrivateNetwork ? agents.open : agents.guarded;
  return async (input, init) => {
    const request = new Request(input, init);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const url = new URL(request.url);
    return send(url, request, body, agentFor(pool, url));
  };
}

function send(url: URL, request: Request, body: Buffer | undefined, agent: http.Agent): Promise<Response> {
  const signal = request.signal;
  const headers: Record<string, string> = { "user-agent": "tollgate/1", ...Object.fromEntries(request.headers) };
  if (body) headers["content-length"] = String(body.length);
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const outgoing = (url.protocol === "https:" ? https : http).request(url, { method: request.method, headers, agent });
    // Aborting also ends a response still streaming (an SSE stream the SDK closes).
    const abort = () => outgoing.destroy(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    signal.addEventListener("abort", abort, { once: true });
    outgoing.on("close", () => signal.removeEventListener("abort", abort));
    outgoing.on("error", reject);
    outgoing.on("response", (res) => {
      const status = res.statusCode ?? 0;
      const responseHeaders = new Headers();
      for (let i = 0; i < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
      const empty = request.method === "HEAD" || NULL_BODY.has(status);
      if (empty) res.resume();
      try {
        resolve(new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, statusText: res.statusMessage, headers: responseHeaders }));
      } catch (err) {
        // A status fetch cannot represent (outside 200-599).
        res.destroy();
        reject(err);
      }
    });
    outgoing.end(body);
  });
}
