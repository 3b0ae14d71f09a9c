import type { Context } from "hono";
import type { ApiEnv } from "./context";

/**
 * Sets a response header from middleware. Under the custom Node server the header goes straight
 * onto Node's response (merged when the body is written), so a plain JSON response keeps
 * @hono/node-server's fast path; a Fetch `Headers` object, which `c.header` creates, costs about
 * a tenth of a small request. Elsewhere (Next's catch-all route, `app.request` in tests) it is
 * `c.header`.
 */
export function setResponseHeader(c: Context<ApiEnv>, name: string, value: string): void {
  const outgoing = c.env.outgoing;
  if (outgoing && !outgoing.headersSent) outgoing.setHeader(name, value);
  else c.header(name, value);
}
