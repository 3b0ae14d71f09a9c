import http from "node:http";
import type { AddressInfo } from "node:net";

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
      const request = { method: req.method ?? "", path, query, headers: req.headers, body: Buffer.concat(chunks) };
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
