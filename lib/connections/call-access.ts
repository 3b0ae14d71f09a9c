// Which connection a Call acts with, and its access token fresh (docs/connections.md): the
// acting user's own, then the account's shared one. Refreshes are single-flight: one per
// connection in this instance, and across instances a row lock after which the waiters re-read
// the row and use the token the first one got (NangoHQ/nango#1005: two refreshes of a rotating
// token and the second loses the grant).
import { and, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { apiKeys, connections } from "../db/schema";
import type { Db } from "../db/types";
import { poolOf } from "../db/open";
import type { HttpExecution, ProviderConnection } from "../catalog/manifest";
import { chooseCredentials, takesConnection } from "../providers/http-credentials";
import type { CallConnection, ToolTarget } from "../providers/types";
import { publicUrl } from "../env";
import { logger } from "../log";
import { open, seal, VaultError } from "../vault/vault";
import { recordActivity, SYSTEM } from "../accounts/activity";
import { notify } from "../alerts/notify-sql";
import { clientConfiguration, GrantRefused, ProviderNotConnectable, ProviderUnreachable, refreshGrant, type OAuthProvider } from "./oauth-client";
import { tokenContext } from "./connections";

/** An access token this close to its expiry is refreshed before use. */
export const REFRESH_AHEAD_MS = 60_000;

/** Who a Call acts for: the user of a token, or an API key (whose creator's connection it uses). */
export interface ConnectionSubject {
  accountId: string;
  userId: string | null;
  apiKeyId: string | null;
}

export type CallAccess =
  /** Nothing of the caller's is needed (the server's secrets, or none). */
  | { kind: "none" }
  | { kind: "connection"; connection: CallConnection; connectionId: string; reconnect: Signin }
  | ({ kind: "signin"; message: string } & Signin)
  /** The provider could not refresh now, or the vault cannot open the token: a server-side failure, not the user's. */
  | { kind: "unavailable"; message: string };

/** Where the user goes to connect (or reconnect) for a Call: the dashboard's connect page for this provider and these scopes. */
export interface Signin {
  providerId: string;
  scopes: string[];
  signinUrl: string;
}

type Row = typeof connections.$inferSelect;

/** The provider a connection is to, as the Call's target names it. */
type ConnectionProvider = { id: string; connection: ProviderConnection; allowPrivateNetwork: boolean };

/** The user whose connection a Call uses: the token's user, or the API key's creator (null: the CLI's keys). */
async function actingUser(db: Db, subject: ConnectionSubject): Promise<string | null> {
  if (subject.userId) return subject.userId;
  if (!subject.apiKeyId) return null;
  const [key] = await db.select({ createdBy: apiKeys.createdBy }).from(apiKeys).where(eq(apiKeys.id, subject.apiKeyId));
  return key?.createdBy ?? null;
}

/** The dashboard page that starts connecting `providerId` for `userId` (or, for a key with no user, the account's shared connection). */
export function signinUrl(input: { providerId: string; scopes: string[]; userId: string | null; returnTo?: string }): string {
  const url = new URL(`${publicUrl()}/connections/connect`);
  url.searchParams.set("provider", input.providerId);
  if (input.scopes.length) url.searchParams.set("scope", input.scopes.join(" "));
  if (input.userId) url.searchParams.set("for", input.userId);
  else url.searchParams.set("shared", "1");
  if (input.returnTo) url.searchParams.set("return_to", input.returnTo);
  return url.href;
}

/**
 * What a Call of `target` needs of the caller's connections. Looked up only for tools that take
 * one; the first candidate (own, then shared) that is active, fresh and grants the operation's
 * scopes wins.
 */
export async function callAccess(db: Db, subject: ConnectionSubject, target: ToolTarget, options: { refresh?: boolean } = {}): Promise<CallAccess> {
  const security = (target.execution as Partial<HttpExecution>).security;
  if (target.transport !== "http" || !target.connection || !takesConnection(security, target.auth)) return { kind: "none" };
  const provider: ConnectionProvider = { id: target.providerId, connection: target.connection, allowPrivateNetwork: target.allowPrivateNetwork };
  const userId = await actingUser(db, subject);
  const owners = userId ? or(eq(connections.userId, userId), isNull(connections.userId)) : isNull(connections.userId);
  const rows = await db
    .select()
    .from(connections)
    .where(and(eq(connections.accountId, subject.accountId), eq(connections.providerId, target.providerId), inArray(connections.status, ["active", "needs_reauth"]), owners));
  // The user's own first, then the account's.
  rows.sort((a, b) => Number(a.userId === null) - Number(b.userId === null));
  let unavailable: string | undefined;
  // A connection waiting for its user to sign in again serves no Call; its scopes are asked for again below.
  for (const row of rows.filter((r) => r.status === "active")) {
    let secret: { token: string; version: number } | null;
    try {
      secret = options.refresh === false ? currentSecret(row) : await freshSecret(db, row, provider);
    } catch (err) {
      if (err instanceof ProviderUnreachable || err instanceof VaultError || err instanceof ProviderNotConnectable) {
        unavailable ??= err.message;
        continue;
      }
      throw err;
    }
    if (secret === null) continue;
    const connection = callConnection(db, row, secret, provider);
    if (!chooseCredentials(security, target.auth, connection).ok) continue;
    if (options.refresh !== false) void touch(db, row.id);
    const scopes = row.kind === "oauth2" ? row.scopes : [];
    return { kind: "connection", connection, connectionId: row.id, reconnect: { providerId: target.providerId, scopes, signinUrl: signinUrl({ providerId: target.providerId, scopes, userId: row.userId }) } };
  }
  const choice = chooseCredentials(security, target.auth, undefined);
  if (choice.ok) return { kind: "none" };
  if (!choice.signin) return { kind: "none" };
  if (unavailable) return { kind: "unavailable", message: unavailable };
  // Reconnecting asks again for what the user's connection already had, beside what this operation needs.
  const had = rows.find((r) => r.userId === userId)?.scopes ?? [];
  const scopes = [...new Set([...had, ...choice.signin.scopes])];
  return { kind: "signin", providerId: target.providerId, scopes, signinUrl: signinUrl({ providerId: target.providerId, scopes, userId }), message: choice.message };
}

function callConnection(db: Db, row: Row, secret: { token: string; version: number }, provider: ConnectionProvider): CallConnection {
  let refreshed = false;
  return {
    secret: secret.token,
    scopes: row.kind === "oauth2" ? row.scopes : null,
    basicFromToken: provider.connection.type === "secret" && provider.connection.format === "token",
    refreshAfterUnauthorized:
      row.kind === "oauth2" && row.refreshToken
        ? async () => {
            if (refreshed) return null;
            refreshed = true;
            try {
              const next = await refreshOnce(db, row.id, secret.version, provider as OAuthProvider);
              return next.kind === "token" ? { token: next.token } : "needs_reauth";
            } catch (err) {
              logger.warn({ connection_id: row.id, err: (err as Error).message }, "refresh after an upstream 401 failed");
              return null;
            }
          }
        : undefined,
  };
}

function touch(db: Db, id: string): Promise<void> {
  // Last used to the minute: a Call does not write the row each time.
  return db
    .update(connections)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(connections.id, id), sql`(${connections.lastUsedAt} IS NULL OR ${connections.lastUsedAt} < now() - interval '1 minute')`))
    .then(
      () => undefined,
      (err: Error) => logger.warn({ connection_id: id, err: err.message }, "could not record a connection's last use"),
    );
}

