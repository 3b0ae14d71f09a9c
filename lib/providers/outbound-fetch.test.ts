import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboundFetch } from "./outbound-fetch";
import { PrivateAddressError } from "./ssrf-guard";

interface Seen {
  method: string;
  path: string;
  body: string;
}

async function startServer(handle: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void) {
  const seen: Seen[] = [];
  const closed: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method ?? "", path: req.url ?? "", body });
      res.on("close", () => closed.push(req.url ?? ""));
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    seen,
    closed,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

type TestServer = Awaited<ReturnType<typeof startServer>>;
let target: TestServer;
let redirector: TestServer;

beforeAll(async () => {
  target = await startServer((req, res, body) => {
    if (req.url === "/empty") return res.writeHead(204).end();
    if (req.url === "/stream") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
      return; // never ends: only the client's abort closes it
    }
    res.writeHead(200, { "content-type": "application/json", "x-twice": "a" }).end(JSON.stringify({ method: req.method, body, ua: req.headers["user-agent"] }));
  });
  redirector = await startServer((_req, res) => res.writeHead(302, { location: `${target.url}/landed` }).end());
});
afterAll(async () => {
  await target.close();
  await redirector.close();
});

describe("outboundFetch (the MCP transport's fetch)", () => {
  const open = outboundFetch({ allowPrivateNetwork: true });
  const guarded = outboundFetch({ allowPrivateNetwork: false });

  it("sends method, headers and body and returns status, headers and body, where the operator allowed private networks", async () => {
    const res = await open(`${target.url}/echo`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"x":1}' });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-twice")).toBe("a");
    expect(await res.json()).toEqual({ method: "POST", body: '{"x":1}', ua: "tollgate/1" });
    const empty = await open(`${target.url}/empty`, { method: "DELETE" });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it("refuses a host name that resolves to a loopback address before any request reaches it", async () => {
    const before = target.seen.length;
    await expect(guarded(`http://localhost:${target.port}/echo`)).rejects.toBeInstanceOf(PrivateAddressError);
    await expect(guarded(`${target.url}/echo`)).rejects.toBeInstanceOf(PrivateAddressError);
    expect(target.seen.length).toBe(before);
  });

  it("returns a redirect without following it (the SDK follows same-origin ones through this fetch again)", async () => {
    const before = target.seen.length;
    const res = await open(`${redirector.url}/go`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${target.url}/landed`);
    expect(target.seen.length).toBe(before);
  });

  it("an abort ends a response that is still streaming, and its connection", async () => {
    const controller = new AbortController();
    const res = await open(`${target.url}/stream`, { signal: controller.signal });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: first\n\n");
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    await expect.poll(() => target.closed).toContain("/stream");
  });

  it("an aborted signal refuses at once", async () => {
    await expect(open(`${target.url}/echo`, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
  });
});
