import pg from "pg";
import type { Db } from "../db/types";
import { AUTH_CHANNEL, parseAuthChange } from "./auth-change";
import { forgetApiKeys } from "./api-keys";

const RECONNECT_MS = 1_000;

/**
 * Listens for credential changes on a dedicated PostgreSQL connection (LISTEN does not work through
 * a pool) and drops the affected cached lookups. The connection is re-established after a database
 * restart; whatever was announced meanwhile is covered by dropping every cached lookup on
 * reconnect. Returns a function that stops listening.
 */
export function startAuthListener(url: string, db: Db, onError?: (err: Error) => void): () => void {
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
    c.on("error", (err) => onError?.(err));
    c.on("end", () => {
      if (client === c) client = undefined;
      schedule();
    });
    c.on("notification", (msg) => {
      const change = parseAuthChange(msg.payload);
      forgetApiKeys(db, !change ? "all" : change.kind === "key" ? { keyHash: change.keyHash } : { accountId: change.accountId });
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${AUTH_CHANNEL}`);
      if (stopped) return void c.end();
      client = c;
      forgetApiKeys(db, "all");
    } catch (err) {
      onError?.(err as Error);
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