/** The connection's secret as stored, due for refresh or not (Probe: no side effects); null when a refresh could not renew it. */
function currentSecret(row: Row): { token: string; version: number } | null {
  if (!row.accessToken) return null;
  const expired = row.kind === "oauth2" && row.expiresAt !== null && row.expiresAt.getTime() < Date.now();
  if (expired && !row.refreshToken) return null;
  return { token: open(row.accessToken, tokenContext("access_token", row.id)), version: row.tokenVersion };
}

/** The connection's secret (with the token version it is), refreshed first when it is about to expire; null when it needs the user again. */
async function freshSecret(db: Db, row: Row, provider: ConnectionProvider): Promise<{ token: string; version: number } | null> {
  if (!row.accessToken) return null;
  const expiring = row.kind === "oauth2" && row.expiresAt !== null && row.expiresAt.getTime() - Date.now() < REFRESH_AHEAD_MS;
  if (!expiring) return { token: open(row.accessToken, tokenContext("access_token", row.id)), version: row.tokenVersion };
  if (!row.refreshToken) {
    await markNeedsReauth(db, row, "the access token expired and the provider gave no refresh token");
    return null;
  }
  const next = await refreshOnce(db, row.id, row.tokenVersion, provider as OAuthProvider);
  return next.kind === "token" ? next : null;
}

type Refreshed = { kind: "token"; token: string; version: number } | { kind: "needs_reauth" };

/** Refreshes in flight in this process, per database handle (an instance) and connection version. */
const inFlight = new WeakMap<Db, Map<string, Promise<Refreshed>>>();

