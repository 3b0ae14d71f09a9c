import http from "node:http";
import https from "node:https";
import { privateUpstreamAllowList, providerSecret } from "../env";
import type { HttpExecution } from "../catalog/manifest";
import { appendQuery, headerValue, pathValue } from "./http-serialize";
import { agentFor, outboundAgents, PrivateAddressError } from "./ssrf-guard";
import { isEmptyData, type ProviderAdapter, type ProviderOutcome, type ToolTarget } from "./types";

/** Upstream bodies beyond this are not read: the call fails rather than exhausting memory. */
export const MAX_UPSTREAM_BYTES = 10 * 1024 * 1024;

// Keep-alive pools: a Call should not pay a TCP handshake. Guarded agents check every address they
// connect to; redirects are never followed (a 3xx is the provider's answer). An idle connection is closed after IDLE_SOCKET_MS, or a second before the server's own
// `Keep-Alive: timeout=` hint (Node honours the hint only under an agent timeout): a request sent on
// a connection the server is closing fails with ECONNRESET. The timeout only closes idle sockets; a
// Call's own deadline is the tool's `timeout_ms`.
const IDLE_SOCKET_MS = 30_000;
const agents = outboundAgents({ keepAlive: true, maxSockets: 256, timeout: IDLE_SOCKET_MS });

/** Methods that may be sent twice (RFC 9110 §9.2.2): retried once when a reused connection was reset. */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

class UpstreamTimeout extends Error {}
class UpstreamTooLarge extends Error {}

/**
 * The request a Call sends: path placeholders replaced, query and header parameters serialized as
 * the mapping's styles say, the JSON body (the remaining parameters as fields under their wire
 * names, or the one `body_param` as the whole body), and the provider's credentials.
 */
export function buildRequest(target: ToolTarget, parameters: Record<string, unknown>) {
  const mapping = target.execution as unknown as HttpExecution;
  const wire = (name: string) => mapping.wire_names?.[name] ?? name;
  const used = new Set<string>();
  const path = mapping.path.replace(/\{([^{}]+)\}/g, (_, name: string) => {
    used.add(name);
    return pathValue(wire(name), parameters[name] ?? "", mapping.styles?.[name]);
  });
  const url = new URL(`${(target.baseUrl ?? "").replace(/\/$/, "")}${path}`);
  for (const name of mapping.query ?? []) {
    used.add(name);
    if (parameters[name] !== undefined) appendQuery(url.searchParams, wire(name), parameters[name], mapping.styles?.[name]);
  }
  const headers: Record<string, string> = { accept: "application/json", "user-agent": "tollgate/1" };
  for (const name of mapping.headers ?? []) {
    used.add(name);
    if (parameters[name] !== undefined) headers[wire(name).toLowerCase()] = headerValue(parameters[name], mapping.styles?.[name]);
  }
  const method = mapping.method.toUpperCase();
  const sendsBody = (mapping.body ?? (["POST", "PUT", "PATCH"].includes(method) ? "json" : "none")) === "json";
  let body: string | undefined;
  if (sendsBody && mapping.body_param !== undefined) {
    const value = parameters[mapping.body_param];
    body = value === undefined ? undefined : JSON.stringify(value);
  } else if (sendsBody) {
    body = JSON.stringify(Object.fromEntries(Object.entries(parameters).filter(([k]) => !used.has(k)).map(([k, v]) => [wire(k), v])));
  }
  if (body !== undefined) headers["content-type"] = "application/json";
  applyAuth(target.auth, url, headers);
  return { url, method, body, headers, resultPath: mapping.result_path };
}

/** The provider's credentials, read from its environment variable at each Call (never stored). */
function applyAuth(auth: ToolTarget["auth"], url: URL, headers: Record<string, string>): void {
  const secret = auth?.env ? providerSecret(auth.env) : undefined;
  if (!auth || !secret) return;
  if (auth.type === "bearer") headers.authorization = `Bearer ${secret}`;
  if (auth.type === "header" && auth.header) headers[auth.header.toLowerCase()] = secret;
  if (auth.type === "query" && auth.query) url.searchParams.set(auth.query, secret);
  // Base64 has no colon: a value with one is `user:password`, anything else is already encoded.
  if (auth.type === "basic") headers.authorization = `Basic ${secret.includes(":") ? Buffer.from(secret, "utf8").toString("base64") : secret}`;
}

