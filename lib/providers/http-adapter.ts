import { logger } from "../log";
import http from "node:http";
import https from "node:https";
import { privateUpstreamAllowList } from "../env";
import type { HttpExecution, HttpStyle } from "../catalog/manifest";
import { own, setOwn } from "../own";
import { appendQuery, headerParam, operationPath, UnsendableValue, wireName } from "./http-serialize";
import { chosenBodyType, encodeBody } from "./http-body";
import { applyCredentials, chooseCredentials } from "./http-credentials";
import { FileValueError } from "./http-files";
import { agentFor, outboundAgents, PrivateAddressError } from "./ssrf-guard";
import { isEmptyData, type CallConnection, type ProviderAdapter, type ProviderOutcome, type ToolTarget } from "./types";

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

/** A Call that must not be sent (a credential unset, a file that cannot be had): its outcome, nothing sent. */
export class RequestNotSent extends Error {
  constructor(
    readonly reasonCode: "provider.error" | "validation_error" | "oauth_signin_required",
    message: string,
  ) {
    super(message);
  }
}

export interface HttpRequest {
  url: URL;
  method: string;
  body?: Buffer | string;
  headers: Record<string, string>;
  resultPath?: string;
  emptySuccess?: string[];
}

/**
 * The request a Call sends: the operation's server (its own `base_url`, else the provider's), path
 * placeholders replaced, query, header and cookie parameters serialized as the mapping's styles
 * say, the body in the media type chosen (see `encodeBody`; the `content_type_param` picks it and
 * is never sent), and the credentials `chooseCredentials` picks. Throws `RequestNotSent`.
 */
export async function buildRequest(target: ToolTarget, parameters: Record<string, unknown>, deadline = Date.now() + target.timeoutMs, connection?: CallConnection): Promise<HttpRequest> {
  const mapping = target.execution as unknown as HttpExecution;
  const credentials = chooseCredentials(mapping.security, target.auth, connection);
  if (!credentials.ok) throw new RequestNotSent(credentials.signin ? "oauth_signin_required" : "provider.error", `${credentials.message}; nothing was sent`);
  const wire = (name: string) => wireName(mapping, name);
  const used = new Set<string>(mapping.content_type_param === undefined ? [] : [mapping.content_type_param]);
  const headers: Record<string, string> = { accept: "application/json", "user-agent": "tollgate/1" };
  let url: URL;
  try {
    url = new URL(`${(mapping.base_url ?? target.baseUrl ?? "").replace(/\/$/, "")}${operationPath(mapping, parameters, used)}`);
    for (const name of mapping.headers ?? []) {
      used.add(name);
      const line = headerParam(mapping, parameters, name);
      if (line) setOwn(headers, line[0], line[1]);
    }
  } catch (err) {
    if (err instanceof UnsendableValue) throw new RequestNotSent("validation_error", `${err.message}; nothing was sent`);
    throw err;
  }
  for (const name of mapping.query ?? []) {
    used.add(name);
    const value = own(parameters, name);
    if (value !== undefined) appendQuery(url.searchParams, wire(name), value, own(mapping.styles, name));
  }
  const cookies: string[] = [];
  for (const name of mapping.cookies ?? []) {
    used.add(name);
    const value = own(parameters, name);
    if (value !== undefined) cookies.push(...cookiePairs(wire(name), value, own(mapping.styles, name)));
  }
  let encoded;
  try {
    encoded = await encodeBody({
      mapping,
      type: chosenBodyType(mapping, parameters),
      fields: Object.entries(parameters).filter(([k, v]) => !used.has(k) && v !== undefined),
      wire,
      deadline,
      budget: { used: 0 },
    });
  } catch (err) {
    if (err instanceof FileValueError) throw new RequestNotSent("validation_error", `${err.message}; nothing was sent`);
    throw err;
  }
  if (encoded.contentType !== undefined) headers["content-type"] = encoded.contentType;
  applyCredentials(credentials.credentials, url, headers, cookies);
  if (cookies.length) headers.cookie = cookies.join("; ");
  return { url, method: mapping.method.toUpperCase(), body: encoded.body, headers, resultPath: mapping.result_path, emptySuccess: mapping.empty_success };
}

/**
 * A cookie parameter's pairs (OpenAPI style `form`, exploded by default: an array is one pair per
 * item, an object one per property; not exploded, comma-joined). Names and values are
 * percent-encoded, as a cookie may not hold `;`, `,`, `=` or spaces: an exploded object's keys are
 * the caller's, and must not add pairs of their own.
 */
function cookiePairs(name: string, value: unknown, style: HttpStyle = { style: "form", explode: true }): string[] {
  const pairs = new URLSearchParams();
  appendQuery(pairs, name, value, style);
  return [...pairs].map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
}

function pick(data: unknown, path: string | undefined): unknown {
  if (!path) return data;
  let current = data;
  for (const key of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = own(current as Record<string, unknown>, key);
  }
  return current;
}

