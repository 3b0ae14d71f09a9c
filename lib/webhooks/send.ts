import http from "node:http";
import https from "node:https";
import { agentFor, outboundAgents, PrivateAddressError } from "../providers/ssrf-guard";
import type { SignedHeaders } from "./sign";

/** How much of a receiver's answer is read (and its first characters kept for the delivery log). */
const MAX_ANSWER_BYTES = 64 * 1024;
const SNIPPET_CHARS = 200;

// Keep-alive pools, guarded (every address checked as the socket is made: no DNS-rebinding gap)
// or open for endpoints the operator allowed on private networks.
const agents = outboundAgents({ keepAlive: true, maxSockets: 64, timeout: 30_000 });

export interface SendOutcome {
  /** The receiver's HTTP status, or null when none came (refused, unreachable, timed out). */
  statusCode: number | null;
  ok: boolean;
  /** Why it is not a success, for the delivery log. */
  error: string | null;
  durationMs: number;
}

/** POSTs one signed delivery; never throws. Success is a 2xx answer; redirects are not followed. */
export function sendWebhook(
  url: string,
  body: string,
  headers: SignedHeaders,
  options: { allowPrivateNetwork: boolean; timeoutMs: number },
): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch (err) {
      resolve({ statusCode: null, ok: false, error: describe(err), durationMs: elapsed() });
      return;
    }
    const request = (target.protocol === "https:" ? https : http).request(target, {
      method: "POST",
      agent: agentFor(options.allowPrivateNetwork ? agents.open : agents.guarded, target),
      headers: { "content-type": "application/json", "user-agent": "tollgate-webhooks/1", "content-length": Buffer.byteLength(body), ...headers },
    });
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on("response", (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        const ok = status >= 200 && status < 300;
        const snippet = Buffer.concat(chunks).toString("utf8").replace(/\s+/g, " ").trim().slice(0, SNIPPET_CHARS);
        resolve({ statusCode: status, ok, error: ok ? null : `HTTP ${status}${snippet ? `: ${snippet}` : ""}`, durationMs: elapsed() });
      };
      res.on("data", (chunk: Buffer) => {
        if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          res.destroy();
          finish();
        }
      });
      res.on("end", finish);
      res.on("error", finish);
    });
    request.on("error", (err) => {
      clearTimeout(timer);
      resolve({ statusCode: null, ok: false, error: describe(err), durationMs: elapsed() });
    });
    request.end(body);
  });
}

function describe(err: unknown): string {
  if (err instanceof PrivateAddressError) {
    return err.hostname === undefined
      ? `refused: ${err.address} is a non-public address (${err.range}; the endpoint is not allowed on private networks)`
      : `refused: ${err.hostname} does not resolve to a public address (the endpoint is not allowed on private networks)`;
  }
  const e = err as NodeJS.ErrnoException;
  if (!e?.message) return String(err);
  return e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message;
}
