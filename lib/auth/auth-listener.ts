import type { Db } from "../db/types";
import { listenPostgres } from "../db/listen";
import { AUTH_CHANNEL, parseAuthChange } from "./auth-change";
import { forgetApiKeys } from "./api-keys";

/**
 * Listens for credential changes and drops the affected cached lookups. Whatever was announced
 * while the connection was down is covered by dropping every cached lookup on (re)connect.
 * Returns a function that stops listening.
 */
export function startAuthListener(url: string, db: Db, onError?: (err: Error) => void): () => void {
  return listenPostgres(url, AUTH_CHANNEL, {
    onNotification: (payload) => {
      const change = parseAuthChange(payload);
      forgetApiKeys(db, !change ? "all" : change.kind === "key" ? { keyHash: change.keyHash } : { accountId: change.accountId });
    },
    onConnect: () => forgetApiKeys(db, "all"),
    onError,
  });
}
