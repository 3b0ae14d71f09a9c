import os from "node:os";
import { describe, expect, it } from "vitest";
import { refusedRange } from "./public-address";
import { outboundFetch } from "./outbound-fetch";
import { PrivateAddressError, refusePrivateLiteral } from "./ssrf-guard";
import { checkWebhookUrl } from "../webhooks/url";

// Every row of IANA's special-purpose address registries (iana-ipv4-special-registry,
// iana-ipv6-special-registry), with addresses inside: first and last where the block is wide.
// `reachable` is the registry's "Globally Reachable" column: refused all the same.
type Row = { block: string; name: string; samples: string[]; reachable?: true };

const IPV4_SPECIAL: Row[] = [
  { block: "0.0.0.0/8", name: '"This network"', samples: ["0.0.0.0", "0.1.2.3", "0.255.255.255"] },
  { block: "0.0.0.0/32", name: '"This host on this network"', samples: ["0.0.0.0"] },
  { block: "10.0.0.0/8", name: "Private-Use", samples: ["10.0.0.0", "10.1.2.3", "10.255.255.255"] },
  { block: "100.64.0.0/10", name: "Shared Address Space", samples: ["100.64.0.0", "100.100.100.100", "100.127.255.255"] },
  { block: "127.0.0.0/8", name: "Loopback", samples: ["127.0.0.0", "127.0.0.1", "127.1.2.3", "127.255.255.255"] },
  { block: "169.254.0.0/16", name: "Link Local", samples: ["169.254.0.0", "169.254.169.254", "169.254.255.255"] },
  { block: "172.16.0.0/12", name: "Private-Use", samples: ["172.16.0.0", "172.20.1.1", "172.31.255.255"] },
  { block: "192.0.0.0/24", name: "IETF Protocol Assignments", samples: ["192.0.0.0", "192.0.0.100", "192.0.0.255"] },
  { block: "192.0.0.0/29", name: "IPv4 Service Continuity Prefix", samples: ["192.0.0.1", "192.0.0.7"] },
  { block: "192.0.0.8/32", name: "IPv4 dummy address", samples: ["192.0.0.8"] },
  { block: "192.0.0.9/32", name: "Port Control Protocol Anycast", samples: ["192.0.0.9"], reachable: true },
  { block: "192.0.0.10/32", name: "Traversal Using Relays around NAT Anycast", samples: ["192.0.0.10"], reachable: true },
  { block: "192.0.0.170/32, 192.0.0.171/32", name: "NAT64/DNS64 Discovery", samples: ["192.0.0.170", "192.0.0.171"] },
  { block: "192.0.2.0/24", name: "Documentation (TEST-NET-1)", samples: ["192.0.2.0", "192.0.2.2", "192.0.2.255"] },
  { block: "192.31.196.0/24", name: "AS112-v4", samples: ["192.31.196.0", "192.31.196.255"], reachable: true },
  { block: "192.52.193.0/24", name: "AMT", samples: ["192.52.193.0", "192.52.193.255"], reachable: true },
  { block: "192.88.99.0/24", name: "Deprecated (6to4 Relay Anycast)", samples: ["192.88.99.0", "192.88.99.1", "192.88.99.255"] },
  { block: "192.88.99.2/32", name: "6a44-relay anycast address", samples: ["192.88.99.2"] },
  { block: "192.168.0.0/16", name: "Private-Use", samples: ["192.168.0.0", "192.168.1.1", "192.168.255.255"] },
  { block: "192.175.48.0/24", name: "Direct Delegation AS112 Service", samples: ["192.175.48.0", "192.175.48.255"], reachable: true },
  { block: "198.18.0.0/15", name: "Benchmarking", samples: ["198.18.0.0", "198.19.255.255"] },
  { block: "198.51.100.0/24", name: "Documentation (TEST-NET-2)", samples: ["198.51.100.0", "198.51.100.7", "198.51.100.255"] },
  { block: "203.0.113.0/24", name: "Documentation (TEST-NET-3)", samples: ["203.0.113.0", "203.0.113.9", "203.0.113.255"] },
  { block: "240.0.0.0/4", name: "Reserved", samples: ["240.0.0.0", "250.1.2.3", "255.255.255.254"] },
  { block: "255.255.255.255/32", name: "Limited Broadcast", samples: ["255.255.255.255"] },
];