/**
 * Refreshes the connection's tokens unless another Call already has: `seenVersion` is the token
 * version the caller read. In this instance one refresh runs per connection and version; across
 * instances the row lock decides, and a waiter that finds a newer version uses its token.
 */
export function refreshOnce(db: Db, connectionId: string, seenVersion: number, provider: OAuthProvider): Promise<Refreshed> {
  let flights = inFlight.get(db);
  if (!flights) inFlight.set(db, (flights = new Map()));
  const key = `${connectionId}:${seenVersion}`;
  let flight = flights.get(key);
  if (!flight) {
    flight = refreshLocked(db, connectionId, seenVersion, provider).finally(() => flights.delete(key));
    flights.set(key, flight);
  }
  return flight;
}

async function refreshLocked(db: Db, connectionId: string, seenVersion: number, provider: OAuthProvider): Promise<Refreshed> {
  // PGlite has one connection and one process (its lock file): the in-process flight is the whole
  // guard there, and a transaction held across the provider's answer would stall every request.
  if (!poolOf(db)) {
    const [row] = await db.select().from(connections).where(eq(connections.id, connectionId));
    return refreshRow(db, db, row, seenVersion, provider);
  }
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(connections).where(eq(connections.id, connectionId)).for("update");
    return refreshRow(db, tx as unknown as Db, row, seenVersion, provider);
  });
}

async function refreshRow(db: Db, tx: Db, row: Row | undefined, seenVersion: number, provider: OAuthProvider): Promise<Refreshed> {
  if (!row || row.status !== "active" || !row.accessToken) return { kind: "needs_reauth" };
  // Another Call (here or on another instance) refreshed while this one waited: its token is current.
  if (row.tokenVersion !== seenVersion) return { kind: "token", token: open(row.accessToken, tokenContext("access_token", row.id)), version: row.tokenVersion };
  if (!row.refreshToken) {
    await markNeedsReauth(db, row, "the access token expired and the provider gave no refresh token", tx);
    return { kind: "needs_reauth" };
  }
  const providerConfig = await clientConfiguration(db, provider);
  let tokens;
  try {
    tokens = await refreshGrant(providerConfig, open(row.refreshToken, tokenContext("refresh_token", row.id)));
  } catch (err) {
    if (err instanceof GrantRefused) {
      await markNeedsReauth(db, row, `the provider refused to refresh (${err.error})`, tx);
      return { kind: "needs_reauth" };
    }
    throw err;
  }
  await tx
    .update(connections)
    .set({
      accessToken: seal(tokens.accessToken, tokenContext("access_token", row.id)),
      // A provider that rotates sends a new refresh token; one that does not keeps the old one valid.
      ...(tokens.refreshToken ? { refreshToken: seal(tokens.refreshToken, tokenContext("refresh_token", row.id)) } : {}),
      expiresAt: tokens.expiresAt ?? null,
      ...(tokens.scopes ? { scopes: tokens.scopes } : {}),
      tokenVersion: row.tokenVersion + 1,
      lastRefreshedAt: new Date(),
      updatedAt: new Date(),
    })
    .where(eq(connections.id, row.id));
  return { kind: "token", token: tokens.accessToken, version: row.tokenVersion + 1 };
}

/** The provider will not refresh: the user must connect again. Recorded, and the account told (once per connection version). */
async function markNeedsReauth(db: Db, row: Row, reason: string, tx: Db = db): Promise<void> {
  const updated = await tx
    .update(connections)
    .set({ status: "needs_reauth", statusReason: reason, updatedAt: new Date() })
    .where(and(eq(connections.id, row.id), eq(connections.status, "active")))
    .returning({ id: connections.id });
  if (updated.length === 0) return;
  logger.info({ connection_id: row.id, provider_id: row.providerId, reason }, "connection needs its user to sign in again");
  await recordActivity(tx, row.accountId, SYSTEM, {
    action: "connection.needs_reauth",
    objectType: "connection",
    objectId: row.id,
    before: { status: "active" },
    after: { status: "needs_reauth", reason, provider_id: row.providerId, user_id: row.userId },
  });
  await notify(tx, {
    accountId: row.accountId,
    kind: "connection_needs_reauth",
    claimKey: `connection_needs_reauth:${row.id}:${row.tokenVersion}`,
    payload: { connection_id: row.id, provider_id: row.providerId, user_id: row.userId, reason, signin_url: signinUrl({ providerId: row.providerId, scopes: row.scopes, userId: row.userId }) },
  });
}
