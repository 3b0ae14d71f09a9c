import dns from "node:dns";
import net from "node:net";

/**
 * Outbound requests to private, loopback, link-local and other non-public addresses are refused
 * unless the provider is explicitly allow-listed. The check runs inside the socket's DNS lookup,
 * so the address that is checked is the address that is connected to (no DNS-rebinding gap).
 */
const blocked = new net.BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}
// No `::ffff:0:0/96` rule: BlockList matches IPv4-mapped addresses against the IPv4 rules itself,
// and such a rule would match every IPv4 address, public ones included.

export class PrivateAddressError extends Error {
  constructor(readonly address: string) {
    super(`Refused to connect to non-public address ${address} (provider is not allow-listed for private networks)`);
    this.name = "PrivateAddressError";
  }
}

export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  if (family === 6 && address.toLowerCase().startsWith("::ffff:")) {
    const v4 = address.slice(7);
    if (net.isIP(v4) === 4) return blocked.check(v4, "ipv4");
  }
  return blocked.check(address, family === 4 ? "ipv4" : "ipv6");
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for http.request that fails when any resolved address is non-public. */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, "", 0);
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new PrivateAddressError(bad.address) as NodeJS.ErrnoException, "", 0);
    if (options.all) return callback(null, list);
    callback(null, list[0].address, list[0].family);
  });
}

/** The address of an IP-literal host (`127.0.0.1`, `[::1]`), else undefined. */
function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return net.isIP(bare) ? bare : undefined;
}

/**
 * Node connects to an IP-literal host without calling `lookup`, so `guardedLookup` never sees
 * `http://127.0.0.1/`: such hosts are checked here, before the request is made.
 */
export function refusePrivateLiteral(url: URL): void {
  const address = literalAddress(url.hostname);
  if (address !== undefined && isPrivateAddress(address)) throw new PrivateAddressError(address);
}

/**
 * For clients whose sockets we do not control (the MCP SDK's fetch): resolves the host and refuses
 * it when any address is non-public. A DNS answer that changes between this check and the
 * connection is not caught; `guardedLookup` closes that gap where we own the socket.
 */
export async function assertPublicHost(url: URL): Promise<void> {
  refusePrivateLiteral(url);
  if (literalAddress(url.hostname) !== undefined) return;
  const addresses = await dns.promises.lookup(url.hostname, { all: true });
  const bad = addresses.find((a) => isPrivateAddress(a.address));
  if (bad) throw new PrivateAddressError(bad.address);
}