function pick(data: unknown, path: string | undefined): unknown {
  if (!path) return data;
  let current = data;
  for (const key of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * Sends the request within the tool's `timeout_ms`. An idempotent request that fails on a reused
 * keep-alive connection before any answer (the server closed it as it was sent: ECONNRESET / EPIPE)
 * is sent once more on a new connection, as Node's documentation advises; another method's failure
 * stands (the upstream may have acted on it), and the Call records `transport.no_response`.
 */
function send(target: ToolTarget, req: ReturnType<typeof buildRequest>): Promise<{ status: number; body: Buffer }> {
  return sendOnce(target, req, Date.now() + target.timeoutMs, IDEMPOTENT.has(req.method));
}

function sendOnce(target: ToolTarget, req: ReturnType<typeof buildRequest>, deadline: number, mayRetry: boolean): Promise<{ status: number; body: Buffer }> {
  const allowPrivate = target.allowPrivateNetwork || privateUpstreamAllowList().has(target.providerId);
  const agent = agentFor(allowPrivate ? agents.open : agents.guarded, req.url);
  return new Promise((resolve, reject) => {
    const request = (req.url.protocol === "https:" ? https : http).request(req.url, { method: req.method, headers: req.headers, agent });
    const timer = setTimeout(() => request.destroy(new UpstreamTimeout(`No provider response within ${target.timeoutMs} ms`)), deadline - Date.now());
    let answered = false;
    request.on("response", (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_UPSTREAM_BYTES) request.destroy(new UpstreamTooLarge(`Provider response exceeds ${MAX_UPSTREAM_BYTES} bytes`));
        else chunks.push(chunk);
      });
      res.on("end", () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) });
      });
      res.on("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    request.on("error", (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const stale = request.reusedSocket && !answered && (err.code === "ECONNRESET" || err.code === "EPIPE");
      if (mayRetry && stale && Date.now() < deadline) resolve(sendOnce(target, req, deadline, false));
      else reject(err);
    });
    request.end(req.body);
  });
}

function snippet(body: Buffer): string {
  const text = body.subarray(0, 300).toString("utf8").replace(/\s+/g, " ").trim();
  return text ? `: ${text}` : "";
}

/** Classifies every upstream answer or failure into a contract reason code (section 7). */
export function classifyResponse(status: number, body: Buffer, resultPath?: string): ProviderOutcome {
  if (status === 429) return { reasonCode: "provider.rate_limited", data: {}, httpStatus: status, errorMessage: `Provider rate-limited the request (HTTP 429)${snippet(body)}` };
  if (status === 401 || status === 403) {
    return { reasonCode: "provider.auth_or_permission", data: {}, httpStatus: status, errorMessage: `Provider rejected authentication or permission (HTTP ${status})${snippet(body)}` };
  }
  if (status < 200 || status >= 300) return { reasonCode: "provider.http_error", data: {}, httpStatus: status, errorMessage: `Provider returned HTTP ${status}${snippet(body)}` };
  if (body.length === 0) return { reasonCode: "result.empty", data: {}, httpStatus: status, errorMessage: "Provider responded without data" };
  let json: unknown;
  try {
    json = JSON.parse(body.toString("utf8"));
  } catch {
    return { reasonCode: "transport.execution_failed", data: {}, httpStatus: status, errorMessage: "Provider returned a body that is not valid JSON" };
  }
  const data = pick(json, resultPath);
  if (isEmptyData(data)) return { reasonCode: "result.empty", data: {}, httpStatus: status, errorMessage: "Provider responded without usable data" };
  // A body that carries data together with an `errors` list (or `partial: true`) is a partial success.
  const envelope = json as { partial?: unknown; errors?: unknown };
  const partial = envelope && typeof envelope === "object" && (envelope.partial === true || (Array.isArray(envelope.errors) && envelope.errors.length > 0));
  return { reasonCode: partial ? "result.partial_success" : "result.valid", data, httpStatus: status };
}

export const httpAdapter: ProviderAdapter = {
  async execute(target, parameters) {
    const req = buildRequest(target, parameters);
    try {
      const { status, body } = await send(target, req);
      return classifyResponse(status, body, req.resultPath);
    } catch (err) {
      if (err instanceof UpstreamTimeout) return { reasonCode: "transport.timeout", data: {}, errorMessage: err.message };
      if (err instanceof UpstreamTooLarge) return { reasonCode: "transport.execution_failed", data: {}, errorMessage: err.message };
      if (err instanceof PrivateAddressError) return { reasonCode: "transport.execution_failed", data: {}, errorMessage: err.message };
      const code = (err as NodeJS.ErrnoException).code;
      return { reasonCode: "transport.no_response", data: {}, errorMessage: `Provider response could not be obtained${code ? ` (${code})` : ""}: ${(err as Error).message}` };
    }
  },
};
