import pg from "pg";
import type { Db } from "./types";

const RECONNECT_MS = 1_000;

export interface ChannelHandlers {
  onNotification(payload: string | undefined): void;
  /** After each (re)connection: whatever was announced while disconnected was missed. */
  onConnect?(): void;
  onError?(err: Error): void;
}

/**
 * LISTENs on a channel over a dedicated PostgreSQL connection (LISTEN does not work through a
 * pool), re-established after a database restart. Returns a function that stops listening.
 */
export function listenPostgres(url: string, channel: string, handlers: ChannelHandlers): () => void {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, RECONNECT_MS);
    retry.unref();
  };

  const connect = async () => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    c.on("error", (err) => handlers.onError?.(err));
    c.on("end", () => {
      if (client === c) client = undefined;
      schedule();
    });
    c.on("notification", (msg) => handlers.onNotification(msg.payload));
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      if (stopped) return void c.end();
      client = c;
      handlers.onConnect?.();
    } catch (err) {
      handlers.onError?.(err as Error);
      c.end().catch(() => undefined);
      schedule();
    }
  };

  void connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    void client?.end().catch(() => undefined);
  };
}

interface PgliteClient {
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
}

/** LISTEN on the embedded database (in-process: pg_notify of any statement on this PGlite instance). */
export function listenPglite(db: Db, channel: string, handlers: ChannelHandlers): () => void {
  const client = (db as unknown as { $client?: PgliteClient }).$client;
  if (!client?.listen) throw new Error("listenPglite: not a PGlite database");
  let stopped = false;
  let unlisten: (() => Promise<void>) | undefined;
  client.listen(channel, (payload) => handlers.onNotification(payload)).then(
    (stop) => {
      if (stopped) void stop().catch(() => undefined);
      else {
        unlisten = stop;
        handlers.onConnect?.();
      }
    },
    (err: Error) => handlers.onError?.(err),
  );
  return () => {
    stopped = true;
    void unlisten?.().catch(() => undefined);
  };
}
