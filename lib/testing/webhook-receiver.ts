import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A webhook receiver on 127.0.0.1 (port 0) for tests, benches and e2e: records every request
 * (headers, raw body, arrival time) and answers with the status its `respond` picks (200 unless set).
 */
export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  receivedAt: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Decides the answer to each request (default 200). */
  respond: (req: ReceivedWebhook, index: number) => number;
  /** Resolves once `n` requests have arrived, or rejects after `timeoutMs`. */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  /** Called on every arrival (e.g. to time it). */
  onReceive?: (req: ReceivedWebhook) => void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const waiters: { n: number; resolve: () => void }[] = [];
  const receiver: WebhookReceiver = {
    url: "",
    received: [],
    respond: () => 200,
    waitFor: (n, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        if (receiver.received.length >= n) return resolve(receiver.received);
        const timer = setTimeout(() => reject(new Error(`only ${receiver.received.length} of ${n} webhooks arrived within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(receiver.received);
          },
        });
      }),
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      const item: ReceivedWebhook = { path: req.url ?? "/", headers, body: Buffer.concat(chunks).toString("utf8"), receivedAt: performance.now() };
      const index = receiver.received.push(item) - 1;
      receiver.onReceive?.(item);
      const status = receiver.respond(item, index);
      res.writeHead(status, { "content-type": "text/plain" });
      res.end(status >= 200 && status < 300 ? "ok" : `receiver says ${status}`);
      for (const w of waiters.filter((w) => receiver.received.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
