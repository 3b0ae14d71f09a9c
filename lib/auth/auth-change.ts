// Changes to credentials every instance must see at once: a revoked API key, a disabled or
// re-enabled account. Announced with pg_notify inside the changing transaction (PostgreSQL
// delivers it at commit); each instance's listener (auth-listener.ts) drops its cached lookups.
import { sql } from "drizzle-orm";
import type { Db } from "../db/types";

export const AUTH_CHANNEL = "tollgate_auth";

export const ACCOUNT_DISABLED = "This account is disabled; its credentials are refused. Contact support.";

export type AuthChange = { kind: "key"; keyHash: string } | { kind: "account"; accountId: string };

export async function notifyAuthChange(db: Db, change: AuthChange): Promise<void> {
  const payload = change.kind === "key" ? `key:${change.keyHash}` : `account:${change.accountId}`;
  await db.execute(sql`select pg_notify(${AUTH_CHANNEL}, ${payload})`);
}

/** The change a notification announces; undefined for a payload this version does not know. */
export function parseAuthChange(payload: string | undefined): AuthChange | undefined {
  const [kind, value] = (payload ?? "").split(/:(.*)/s);
  if (kind === "key" && value) return { kind: "key", keyHash: value };
  if (kind === "account" && value) return { kind: "account", accountId: value };
  return undefined;
}