/**
 * Sends the request within the tool's `timeout_ms`. An idempotent request that fails on a reused
 * keep-alive connection before any answer (the server closed it as it was sent: ECONNRESET / EPIPE)
 * is sent once more on a new connection, as Node's documentation advises; another method's failure
 * stands (the upstream may have acted on it), and the Call records `transport.no_response`.
 */
interface UpstreamAnswer {
  status: number;
  body: Buffer;
  location?: string;
}

function send(target: ToolTarget, req: HttpRequest, deadline: number): Promise<UpstreamAnswer> {
  return sendOnce(target, req, deadline, IDEMPOTENT.has(req.method));
}

function sendOnce(target: ToolTarget, req: HttpRequest, deadline: number, mayRetry: boolean): Promise<UpstreamAnswer> {
  const allowPrivate = target.allowPrivateNetwork || privateUpstreamAllowList().has(target.providerId);
  const agent = agentFor(allowPrivate ? agents.open : agents.guarded, req.url);
  return new Promise((resolve, reject) => {
    const request = (req.url.protocol === "https:" ? https : http).request(req.url, { method: req.method, headers: req.headers, agent });
    const timer = setTimeout(() => request.destroy(new UpstreamTimeout(`No provider response within ${target.timeoutMs} ms`)), Math.max(0, deadline - Date.now()));
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
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), location: res.headers.location });
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

/** Whether `status` is one the operation declares without content (`201`, `204`, or `2XX` for any 2xx). */
function declaredEmpty(status: number, declared: string[] | undefined): boolean {
  return declared?.some((d) => d === String(status) || (d === "2XX" && status >= 200 && status < 300)) ?? false;
}

/**
 * Classifies every upstream answer or failure into a contract reason code (section 7). An answer
 * without a body is `result.valid` when the operation declares its status without content (a write
 * that succeeded: the data says the status and the `Location` given), else `result.empty`.
 */
export function classifyResponse(status: number, body: Buffer, resultPath?: string, empty?: { declared?: string[]; location?: string }): ProviderOutcome {
  if (status === 429) return { reasonCode: "provider.rate_limited", data: {}, httpStatus: status, errorMessage: `Provider rate-limited the request (HTTP 429)${snippet(body)}` };
  if (status === 401 || status === 403) {
    return { reasonCode: "provider.auth_or_permission", data: {}, httpStatus: status, errorMessage: `Provider rejected authentication or permission (HTTP ${status})${snippet(body)}` };
  }
  if (status < 200 || status >= 300) return { reasonCode: "provider.http_error", data: {}, httpStatus: status, errorMessage: `Provider returned HTTP ${status}${snippet(body)}` };
  if (body.length === 0) {
    if (declaredEmpty(status, empty?.declared)) return { reasonCode: "result.valid", data: { status, ...(empty?.location ? { location: empty.location } : {}) }, httpStatus: status };
    return { reasonCode: "result.empty", data: {}, httpStatus: status, errorMessage: "Provider responded without data" };
  }
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
  async execute(target, parameters, context) {
    const deadline = Date.now() + target.timeoutMs;
    let connection = context?.connection;
    let req: HttpRequest;
    try {
      req = await buildRequest(target, parameters, deadline, connection);
    } catch (err) {
      if (err instanceof RequestNotSent) return { reasonCode: err.reasonCode, data: {}, errorMessage: err.message };
      throw err;
    }
    try {
      let answer = await send(target, req, deadline);
      // A 401 to the caller's OAuth token: refreshed once and sent again (the provider did not act on a
      // request it refused to authenticate). A refresh the provider refuses leaves the user to connect again.
      if (answer.status === 401 && connection?.refreshAfterUnauthorized) {
        const renewed = await connection.refreshAfterUnauthorized();
        if (renewed === "needs_reauth") {
          return { reasonCode: "oauth_signin_required", data: {}, httpStatus: 401, errorMessage: "The provider no longer accepts your connection and would not renew it: connect again" };
        }
        if (renewed) {
          connection = { ...connection, secret: renewed.token, refreshAfterUnauthorized: undefined };
          req = await buildRequest(target, parameters, deadline, connection);
          answer = await send(target, req, deadline);
        }
      }
      const { status, body, location } = answer;
      return classifyResponse(status, body, req.resultPath, { declared: req.emptySuccess, location });
    } catch (err) {
      if (err instanceof UpstreamTimeout) return { reasonCode: "transport.timeout", data: {}, errorMessage: err.message };
      if (err instanceof UpstreamTooLarge) return { reasonCode: "transport.execution_failed", data: {}, errorMessage: err.message };
      if (err instanceof PrivateAddressError) {
        logger.info({ provider_id: target.providerId, refused: err.detail }, "outbound connection refused");
        return { reasonCode: "transport.execution_failed", data: {}, errorMessage: err.message };
      }
      const code = (err as NodeJS.ErrnoException).code;
      return { reasonCode: "transport.no_response", data: {}, errorMessage: `Provider response could not be obtained${code ? ` (${code})` : ""}: ${(err as Error).message}` };
    }
  },
};
