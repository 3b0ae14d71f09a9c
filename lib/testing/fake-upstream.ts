import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import type { ManifestInput } from "../catalog/manifest";

/**
 * A fake third-party API on 127.0.0.1 (port 0) for integration tests: each path answers one way a
 * real provider can (data, an HTTP error, a hang, garbage, a huge body, nothing) and every request
 * is recorded, so a test can prove how often the gateway reached the provider.
 */
export interface FakeUpstream {
  url: string;
  requests: { method: string; path: string; query: Record<string, string>; body: unknown }[];
  /** Requests seen on a path (all paths when omitted). */
  count(path?: string): number;
  close(): Promise<void>;
}

export const HUGE_BODY_BYTES = 11 * 1024 * 1024;
export const DECLARED_HUGE_BYTES = 50 * 1024 * 1024;

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function route(path: string, query: Record<string, string>, body: unknown, res: http.ServerResponse) {
  const status = /^\/status\/(\d{3})$/.exec(path);
  if (status) return send(res, Number(status[1]), { error: `upstream says ${status[1]}` });
  switch (path) {
    case "/ok":
      return send(res, 200, { data: { city: query.city ?? null, temperature_c: 21.5, items: [1, 2, 3], body } });
    case "/echo":
      return send(res, 200, { query, body });
    case "/items":
      return send(res, 200, { items: Array.from({ length: Number(query.n ?? 3) }, (_, i) => ({ i })) });
    case "/big":
      return send(res, 200, { rows: Array.from({ length: Number(query.n ?? 500) }, (_, i) => ({ id: i, name: `row ${i}`, tags: ["a", "b"] })), total: Number(query.n ?? 500) });
    case "/partial":
      return send(res, 200, { data: [{ ok: 1 }], errors: [{ message: "second page failed" }] });
    case "/empty":
      res.writeHead(200, { "content-type": "application/json", "content-length": 0 });
      return res.end();
    case "/empty-object":
      return send(res, 200, {});
    case "/garbage":
      res.writeHead(200, { "content-type": "application/json" });
      return res.end("<html>this is not { json");
    case "/slow":
      return void setTimeout(() => {
        if (!res.destroyed) send(res, 200, { late: true });
      }, Number(query.ms ?? 2000)).unref();
    case "/reset":
      // Headers and the start of a body, then the connection is torn down mid-body.
      res.writeHead(200, { "content-type": "application/json", "content-length": 1000 });
      res.write('{"data": {"partial": "');
      return void setTimeout(() => res.socket?.destroy(), 20).unref();
    case "/huge-declared": {
      // A 50 MB body announced by Content-Length: refused without reading it all.
      res.writeHead(200, { "content-type": "application/json", "content-length": DECLARED_HUGE_BYTES });
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      let sent = 0;
      const pump = () => {
        while (sent < DECLARED_HUGE_BYTES && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        if (!res.destroyed) res.end();
      };
      return pump();
    }
    case "/huge": {
      // Streamed in 1 MiB chunks, never buffered whole; the gateway must stop reading past its limit.
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      let sent = 0;
      res.write('{"blob":"');
      const pump = () => {
        while (sent < HUGE_BODY_BYTES && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        if (!res.destroyed) res.end('"}');
      };
      return pump();
    }
    default:
      return send(res, 404, { error: `no route ${path}` });
  }
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const requests: FakeUpstream["requests"] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = text;
      }
      const query = Object.fromEntries(url.searchParams);
      requests.push({ method: req.method ?? "GET", path: url.pathname, query, body });
      route(url.pathname, query, body, res);
    });
  });
  server.on("clientError", (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    count: (path) => (path === undefined ? requests.length : requests.filter((r) => r.path === path).length),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port with nothing listening on it (connection refused). */
export async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** Tool ids of `fakeUpstreamManifest`, by scenario. */
export const fakeTool = (providerId: string, name: string) => `${providerId}.${name}`;

/**
 * An `http` provider whose tools each hit one path of the fake upstream. Priced tools cost 1 credit
 * per call (`ok`, `status`, `slow`, ...), `cached` is free and cacheable, `items` bills per result item.
 */
export function fakeUpstreamManifest(baseUrl: string, options: { providerId?: string; allowPrivateNetwork?: boolean; timeoutMs?: number } = {}): ManifestInput {
  const id = options.providerId ?? "fake-upstream";
  const timeout = options.timeoutMs ?? 5_000;
  const priced = { unit: "call" as const, amount_credits: 1 };
  const tool = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
    id: fakeTool(id, name),
    name: `Fake ${name}`,
    description: `Fake upstream scenario ${name}`,
    params: [{ name: "city", type: "string" as const, description: "A city" }],
    billing_rule: priced,
    timeout_ms: timeout,
    execution: { method: "GET" as const, path, query: ["city"] },
    ...extra,
  });
  return {
    providers: [
      {
        id,
        name: "Fake upstream",
        transport: "http",
        base_url: baseUrl,
        allow_private_network: options.allowPrivateNetwork ?? true,
        tools: [
          tool("ok", "/ok", { execution: { method: "GET", path: "/ok", query: ["city"], result_path: "data" } }),
          tool("bad_request", "/status/400"),
          tool("not_found", "/status/404"),
          tool("server_error", "/status/500"),
          tool("bad_gateway", "/status/502"),
          tool("rate_limited", "/status/429"),
          tool("unauthorized", "/status/401"),
          tool("forbidden", "/status/403"),
          tool("slow", "/slow", { timeout_ms: 150, params: [{ name: "ms", type: "integer", description: "delay" }], execution: { method: "GET", path: "/slow", query: ["ms"] } }),
          tool("garbage", "/garbage"),
          tool("huge", "/huge", { timeout_ms: 20_000 }),
          tool("huge_declared", "/huge-declared", { timeout_ms: 20_000 }),
          tool("reset", "/reset"),
          tool("empty", "/empty"),
          tool("empty_object", "/empty-object"),
          tool("partial", "/partial"),
          tool("big", "/big", { params: [{ name: "n", type: "integer", description: "rows" }], execution: { method: "GET", path: "/big", query: ["n"] } }),
          tool("echo", "/echo", {
            params: [
              { name: "city", type: "string", required: true, description: "A city" },
              { name: "units", type: "string", enum: ["metric", "imperial"], default: "metric", description: "Units" },
            ],
            execution: { method: "POST", path: "/echo", query: ["city"] },
          }),
          tool("cached", "/ok", {
            billing_rule: { unit: "free", amount_credits: 0 },
            cacheable: true,
            cache_ttl_seconds: 300,
            execution: { method: "GET", path: "/ok", query: ["city"], result_path: "data" },
          }),
          tool("cached_priced", "/ok", {
            cacheable: true,
            cache_ttl_seconds: 300,
            execution: { method: "GET", path: "/ok", query: ["city"], result_path: "data" },
          }),
          tool("cached_error", "/status/503", { cacheable: true, cache_ttl_seconds: 300 }),
          tool("items", "/items", {
            params: [{ name: "n", type: "integer", description: "items" }],
            billing_rule: { unit: "per_unit", amount_credits: 0.25, quantity_from: "result_items", quantity_param: "items", max_units: 10 },
            execution: { method: "GET", path: "/items", query: ["n"] },
          }),
        ],
      },
    ],
  };
}
