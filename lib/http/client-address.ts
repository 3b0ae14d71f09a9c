import type { IncomingMessage } from "node:http";
import { env } from "../env";

/**
 * The client address that per-address limits key on. X-Forwarded-For is written by the client,
 * except for the entries the `trustProxy` proxies append on the right: the `trustProxy`-th from
 * the right is the address the outermost trusted proxy saw. A header with fewer entries did not
 * come through those proxies, so only the socket address can be trusted.
 */
export function clientAddress(socketAddress: string | undefined, forwardedFor: string | undefined, trustProxy: number): string {
  const socket = socketAddress ?? "unknown";
  if (trustProxy === 0) return socket;
  const forwarded = forwardedFor?.split(",") ?? [];
  if (forwarded.length < trustProxy) return socket;
  return forwarded[forwarded.length - trustProxy].trim() || socket;
}

/** The header in which the custom server hands the client address to Next (the dashboard). */
export const CLIENT_ADDRESS_HEADER = "x-tollgate-client-address";

// Next builds its own copy of this module: the flag lives on the process's global object.
const STAMPED = Symbol.for("tollgate.client-address-stamped");
const flags = globalThis as { [STAMPED]?: boolean };

/**
 * The custom server's side: Next sees headers, not the socket, so the address is written into
 * `CLIENT_ADDRESS_HEADER`, replacing any copy the client sent.
 */
export function stampClientAddress(req: IncomingMessage): void {
  flags[STAMPED] = true;
  const forwarded = req.headers["x-forwarded-for"];
  req.headers[CLIENT_ADDRESS_HEADER] = clientAddress(req.socket.remoteAddress, Array.isArray(forwarded) ? forwarded.join(",") : forwarded, env().TRUST_PROXY);
}

/**
 * The dashboard's side: the address the custom server wrote. Under `next dev` no server writes it
 * and a client could: every client then shares one bucket, as the API's anonymous clients do there.
 */
export function stampedClientAddress(headers: Record<string, unknown> | undefined): string {
  const value = headers?.[CLIENT_ADDRESS_HEADER];
  return flags[STAMPED] && typeof value === "string" && value ? value : "unknown";
}
