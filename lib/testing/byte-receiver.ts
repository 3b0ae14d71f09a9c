import http from "node:http";
import net, { type AddressInfo } from "node:net";

/**
 * A fake upstream on a free loopback port that records every request byte for byte (the raw body
 * and the headers as sent), for tests of what a Call puts on the wire. `answer` may reply to a
 * request itself (returning true); otherwise it gets a small JSON echo of its path.
 */
export interface Received {
  method: string;
  path: string;
  query: string;
  headers: http.IncomingHttpHeaders;
  /** Names and values in turn, as they arrived (a header named `__proto__` is not in `headers`). */
  rawHeaders: string[];
  body: Buffer;
}

export interface ByteReceiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startByteReceiver(answer?: (request: Received, res: http.ServerResponse) => boolean): Promise<ByteReceiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const [path, query = ""] = (req.url ?? "/").split("?");
      const request = { method: req.method ?? "", path, query, headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) };
      received.push(request);
      if (answer?.(request, res)) return;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true, path }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Parses a multipart body as a server does, with the platform's own parser (undici's). */
export function formDataOf(sent: Received): Promise<FormData> {
  return new Request("http://receiver.test/", { method: "POST", headers: { "content-type": String(sent.headers["content-type"]) }, body: new Uint8Array(sent.body) }).formData();
}

export interface RawReceiver {
  url: string;
  /** Each request's head as it arrived, Latin-1: the request line and every header line, unparsed. */
  heads: string[];
  close(): Promise<void>;
}

/**
 * A receiver below HTTP parsing, for what a server's parser would hide or refuse: a path before
 * any normalisation, a header line split in two. It reads bodies by Content-Length only and answers
 * every request 200 with a small JSON body, keeping the connection open.
 */
export async function startRawReceiver(): Promise<RawReceiver> {
  const heads: string[] = [];
  const answer = '{"ok":true}';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let buffered = "";
    socket.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("latin1");
      for (let end = buffered.indexOf("\r\n\r\n"); end >= 0; end = buffered.indexOf("\r\n\r\n")) {
        const head = buffered.slice(0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        heads.push(head);
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${answer.length}\r\n\r\n${answer}`);
      }
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      // The client keeps its connections alive: they are ended here, not after its idle timeout.
      for (const socket of sockets) socket.destroy();
    });
  return { url: `http://127.0.0.1:${port}`, heads, close };
}