// IPv4-mapped, NAT64 and 6to4 addresses are judged as the IPv4 address inside: these samples
// carry refused ones (the public ones they may carry pass, below).
const IPV6_SPECIAL: Row[] = [
  { block: "::1/128", name: "Loopback Address", samples: ["::1"] },
  { block: "::/128", name: "Unspecified Address", samples: ["::"] },
  { block: "::ffff:0:0/96", name: "IPv4-mapped Address", samples: ["::ffff:0:0", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:192.0.2.2", "::ffff:255.255.255.255"] },
  { block: "64:ff9b::/96", name: "IPv4-IPv6 Translat.", samples: ["64:ff9b::", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b::c000:202", "64:ff9b::ffff:ffff"], reachable: true },
  { block: "64:ff9b:1::/48", name: "IPv4-IPv6 Translat.", samples: ["64:ff9b:1::", "64:ff9b:1::a00:1", "64:ff9b:1:808:8:800::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"] },
  { block: "100::/64", name: "Discard-Only Address Block", samples: ["100::", "100::1", "100::ffff:ffff:ffff:ffff"] },
  { block: "100:0:0:1::/64", name: "Dummy IPv6 Prefix", samples: ["100:0:0:1::", "100:0:0:1:ffff:ffff:ffff:ffff"] },
  { block: "2001::/23", name: "IETF Protocol Assignments", samples: ["2001::", "2001:100::1", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff"] },
  { block: "2001::/32", name: "TEREDO", samples: ["2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:0:ffff:ffff:ffff:ffff:ffff:ffff"] },
  { block: "2001:1::1/128", name: "Port Control Protocol Anycast", samples: ["2001:1::1"], reachable: true },
  { block: "2001:1::2/128", name: "Traversal Using Relays around NAT Anycast", samples: ["2001:1::2"], reachable: true },
  { block: "2001:1::3/128", name: "DNS-SD Service Registration Protocol Anycast Address", samples: ["2001:1::3"], reachable: true },
  { block: "2001:2::/48", name: "Benchmarking", samples: ["2001:2::", "2001:2:0:ffff:ffff:ffff:ffff:ffff"] },
  { block: "2001:3::/32", name: "AMT", samples: ["2001:3::", "2001:3:ffff:ffff:ffff:ffff:ffff:ffff"], reachable: true },
  { block: "2001:4:112::/48", name: "AS112-v6", samples: ["2001:4:112::", "2001:4:112:ffff:ffff:ffff:ffff:ffff"], reachable: true },
  { block: "2001:10::/28", name: "Deprecated (previously ORCHID)", samples: ["2001:10::", "2001:1f:ffff:ffff:ffff:ffff:ffff:ffff"] },
  { block: "2001:20::/28", name: "ORCHIDv2", samples: ["2001:20::", "2001:2f:ffff:ffff:ffff:ffff:ffff:ffff"], reachable: true },
  { block: "2001:30::/28", name: "Drone Remote ID Protocol Entity Tags (DETs) Prefix", samples: ["2001:30::", "2001:3f:ffff:ffff:ffff:ffff:ffff:ffff"], reachable: true },
  { block: "2001:db8::/32", name: "Documentation", samples: ["2001:db8::", "2001:db8::1", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"] },
  { block: "2002::/16", name: "6to4", samples: ["2002::", "2002:7f00:1::", "2002:a00:1::1", "2002:c000:202::2", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff"] },
  { block: "2620:4f:8000::/48", name: "Direct Delegation AS112 Service", samples: ["2620:4f:8000::", "2620:4f:8000:ffff:ffff:ffff:ffff:ffff"], reachable: true },
  { block: "3fff::/20", name: "Documentation", samples: ["3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff"] },
  { block: "5f00::/16", name: "Segment Routing (SRv6) SIDs", samples: ["5f00::", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff"] },
  { block: "fc00::/7", name: "Unique-Local", samples: ["fc00::", "fd00::2", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"] },
  { block: "fe80::/10", name: "Link-Local Unicast", samples: ["fe80::", "fe80::1", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"] },
];

// Not unicast, or not global unicast, though outside the two registries.
const OTHER_NON_PUBLIC: Row[] = [
  { block: "224.0.0.0/4", name: "Multicast (iana-multicast-addresses)", samples: ["224.0.0.0", "224.0.0.251", "239.255.255.255"] },
  { block: "ff00::/8", name: "Multicast (ipv6-multicast-addresses)", samples: ["ff00::", "ff02::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"] },
  { block: "fec0::/10", name: "Deprecated site-local (RFC 3879)", samples: ["fec0::1", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"] },
  { block: "::/96", name: "Deprecated IPv4-compatible (RFC 4291)", samples: ["::7f00:1", "::808:808"] },
  { block: "::ffff:0:0:0/96", name: "IPv4-translated (RFC 6145)", samples: ["::ffff:0:808:808"] },
  { block: "outside 2000::/3", name: "Not allocated for global unicast (ipv6-address-space)", samples: ["4000::1", "e000::1", "1::1"] },
];

// Public unicast addresses, many just outside a refused block, and the IPv4-in-IPv6 forms of public IPv4.
const PUBLIC = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.216.34",
  "9.255.255.255",
  "11.0.0.0",
  "100.63.255.255",
  "100.128.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "192.0.1.255",
  "192.0.3.0",
  "192.167.255.255",
  "192.169.0.0",
  "198.17.255.255",
  "198.20.0.0",
  "223.255.255.255",
  "2606:4700:4700::1111",
  "2001:200::1",
  "2001:db9::1",
  "2620:4f:8001::1",
  "3fff:1000::1",
  "::ffff:8.8.8.8",
  "64:ff9b::808:808",
  "64:ff9b:1::808:808",
  "2002:808:808::1",
];

const table = [...IPV4_SPECIAL, ...IPV6_SPECIAL, ...OTHER_NON_PUBLIC].flatMap((row) => row.samples.map((address) => ({ ...row, address })));
const urlOf = (address: string) => (address.includes(":") ? `http://[${address}]:9/` : `http://${address}:9/`);

describe("outbound requests reach only globally routable unicast addresses", () => {
  it.each(table)("$address ($block, $name) is refused unless the operator opted in", async ({ address }) => {
    expect(refusedRange(address)).toEqual(expect.any(String));
    expect(() => refusePrivateLiteral(new URL(urlOf(address)))).toThrow(PrivateAddressError);
    // The guarded agent refuses before connecting (a connection attempt would fail otherwise, or hang).
    await expect(outboundFetch({ allowPrivateNetwork: false })(urlOf(address))).rejects.toBeInstanceOf(PrivateAddressError);
    await expect(checkWebhookUrl(urlOf(address), false)).rejects.toMatchObject({ code: "invalid_input", message: expect.stringMatching(/non-public address/) });
    await expect(checkWebhookUrl(urlOf(address), true)).resolves.toBeInstanceOf(URL);
  });

  it.each(PUBLIC)("%s is public", async (address) => {
    expect(refusedRange(address, [])).toBeUndefined();
    expect(() => refusePrivateLiteral(new URL(urlOf(address)))).not.toThrow();
    await expect(checkWebhookUrl(urlOf(address), false)).resolves.toBeInstanceOf(URL);
  });

  it("says why: the range, or the IPv4 address inside an IPv6 one", () => {
    expect(refusedRange("203.0.113.5")).toBe("reserved");
    expect(refusedRange("::ffff:127.0.0.1")).toBe("ipv4Mapped of 127.0.0.1: loopback");
    expect(refusedRange("64:ff9b::c000:202")).toBe("rfc6052 of 192.0.2.2: reserved");
    expect(refusedRange("2002:a00:1::1")).toBe("6to4 of 10.0.0.1: private");
    expect(refusedRange("64:ff9b:1:808:8:800::")).toBe("local-use NAT64 outside its /96 layout");
    expect(refusedRange("not-an-ip")).toBe("not an IP address");
    expect(refusedRange("127.1")).toBe("not an IP address");
  });

  it("refuses every address of this host's own interfaces, public ones too, however written", () => {
    for (const list of Object.values(os.networkInterfaces())) {
      for (const a of list ?? []) expect(refusedRange(a.address), a.address).toEqual(expect.any(String));
    }
    const own = ["8.8.4.4", "2606:4700:4700:0:0:0:0:1001"];
    for (const address of ["8.8.4.4", "::ffff:8.8.4.4", "64:ff9b::808:404", "2002:808:404::1", "2606:4700:4700::1001"]) {
      expect(refusedRange(address, own)).toMatch(/an address of this host$/);
    }
    expect(refusedRange("8.8.8.8", own)).toBeUndefined();
  });
});
