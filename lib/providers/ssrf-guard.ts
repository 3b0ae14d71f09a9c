import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { Duplex } from "node:stream";
import { refusedRange } from "./public-address";

/**
 * Outbound requests (http and MCP providers, webhooks) reach only public addresses
 * (lib/providers/public-address.ts) unless the operator allowed the destination on private
 * networks. The check runs where the socket is made — inside its DNS lookup, and before connecting
 * to an IP-literal host — so the address checked is the address connected to, for every connection
 * (no DNS-rebinding gap, whatever URL a redirect leads to).
 */
export class PrivateAddressError extends Error {
  /**
   * The refusal with what the host resolved to, for the server's log only. The message names the
   * address only when the URL itself was that address: what an account's user reads must not tell
   * them what one of our internal names resolves to (a DNS oracle), so a refused name reads
   * "does not resolve to a public address" whatever it resolved to.
   */
  readonly detail: string;

  constructor(
    readonly address: string,
    readonly range: string,
    /** The name that resolved to `address`; undefined when the URL's host was the address itself. */
    readonly hostname?: string,
  ) {
    super(
      hostname === undefined
        ? `Refused to connect to non-public address ${address} (${range}); the provider is not allow-listed for private networks`
        : `Refused to connect to ${hostname}: it does not resolve to a public address, and the provider is not allow-listed for private networks`,
    );
    this.detail = `${hostname ?? address} → non-public address ${address} (${range})`;
    this.name = "PrivateAddressError";
  }
}

function refusal(address: string, hostname?: string): PrivateAddressError | undefined {
  const range = refusedRange(address);
  return range === undefined ? undefined : new PrivateAddressError(address, range, hostname);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for sockets that fails when any resolved address is refused. */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, "", 0);
    const list = addresses as dns.LookupAddress[];
    for (const a of list) {
      const refused = refusal(a.address, hostname);
      if (refused) return callback(refused as NodeJS.ErrnoException, "", 0);
    }
    if (options.all) return callback(null, list);
    callback(null, list[0].address, list[0].family);
  });
}

/** The address of an IP-literal host (`127.0.0.1`, `[::1]`, `::1`), else undefined. */
function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return net.isIP(bare) ? bare : undefined;
}

/** Throws when the URL's host is an IP literal that is refused (names are checked when resolved). */
export function refusePrivateLiteral(url: URL): void {
  const address = literalAddress(url.hostname);
  const refused = address === undefined ? undefined : refusal(address);
  if (refused) throw refused;
}

/**
 * Resolves the URL's host and refuses it when any address is refused: for a check ahead of time
 * (registering a webhook), where an error can still be answered. The connection itself is checked
 * again by the guarded agents.
 */
export async function assertPublicHost(url: URL): Promise<void> {
  refusePrivateLiteral(url);
  if (literalAddress(url.hostname) !== undefined) return;
  for (const a of await dns.promises.lookup(url.hostname, { all: true })) {
    const refused = refusal(a.address, url.hostname);
    if (refused) throw refused;
  }
}

type ConnectionCallback = (err: Error | null, stream: Duplex) => void;

/**
 * Node connects to an IP-literal host without calling `lookup`: the agents check such hosts
 * themselves, failing the connection through the callback (Node's Agent ignores the stream then).
 */
function refuseLiteralHost(options: http.ClientRequestArgs, callback: ConnectionCallback | undefined): boolean {
  const address = options.host ? literalAddress(options.host) : undefined;
  const refused = address === undefined ? undefined : refusal(address);
  if (refused) callback?.(refused, undefined as never);
  return refused !== undefined;
}

class GuardedHttpAgent extends http.Agent {
  override createConnection(options: http.ClientRequestArgs, callback?: ConnectionCallback): Duplex | null | undefined {
    return refuseLiteralHost(options, callback) ? undefined : super.createConnection(options, callback);
  }
}

class GuardedHttpsAgent extends https.Agent {
  override createConnection(options: https.RequestOptions, callback?: ConnectionCallback): Duplex | null | undefined {
    return refuseLiteralHost(options, callback) ? undefined : super.createConnection(options, callback);
  }
}

export interface AgentPair {
  http: http.Agent;
  https: https.Agent;
}

/**
 * Keep-alive pools for outbound requests: `guarded` checks every address it connects to, `open` is
 * for destinations the operator allowed on private networks.
 */
export function outboundAgents(options: http.AgentOptions): { guarded: AgentPair; open: AgentPair } {
  const guarded = { ...options, lookup: guardedLookup };
  return {
    guarded: { http: new GuardedHttpAgent(guarded), https: new GuardedHttpsAgent(guarded) },
    open: { http: new http.Agent(options), https: new https.Agent(options) },
  };
}

/** The agent of a pool for a URL's scheme. */
export function agentFor(pool: AgentPair, url: URL): http.Agent {
  return url.protocol === "https:" ? pool.https : pool.http;
}
