import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import ipaddr from "ipaddr.js";

export interface ListenSummary {
  /** The address actually bound, as a URL (`http://[::]:3000` when every interface). */
  bound: string;
  /** Who can connect: "loopback only", "every interface", or undefined for one address. */
  reach: string | undefined;
  /** PUBLIC_URL, when set: what clients behind the proxy use. */
  publicUrl: string | undefined;
  /** `http://localhost:PORT` when the bound address answers there (loopback, or every interface). */
  local: string | undefined;
  /** The URL the banner's examples use: PUBLIC_URL, else `local`, else `bound`. */
  open: string;
}

/** Where a server bound to `address` listens, for the start banner. */
export function summarizeListen(address: AddressInfo, publicUrl: string | undefined): ListenSummary {
  const host = address.address.includes(":") ? `[${address.address}]` : address.address;
  const bound = `http://${host}:${address.port}`;
  const range = ipaddr.isValid(address.address) ? ipaddr.parse(address.address).range() : undefined;
  const reach = range === "loopback" ? "loopback only" : range === "unspecified" ? (address.address === "0.0.0.0" ? "every IPv4 interface" : "every interface") : undefined;
  const local = reach === undefined ? undefined : `http://localhost:${address.port}`;
  return { bound, reach, publicUrl, local, open: publicUrl ?? local ?? bound };
}

/** The banner's first lines: the bound address (with `detail`), then PUBLIC_URL and the local URL. */
export function listenLines(where: ListenSummary, detail: string): string[] {
  return [
    `Tollgate listening on ${where.bound} (${[where.reach, detail].filter(Boolean).join("; ")})`,
    ...(where.publicUrl ? [`  Public URL:      ${where.publicUrl}`] : []),
    ...(where.local ? [`  On this machine: ${where.local}`] : []),
  ];
}

/**
 * Binds exactly `host` (HOST; never every interface by omission) and says where. Resolves once
 * listening, rejects when the address cannot be bound.
 */
export async function listen(server: Server, port: number, host: string, publicUrl: string | undefined): Promise<ListenSummary> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return summarizeListen(server.address() as AddressInfo, publicUrl);
}
