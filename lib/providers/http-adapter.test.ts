import net from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { classifyResponse, httpAdapter } from "./http-adapter";
import type { ToolTarget } from "./types";

/**
 * An upstream that answers the first request of each connection and keeps the connection open
 * (no `Keep-Alive` hint), then resets the connection when a second request arrives on it: what a
 * client sees when the server closes an idle keep-alive connection just as a request is sent on it.
 */
function startResettingUpstream(): Promise<{ url: string; connections: () => number; requests: string[]; close: () => void }> {
  const requests: string[] = [];
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    let served = 0;
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("latin1");
      while (buffered.includes("\r\n\r\n")) {
        const end = buffered.indexOf("\r\n\r\n") + 4;
        const head = buffered.slice(0, end);
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + length) return;
        buffered = buffered.slice(end + length);
        if (served++ > 0) {
          socket.resetAndDestroy();
          return;
        }
        requests.push(head.split(" ", 2).join(" "));
        const body = JSON.stringify({ data: { ok: true } });
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: keep-alive\r\n\r\n${body}`);
      }
    });
    socket.on("error", () => undefined);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, connections: () => connections, requests, close: () => server.close() });
    }),
  );
}

function target(baseUrl: string, method: string): ToolTarget {
  return {
    toolId: `reset.${method.toLowerCase()}`,
    providerId: "reset-upstream",
    transport: "http",
    baseUrl,
    auth: null,
    connection: null,
    allowPrivateNetwork: true,
    execution: { method, path: "/value", result_path: "data" },
    timeoutMs: 2_000,
  };
}

describe("http adapter on a keep-alive connection the upstream has closed", () => {
  // One upstream (so one pool of connections) per test.
  let upstream: Awaited<ReturnType<typeof startResettingUpstream>>;
  beforeEach(async () => {
    upstream = await startResettingUpstream();
  });
  afterEach(() => upstream.close());

  it("sends an idempotent request (GET) once more on a new connection, and the Call succeeds", async () => {
    const first = await httpAdapter.execute(target(upstream.url, "GET"), {});
    const before = upstream.connections();
    const second = await httpAdapter.execute(target(upstream.url, "GET"), {});
    expect(first.reasonCode).toBe("result.valid");
    expect(second.reasonCode).toBe("result.valid");
    expect(second.data).toEqual({ ok: true });
    // The second request went out on the reused connection (reset), then on a new one.
    expect(upstream.connections()).toBe(before + 1);
    expect(upstream.requests.filter((r) => r === "GET /value")).toHaveLength(2);
  });

  it("does not send a POST twice: the reset stands as transport.no_response", async () => {
    const first = await httpAdapter.execute(target(upstream.url, "POST"), { n: 1 });
    const before = upstream.connections();
    const second = await httpAdapter.execute(target(upstream.url, "POST"), { n: 2 });
    expect(first.reasonCode).toBe("result.valid");
    expect(second.reasonCode).toBe("transport.no_response");
    expect(second.errorMessage).toMatch(/ECONNRESET/);
    expect(upstream.connections()).toBe(before);
  });
});

describe("an answer without a body", () => {
  const none = Buffer.alloc(0);

  it("is a success when the operation declares its status without content: the data says the status and Location", () => {
    expect(classifyResponse(201, none, undefined, { declared: ["201"], location: "/pets/7" })).toEqual({ reasonCode: "result.valid", data: { status: 201, location: "/pets/7" }, httpStatus: 201 });
    expect(classifyResponse(204, none, "data", { declared: ["2XX"] })).toEqual({ reasonCode: "result.valid", data: { status: 204 }, httpStatus: 204 });
  });

  it("stays result.empty when the status is not declared so (contract section 7)", () => {
    expect(classifyResponse(200, none, undefined, { declared: ["201", "204"] })).toMatchObject({ reasonCode: "result.empty", data: {} });
    expect(classifyResponse(201, none)).toMatchObject({ reasonCode: "result.empty" });
  });
});
