import net from "node:net";
import os from "node:os";
import ipaddr from "ipaddr.js";

type IP = ipaddr.IPv4 | ipaddr.IPv6;

// Only 2000::/3 is allocated for global unicast (IANA IPv6 address space); ipaddr.js calls the rest
// of the space `unicast` too, e.g. the deprecated IPv4-compatible ::a.b.c.d and 100:0:0:1::/64.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3");
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96");
const NAT64_LOCAL_USE = ipaddr.IPv6.parseCIDR("64:ff9b:1::/48");
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR("2002::/16");

const ipv4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 address an IPv6 one delivers to: IPv4-mapped (a dual-stack socket connects over IPv4),
 * NAT64 and 6to4 (a translator or relay forwards to it). "undecodable" for the local-use NAT64
 * prefix in a layout other than /96: where the IPv4 address sits depends on the operator's prefix
 * length, which we cannot know.
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | "undecodable" | undefined {
  const p = ip.parts;
  if (ip.isIPv4MappedAddress() || ip.match(NAT64_WELL_KNOWN)) return ipv4(p[6], p[7]);
  if (ip.match(NAT64_LOCAL_USE)) return p[3] === 0 && p[4] === 0 && p[5] === 0 ? ipv4(p[6], p[7]) : "undecodable";
  if (ip.match(SIX_TO_FOUR)) return ipv4(p[1], p[2]);
  return undefined;
}

/** An address without its IPv6 zone, as a comparable string. */
const keyOf = (ip: IP) => ipaddr.fromByteArray(ip.toByteArray()).toNormalizedString();

/** The addresses of this host's own network interfaces (read each time: they can change). */
function hostAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
}

function isOwn(ip: IP, own: readonly string[]): boolean {
  const key = keyOf(ip);
  return own.some((a) => ipaddr.isValid(a) && keyOf(ipaddr.parse(a)) === key);
}

function judge(ip: IP, own: readonly string[] | undefined): string | undefined {
  if (ip.kind() === "ipv6") {
    const v6 = ip as ipaddr.IPv6;
    const inner = embeddedIPv4(v6);
    if (inner === "undecodable") return "local-use NAT64 outside its /96 layout";
    if (inner) {
      const why = judge(inner, own);
      return why && `${v6.range()} of ${inner.toString()}: ${why}`;
    }
    const range = v6.range();
    if (range !== "unicast") return range;
    if (!v6.match(GLOBAL_UNICAST_V6)) return "outside 2000::/3, the global unicast space";
  } else {
    const range = (ip as ipaddr.IPv4).range();
    if (range !== "unicast") return range;
  }
  if (isOwn(ip, own ?? hostAddresses())) return "an address of this host";
  return undefined;
}

/**
 * Why an outbound request (http or MCP provider, webhook) must not connect to `address`, or
 * undefined when it may: only what ipaddr.js classifies as plain `unicast` (and, for IPv6, inside
 * 2000::/3) passes, and never an address of this host's own interfaces. Every row of IANA's
 * special-purpose registries is refused — even those marked globally reachable (anycast, AS112,
 * AMT, ORCHIDv2, DETs): no provider or webhook needs them. IPv4-mapped, NAT64 and 6to4 addresses
 * are judged as the IPv4 address they carry. A string that is not an IP address is refused.
 * `own` stands for the host's addresses (default: read from its interfaces when it matters).
 */
export function refusedRange(address: string, own?: readonly string[]): string | undefined {
  // net.isIP is strict (no "127.1" or hex forms, which ipaddr.js would also parse).
  if (net.isIP(address) === 0) return "not an IP address";
  return judge(ipaddr.parse(address), own);
}
