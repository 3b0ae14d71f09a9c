import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { API_VERSION, API_VERSION_HEADER } from "../version";
import { logAccess } from "../log";
import { newRequestId } from "../ids";
import type { ApiDeps, NodeBindings, RequestBindings } from "./context";
import { msSince } from "../timing";
import { env as readEnv } from "../env";
import { observeRequest } from "../observability/metrics";
import { answerThenDrain, http1Exchange, readBodyWithin } from "./oversized-body";

const REQUEST_ID = /^[\w.:-]{8,128}$/;

type Fetch = (req: Request, env: RequestBindings) => Response | Promise<Response>;

/**
 * The API's entry point around the Hono app: every request gets its id (kept from a well-formed
 * incoming X-Request-Id, else a new time-ordered UUID), the version and request-id headers on whatever
 * response it gets (successes and errors alike, including those built by the error handler; with
 * `X-Content-Type-Options: nosniff`, so no browser reads a JSON or CSV answer as a page), the
 * db handle, one access log line, and its count and latency in the metrics (by the operation the
 * router matched; under the Node server recorded once the response is written, with the latency
 * taken when it was ready). Done here rather than as Hono middleware so a route without
 * middleware of its own runs synchronously (a fifth of the cost of a small request).
 *
 * Under the Node server the headers go onto Node's response before the handler runs; under Next's
 * route handler (`next dev`) they are added to the finished response.
 *
 * A body over `maxBodyBytes` answers 413 before anything parses it: by its Content-Length at once,
 * and a body without one (chunked) is read up to the limit. Under the Node server the 413 is
 * written at once and the rest of the body drained before the connection closes (oversized-body.ts).
 */
export function withRequestContext(fetch: Fetch, deps: ApiDeps) {
  const maxBodyBytes = deps.maxBodyBytes ?? readEnv().MAX_BODY_BYTES;
  return (req: Request, node?: NodeBindings): Response | Promise<Response> => {
    const started = performance.now();
    const incoming = node ? node.incoming.headers["x-request-id"] : req.headers.get("x-request-id");
    const requestId = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : newRequestId();
    const env: RequestBindings = { requestId, startedAt: started, db: deps.database.db, deps, incoming: node?.incoming, outgoing: node?.outgoing };
    if (node) {
      node.outgoing.setHeader("X-Request-Id", requestId);
      node.outgoing.setHeader(API_VERSION_HEADER, API_VERSION);
      node.outgoing.setHeader("X-Content-Type-Options", "nosniff");
    }
    const record = (status: number, ms: number) => {
      logAccess({ requestId, method: req.method, path: pathOf(req.url), status, ms, account: env.accountId });
      observeRequest(env.operation, status, ms / 1000);
      if (env.afterResponse) for (const task of env.afterResponse) task();
    };
    const log = (res: Response) => {
      const ms = msSince(started);
      if (!node) {
        record(res.status, ms);
        return withHeaders(res, requestId);
      }
      // The Node adapter writes the response as soon as this returns: the bookkeeping runs after it.
      setImmediate(record, res.status, ms);
      return res;
    };
    const exchange = http1Exchange(node);
    const refuse = (): Response => {
      if (!exchange) return log(new Response(tooLargeBody(maxBodyBytes), { status: 413, headers: { "Content-Type": "application/json", Connection: "close" } }));
      answerThenDrain(exchange, 413, tooLargeBody(maxBodyBytes));
      setImmediate(record, 413, msSince(started));
      return RESPONSE_ALREADY_SENT;
    };
    const headers = node?.incoming.headers;
    const length = headers ? headers["content-length"] : req.headers.get("content-length");
    if (length != null && length !== "" && !(Number(length) <= maxBodyBytes)) return refuse();
    const chunked = headers ? headers["transfer-encoding"] !== undefined : length == null && req.body !== null;
    if (chunked && req.method !== "GET" && req.method !== "HEAD") {
      const body = exchange ? readBodyWithin(exchange.incoming, maxBodyBytes) : readLimited(req, maxBodyBytes);
      return body.then((bytes) => (bytes ? Promise.resolve(fetch(withBody(req, bytes), env)).then(log) : refuse()));
    }
    const res = fetch(req, env);
    return res instanceof Promise ? res.then(log) : log(res);
  };
}

function tooLargeBody(limit: number): string {
  return JSON.stringify({ status: "failure", status_code: 413, message: `Request body over the limit of ${limit} bytes` });
}

/** The body read into memory, or undefined once it passes `limit` bytes. */
async function readLimited(req: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (!req.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

/** The request with its (chunked) body replaced by the bytes read. */
function withBody(req: Request, body: Uint8Array<ArrayBuffer>): Request {
  const headers = new Headers(req.headers);
  headers.delete("transfer-encoding");
  headers.set("content-length", String(body.byteLength));
  return new Request(req.url, { method: req.method, headers, body, signal: req.signal });
}

function withHeaders(res: Response, requestId: string): Response {
  const out = new Response(res.body, res);
  out.headers.set("X-Request-Id", requestId);
  out.headers.set(API_VERSION_HEADER, API_VERSION);
  out.headers.set("X-Content-Type-Options", "nosniff");
  return out;
}

function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}
