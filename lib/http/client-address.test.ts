import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRequestHandler } from "../server/request-handler";
import { CLIENT_ADDRESS_HEADER, clientAddress, stampedClientAddress } from "./client-address";

describe("clientAddress", () => {
  it("is the socket address when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(clientAddress("192.0.2.1", "203.0.113.9", 0)).toBe("192.0.2.1");
  });

  it("is the entry the outermost trusted proxy appended: the N-th from the right", () => {
    expect(clientAddress("10.0.0.2", "203.0.113.9, 198.51.100.7", 1)).toBe("198.51.100.7");
    expect(clientAddress("10.0.0.2", "6.6.6.6, 203.0.113.9, 198.51.100.7", 2)).toBe("203.0.113.9");
  });

  it("falls back to the socket when the header has fewer entries than trusted proxies, or an empty one", () => {
    expect(clientAddress("10.0.0.2", "203.0.113.9", 2)).toBe("10.0.0.2");
    expect(clientAddress("10.0.0.2", undefined, 1)).toBe("10.0.0.2");
    expect(clientAddress("10.0.0.2", "203.0.113.9, ", 1)).toBe("10.0.0.2");
  });
});

describe("the address the custom server hands to Next", () => {
  // Must run first: the process-wide flag is set by the first request the custom server stamps.
  it("is not trusted while no custom server has stamped a request (next dev), even when a client sends it", () => {
    expect(stampedClientAddress({ [CLIENT_ADDRESS_HEADER]: "203.0.113.9" })).toBe("unknown");
  });

  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    const next = (req: http.IncomingMessage, res: http.ServerResponse) => res.end(stampedClientAddress(req.headers));
    server = http.createServer(createRequestHandler({ api: next, next }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("is the socket address, replacing a copy the client wrote, and ignoring its X-Forwarded-For (TRUST_PROXY=0)", async () => {
    const res = await fetch(`${base}/login`, { headers: { [CLIENT_ADDRESS_HEADER]: "203.0.113.9", "x-forwarded-for": "198.51.100.7" } });
    expect(await res.text()).toBe("127.0.0.1");
  });
});
