import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../testing/database";
import { startTestServer } from "../testing/server";
import { createApiApp } from "../api/app";
import { createRequestHandler } from "../server/request-handler";
import { DRAIN_MAX_BYTES, DRAIN_MAX_MS } from "./oversized-body";

const database = await createTestDatabase();
const MiB = 1024 * 1024;
const TWELVE_MB = 12 * MiB;
const TOO_LARGE = { status: "failure", status_code: 413, message: "Request body over the limit of 1048576 bytes" };

/** The production server's path: lib/server/main.ts's request handler around getRequestListener. */
async function startProductionPath(): Promise<string> {
  const api = getRequestListener(createApiApp({ database }).fetch);
  const server = http.createServer(createRequestHandler({ api, next: (_req, res) => res.writeHead(404).end() }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  afterAll(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const servers: Record<string, string> = {};
beforeAll(async () => {
  servers.production = await startProductionPath();
  servers.test = (await startTestServer(database)).url;
});

interface RawExchange {
  text: string;
  errors: string[];
  sent: number;
  closedAfterMs: number;
}

/**
 * Sends a request on a raw socket and reads the answer only once everything is sent (as urllib
 * does): `body` is written piece by piece, `pauseMs` apart, stopping if the server closes.
 */
function rawExchange(base: string, head: string, body: Buffer[], options: { pauseMs?: number; readWhileSending?: boolean } = {}): Promise<RawExchange> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect(Number(url.port), url.hostname);
    const got: Buffer[] = [];
    const errors: string[] = [];
    let sent = 0;
    socket.on("error", (err: NodeJS.ErrnoException) => errors.push(err.code ?? err.message));
    socket.on("close", () => resolve({ text: Buffer.concat(got).toString("utf8"), errors, sent, closedAfterMs: performance.now() - started }));
    if (options.readWhileSending) socket.on("data", (c: Buffer) => got.push(c));
    else socket.pause();
    socket.once("connect", async () => {
      socket.write(head);
      for (const piece of body) {
        if (socket.destroyed) break;
        sent += piece.length;
        if (!socket.write(piece)) await drainOrClose(socket);
        if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
      }
      if (!options.readWhileSending) {
        socket.on("data", (c: Buffer) => got.push(c));
        socket.resume();
      }
    });
  });
}

function drainOrClose(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off("drain", done).off("close", done);
      resolve();
    };
    socket.on("drain", done).on("close", done);
  });
}

/** 12 MB in 512 KiB pieces, 25 ms apart: a client on a slow link. */
function slowStream(): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      if (sent >= TWELVE_MB) return controller.close();
      await new Promise((r) => setTimeout(r, 25));
      controller.enqueue(new Uint8Array(MiB / 2).fill(0x61));
      sent += MiB / 2;
    },
  });
}

const pieces = (count: number, size: number) => Array.from({ length: count }, () => Buffer.alloc(size, 0x61));
const head = (headers: string) => `POST /api/v1/search HTTP/1.1\r\nHost: tollgate.test\r\nContent-Type: application/json\r\n${headers}\r\n\r\n`;
const jsonOf = (text: string) => JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));

describe.each(["production", "test"])("a body over the limit gets its 413, not a broken pipe (%s server)", (kind) => {
  it.each([
    ["at once", () => ({ body: Buffer.alloc(TWELVE_MB, 0x61) })],
    ["streamed slowly with its Content-Length", () => ({ body: slowStream(), duplex: "half", headers: { "content-length": String(TWELVE_MB) } })],
    ["streamed slowly, chunked", () => ({ body: slowStream(), duplex: "half" })],
  ])("Node's fetch sending 12 MB %s reads the 413 and its JSON body", async (_how, init: () => RequestInit & { duplex?: string; headers?: Record<string, string> }) => {
    const { headers, ...rest } = init();
    const res = await fetch(`${servers[kind]}/api/v1/search`, { ...rest, method: "POST", headers: { "content-type": "application/json", ...headers } });
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    expect(await res.json()).toEqual(TOO_LARGE);
  });

  it("Node's http sending 12 MB reads the 413, with no EPIPE", async () => {
    const outcome = await new Promise<{ status?: number; body: string; error?: string }>((resolve) => {
      const req = http.request(`${servers[kind]}/api/v1/search`, { method: "POST", headers: { "content-type": "application/json", "content-length": TWELVE_MB } });
      let error: string | undefined;
      req.on("error", (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => setTimeout(() => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString(), error }), 50));
      });
      req.on("close", () => setTimeout(() => resolve({ body: "", error }), 100));
      req.end(Buffer.alloc(TWELVE_MB, 0x61));
    });
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe(413);
    expect(JSON.parse(outcome.body)).toEqual(TOO_LARGE);
  });

  it("a raw socket sending a 12 MB Content-Length body slowly, reading only at the end, reads HTTP/1.1 413", async () => {
    const out = await rawExchange(servers[kind], head(`Content-Length: ${TWELVE_MB}`), pieces(24, MiB / 2), { pauseMs: 25 });
    expect(out.errors).toEqual([]);
    expect(out.sent).toBe(TWELVE_MB);
    expect(out.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(out.text).toMatch(/\r\nConnection: close\r\n/i);
    expect(jsonOf(out.text)).toEqual(TOO_LARGE);
  });

  it("a 12 MB chunked body, sent slowly and whole before reading, reads HTTP/1.1 413", async () => {
    const chunk = (b: Buffer) => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from("\r\n")]);
    const out = await rawExchange(servers[kind], head("Transfer-Encoding: chunked"), [...pieces(48, MiB / 4).map(chunk), Buffer.from("0\r\n\r\n")], { pauseMs: 10 });
    expect(out.errors).toEqual([]);
    expect(out.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(jsonOf(out.text)).toEqual(TOO_LARGE);
  });
});

describe("the drain after a 413 is bounded", () => {
  it(`by bytes: past ${DRAIN_MAX_BYTES / MiB} MiB the connection closes, the 413 already read`, async () => {
    const total = DRAIN_MAX_BYTES + 64 * MiB;
    const out = await rawExchange(servers.production, head(`Content-Length: ${total}`), pieces(total / MiB, MiB), { readWhileSending: true });
    expect(out.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(out.sent).toBeGreaterThan(DRAIN_MAX_BYTES);
    expect(out.sent).toBeLessThan(total);
  });

  it(`by time: a client that stops sending is closed after ${DRAIN_MAX_MS / 1000} s`, async () => {
    const out = await rawExchange(servers.production, head(`Content-Length: ${TWELVE_MB}`), pieces(1, 1024), { readWhileSending: true });
    expect(out.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(out.closedAfterMs).toBeGreaterThan(DRAIN_MAX_MS - 500);
    expect(out.closedAfterMs).toBeLessThan(DRAIN_MAX_MS + 3_000);
  }, 20_000);
});
