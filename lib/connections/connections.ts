// Connected accounts (docs/connections.md): a user's or an account's own credential at a
// third-party provider, made by OAuth 2.0 (authorization code with PKCE) or by pasting a secret.
// Tokens live in the vault; no operation returns them and nothing logs them.
import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { accountMembers, accounts, connections, connectionStates, providerOauthApps, providers, users, type ConnectionKind, type ConnectionStatus } from "../db/schema";
import type { Db } from "../db/types";
import type { ProviderConnection } from "../catalog/manifest";
import { DomainError, forbidden, invalidInput, notFound } from "../errors";
import { newId } from "../ids";
import { publicUrl } from "../env";
import { randomToken, sha256Hex } from "../auth/secrets";
import { open, seal } from "../vault/vault";
import { recordActivity, type Actor } from "../accounts/activity";
import type { UserRole } from "../vocab/roles";
import { logger } from "../log";
import { appEnvNames, authorizationRequest, clientConfiguration, exchangeCode, GrantRefused, ProviderNotConnectable, ProviderUnreachable, revokeAtProvider, type GrantedTokens, type OAuthConnection } from "./oauth-client";

/** A connect flow must come back within this. */
export const STATE_TTL_MS = 10 * 60 * 1000;
export const CALLBACK_PATH = "/api/v1/connections/callback";

export const redirectUri = () => `${publicUrl()}${CALLBACK_PATH}`;

export const tokenContext = (column: "access_token" | "refresh_token", id: string) => `connections.${column}:${id}`;
export const verifierContext = (stateHash: string) => `connection_states.code_verifier:${stateHash}`;

export interface ConnectionView {
  connection_id: string;
  provider_id: string;
  provider_name: string;
  kind: ConnectionKind;
  /** `user`: one member's own; `account`: shared with every member of the account. */
  owner: "user" | "account";
  user_id: string | null;
  user_email: string | null;
  scopes: string[];
  status: ConnectionStatus;
  status_reason: string | null;
  created_at: string;
  last_used_at: string | null;
  last_refreshed_at: string | null;
  /** When the current access token expires (not a secret); null when the provider did not say. */
  expires_at: string | null;
}

/** Who is acting on connections: a dashboard user or their token (connections are a person's). */
export interface ConnectionActor {
  accountId: string;
  userId: string;
  role: UserRole;
  actor: Actor;
}

export interface ConnectableProvider {
  id: string;
  name: string;
  connection: ProviderConnection;
  allowPrivateNetwork: boolean;
}

/** Providers one can connect to, and whether the operator has registered Tollgate with each OAuth one. */
export async function connectableProviders(db: Db): Promise<
  { provider_id: string; name: string; kind: ConnectionKind; format: "token" | "basic" | null; label: string | null; scopes: Record<string, string>; ready: boolean }[]
> {
  const found = await db
    .select({ id: providers.id, name: providers.name, connection: providers.connection })
    .from(providers)
    .where(sql`${providers.connection} IS NOT NULL`)
    .orderBy(asc(providers.name));
  const apps = new Set((await db.select({ id: providerOauthApps.providerId }).from(providerOauthApps)).map((a) => a.id));
  return found.map((p) => {
    const c = p.connection as ProviderConnection;
    return {
      provider_id: p.id,
      name: p.name,
      kind: c.type,
      format: c.type === "secret" ? c.format : null,
      label: c.type === "secret" ? (c.label ?? null) : null,
      scopes: c.type === "oauth2" ? (c.scopes ?? Object.fromEntries(c.default_scopes.map((s) => [s, s]))) : {},
      ready: c.type === "secret" || apps.has(p.id) || Boolean(process.env[appEnvNames(p.id).clientId]),
    };
  });
}

export async function connectableProvider(db: Db, providerId: string): Promise<ConnectableProvider> {
  const [row] = await db
    .select({ id: providers.id, name: providers.name, connection: providers.connection, allowPrivateNetwork: providers.allowPrivateNetwork })
    .from(providers)
    .where(eq(providers.id, providerId))
    .limit(1);
  if (!row) throw notFound(`Unknown provider "${providerId.slice(0, 100)}"`);
  if (!row.connection) throw invalidInput(`Provider ${providerId} takes no connections: its tools call with the server's credential`, { type: "provider_not_connectable", loc: ["body", "provider_id"] });
  return { ...row, connection: row.connection as ProviderConnection };
}

/** Whether `role` may share a connection with the whole account (owners always; members when the owner allows it). */
async function mayShare(db: Db, accountId: string, role: UserRole): Promise<boolean> {
  if (role === "owner") return true;
  const [account] = await db.select({ sharing: accounts.connectionSharing }).from(accounts).where(eq(accounts.id, accountId));
  return role === "member" && account?.sharing === "members";
}

/** A return path inside the dashboard (never another origin): `/console?tool=…`. */
export function safeReturnTo(value: string | undefined | null): string | null {
  if (!value) return null;
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\") || value.length > 2000 || /[\u0000-\u001f]/.test(value)) return null;
  return value;
}

/**
 * Starts an OAuth connect flow: a single-use state bound to the user, account and provider, a PKCE
 * verifier, and the provider's authorization URL the browser is sent to.
 */
export async function startOAuthConnect(
  db: Db,
  who: ConnectionActor,
  input: { providerId: string; shared: boolean; scopes: string[]; returnTo?: string | null },
): Promise<{ authorization_url: string; expires_at: string; scopes: string[] }> {
  const provider = await connectableProvider(db, input.providerId);
  if (provider.connection.type !== "oauth2") throw invalidInput(`Provider ${provider.id} connects with a pasted ${provider.connection.format === "basic" ? "user name and password" : "secret"}, not OAuth: send secret`, { type: "secret_required", loc: ["body", "secret"] });
  if (input.shared && !(await mayShare(db, who.accountId, who.role))) throw forbidden("Only the account's owners may share a connection with the account (an owner can allow members to)");
  const scopes = [...new Set([...provider.connection.default_scopes, ...input.scopes])];
  const offered = provider.connection.scopes;
  const unknown = offered ? scopes.filter((s) => !Object.hasOwn(offered, s)) : [];
  if (unknown.length > 0) throw invalidInput(`Provider ${provider.id} offers no scope ${unknown.map((s) => `"${s}"`).join(", ")}`, { type: "unknown_scope", loc: ["body", "scopes"], input: unknown });
  const config = await oauthConfig(db, provider);
  const state = randomToken(32);
  const stateHash = sha256Hex(state);
  const request = await authorizationRequest(config, { redirectUri: redirectUri(), scopes, state });
  const expiresAt = new Date(Date.now() + STATE_TTL_MS);
  await db.insert(connectionStates).values({
    stateHash,
    accountId: who.accountId,
    userId: who.userId,
    providerId: provider.id,
    shared: input.shared,
    scopes,
    codeVerifier: seal(request.codeVerifier, verifierContext(stateHash)),
    returnTo: safeReturnTo(input.returnTo),
    expiresAt,
  });
  // Expired flows go as new ones start: the table holds only those in progress.
  await db.delete(connectionStates).where(lt(connectionStates.expiresAt, new Date()));
  return { authorization_url: request.url, expires_at: expiresAt.toISOString(), scopes };
}

async function oauthConfig(db: Db, provider: ConnectableProvider) {
  try {
    return await clientConfiguration(db, { id: provider.id, connection: provider.connection as OAuthConnection, allowPrivateNetwork: provider.allowPrivateNetwork });
  } catch (err) {
    if (err instanceof ProviderNotConnectable) throw new DomainError("conflict", err.message);
    if (err instanceof ProviderUnreachable) throw new DomainError("upstream_unavailable", err.message);
    throw err;
  }
}

/** A connection made from a pasted secret (API key, token, or user name and password). */
export async function connectWithSecret(
  db: Db,
  who: ConnectionActor,
  input: { providerId: string; shared: boolean; secret: { value: string } | { username: string; password: string } },
): Promise<ConnectionView> {
  const provider = await connectableProvider(db, input.providerId);
  const c = provider.connection;
  if (c.type !== "secret") throw invalidInput(`Provider ${provider.id} connects by OAuth sign-in: leave out secret and send the browser to the authorization_url`, { type: "oauth_required", loc: ["body", "secret"] });
  if (input.shared && !(await mayShare(db, who.accountId, who.role))) throw forbidden("Only the account's owners may share a connection with the account (an owner can allow members to)");
  const basic = "username" in input.secret;
  if (basic !== (c.format === "basic")) {
    throw invalidInput(c.format === "basic" ? "This provider takes a user name and password: send secret.username and secret.password" : "This provider takes one value: send secret.value", { type: "secret_format", loc: ["body", "secret"] });
  }
  const value = "username" in input.secret ? `${input.secret.username}:${input.secret.password}` : input.secret.value;
  return saveConnection(db, who, { providerId: provider.id, shared: input.shared, kind: "secret", scopes: [], tokens: { accessToken: value } });
}

/**
 * Stores a connection's credential (new, or reconnecting: the same owner and provider), in one
 * transaction with its activity entry (provider, owner, scopes; never a token).
 */
async function saveConnection(
  db: Db,
  who: ConnectionActor,
  input: { providerId: string; shared: boolean; kind: ConnectionKind; scopes: string[]; tokens: GrantedTokens },
): Promise<ConnectionView> {
  const userId = input.shared ? null : who.userId;
  const id = await db.transaction(async (tx) => {
    const owner = and(eq(connections.accountId, who.accountId), eq(connections.providerId, input.providerId), userId ? eq(connections.userId, userId) : isNull(connections.userId));
    const [existing] = await tx.select({ id: connections.id, status: connections.status }).from(connections).where(owner).for("update");
    const connectionId = existing?.id ?? newId("con");
    const fields = {
      kind: input.kind,
      scopes: input.scopes,
      status: "active" as const,
      statusReason: null,
      accessToken: seal(input.tokens.accessToken, tokenContext("access_token", connectionId)),
      refreshToken: input.tokens.refreshToken ? seal(input.tokens.refreshToken, tokenContext("refresh_token", connectionId)) : null,
      expiresAt: input.tokens.expiresAt ?? null,
      updatedAt: new Date(),
    };
    if (existing) {
      await tx.update(connections).set({ ...fields, tokenVersion: sql`${connections.tokenVersion} + 1` }).where(eq(connections.id, connectionId));
    } else {
      await tx.insert(connections).values({ id: connectionId, accountId: who.accountId, userId, providerId: input.providerId, createdBy: who.userId, ...fields });
    }
    await recordActivity(tx as unknown as Db, who.accountId, who.actor, {
      action: existing ? "connection.reconnected" : "connection.connected",
      objectType: "connection",
      objectId: connectionId,
      ...(existing ? { before: { status: existing.status } } : {}),
      after: { provider_id: input.providerId, owner: userId ? "user" : "account", user_id: userId, kind: input.kind, scopes: input.scopes },
    });
    return connectionId;
  });
  return (await viewsWhere(db, eq(connections.id, id)))[0];
}

export type CallbackOutcome = { ok: true; providerId: string; returnTo: string | null; connection: ConnectionView } | { ok: false; status: 400 | 403 | 502; message: string; returnTo: string | null };

/**
 * The provider's redirect back. The state must be one this server issued, unused and unexpired,
 * and the browser must be signed in as the user who started the flow (a link with someone else's
 * state cannot attach their account at the provider to this user, nor this user's to theirs). The
 * state is spent before the code is exchanged, so a replayed callback finds nothing.
 */
export async function completeOAuthConnect(db: Db, input: { callbackUrl: URL; browserUser: { userId: string; accountId: string }; actor: (accountId: string, userId: string) => Promise<Actor> }): Promise<CallbackOutcome> {
  const state = input.callbackUrl.searchParams.get("state");
  if (!state) return { ok: false, status: 400, message: "The provider's answer carries no state: start connecting again", returnTo: null };
  const stateHash = sha256Hex(state);
  const [flow] = await db.delete(connectionStates).where(eq(connectionStates.stateHash, stateHash)).returning();
  if (!flow || flow.expiresAt.getTime() < Date.now()) {
    return { ok: false, status: 400, message: "This sign-in link has expired or was already used: start connecting again", returnTo: flow?.returnTo ?? null };
  }
  if (flow.userId !== input.browserUser.userId) {
    logger.warn({ provider_id: flow.providerId, account_id: flow.accountId }, "connect callback refused: the browser is signed in as another user than the one who started the flow");
    return { ok: false, status: 403, message: "This sign-in was started by another user: sign in to Tollgate as that user, or start connecting yourself", returnTo: null };
  }
  const providerError = input.callbackUrl.searchParams.get("error");
  if (providerError) {
    return { ok: false, status: 400, message: providerError === "access_denied" ? "The connection was not allowed at the provider" : `The provider answered ${providerError.slice(0, 100)}`, returnTo: flow.returnTo };
  }
  const [membership] = await db
    .select({ role: accountMembers.role })
    .from(accountMembers)
    .where(and(eq(accountMembers.accountId, flow.accountId), eq(accountMembers.userId, flow.userId)));
  if (!membership) return { ok: false, status: 403, message: "You are no longer a member of the account this connection was for", returnTo: null };
  const provider = await connectableProvider(db, flow.providerId);
  let tokens: GrantedTokens;
  try {
    const config = await oauthConfig(db, provider);
    tokens = await exchangeCode(config, input.callbackUrl, { codeVerifier: open(flow.codeVerifier, verifierContext(stateHash)), state });
  } catch (err) {
    if (err instanceof GrantRefused || err instanceof ProviderUnreachable || err instanceof DomainError) {
      return { ok: false, status: 502, message: `The provider did not complete the connection: ${err.message}`, returnTo: flow.returnTo };
    }
    throw err;
  }
  const actor = await input.actor(flow.accountId, flow.userId);
  const connection = await saveConnection(
    db,
    { accountId: flow.accountId, userId: flow.userId, role: membership.role, actor },
    { providerId: flow.providerId, shared: flow.shared, kind: "oauth2", scopes: tokens.scopes ?? flow.scopes, tokens },
  );
  return { ok: true, providerId: flow.providerId, returnTo: flow.returnTo, connection };
}

function view(row: {
  id: string;
  providerId: string;
  providerName: string | null;
  kind: ConnectionKind;
  userId: string | null;
  email: string | null;
  scopes: string[];
  status: ConnectionStatus;
  statusReason: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  lastRefreshedAt: Date | null;
  expiresAt: Date | null;
}): ConnectionView {
  return {
    connection_id: row.id,
    provider_id: row.providerId,
    provider_name: row.providerName ?? row.providerId,
    kind: row.kind,
    owner: row.userId ? "user" : "account",
    user_id: row.userId,
    user_email: row.email,
    scopes: row.scopes,
    status: row.status,
    status_reason: row.statusReason,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    last_refreshed_at: row.lastRefreshedAt?.toISOString() ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
  };
}

async function viewsWhere(db: Db, where: ReturnType<typeof and>): Promise<ConnectionView[]> {
  const found = await db
    .select({
      id: connections.id,
      providerId: connections.providerId,
      providerName: providers.name,
      kind: connections.kind,
      userId: connections.userId,
      email: users.email,
      scopes: connections.scopes,
      status: connections.status,
      statusReason: connections.statusReason,
      createdAt: connections.createdAt,
      lastUsedAt: connections.lastUsedAt,
      lastRefreshedAt: connections.lastRefreshedAt,
      expiresAt: connections.expiresAt,
    })
    .from(connections)
    .leftJoin(providers, eq(providers.id, connections.providerId))
    .leftJoin(users, eq(users.id, connections.userId))
    .where(where)
    .orderBy(asc(connections.providerId), asc(connections.createdAt));
  return found.map(view);
}

/**
 * The connections a user sees: their own and the account's shared ones; owners and support see
 * every member's too (who connected what is the account's business), never anyone's tokens.
 */
export async function listConnections(db: Db, who: { accountId: string; userId: string; role: UserRole }): Promise<ConnectionView[]> {
  const all = who.role === "owner" || who.role === "support";
  return viewsWhere(db, and(eq(connections.accountId, who.accountId), all ? undefined : or(eq(connections.userId, who.userId), isNull(connections.userId))));
}

/**
 * Disconnects: revokes at the provider where it has a revocation endpoint (RFC 7009; a provider
 * that cannot be reached does not keep the user connected), deletes the tokens, and keeps the row
 * as `revoked` for the record. Users disconnect their own; owners any of the account's.
 */
export async function disconnect(db: Db, who: ConnectionActor, connectionId: string): Promise<ConnectionView & { revoked_at_provider: boolean }> {
  const [row] = await db.select().from(connections).where(and(eq(connections.id, connectionId), eq(connections.accountId, who.accountId)));
  if (!row) throw notFound(`Connection ${connectionId.slice(0, 100)} not found in this account`);
  const own = row.userId === who.userId || (row.userId === null && row.createdBy === who.userId);
  if (!own && who.role !== "owner") throw forbidden("Only the connection's user or an owner of the account may disconnect it");
  const revoked = await revokeTokens(db, row);
  await db.transaction(async (tx) => {
    await tx
      .update(connections)
      .set({ status: "revoked", statusReason: "disconnected", accessToken: null, refreshToken: null, expiresAt: null, tokenVersion: sql`${connections.tokenVersion} + 1`, updatedAt: new Date() })
      .where(eq(connections.id, row.id));
    await recordActivity(tx as unknown as Db, who.accountId, who.actor, {
      action: "connection.disconnected",
      objectType: "connection",
      objectId: row.id,
      before: { provider_id: row.providerId, owner: row.userId ? "user" : "account", user_id: row.userId, status: row.status, scopes: row.scopes },
      after: { status: "revoked", revoked_at_provider: revoked },
    });
  });
  return { ...(await viewsWhere(db, eq(connections.id, row.id)))[0], revoked_at_provider: revoked };
}

/** RFC 7009 at the provider: the refresh token (which takes the grant with it), then the access token. */
async function revokeTokens(db: Db, row: typeof connections.$inferSelect): Promise<boolean> {
  if (row.kind !== "oauth2" || (!row.accessToken && !row.refreshToken)) return false;
  try {
    const provider = await connectableProvider(db, row.providerId);
    const config = await clientConfiguration(db, { id: provider.id, connection: provider.connection as OAuthConnection, allowPrivateNetwork: provider.allowPrivateNetwork }, { discoverRevocation: true });
    let revoked = false;
    if (row.refreshToken) revoked = await revokeAtProvider(config, open(row.refreshToken, tokenContext("refresh_token", row.id)), "refresh_token");
    if (row.accessToken) revoked = (await revokeAtProvider(config, open(row.accessToken, tokenContext("access_token", row.id)), "access_token")) || revoked;
    return revoked;
  } catch (err) {
    logger.warn({ connection_id: row.id, provider_id: row.providerId, err: (err as Error).message }, "revocation at the provider failed; the tokens are deleted here");
    return false;
  }
}

/** Disconnects a user's personal connections in an account (a removed member): tokens revoked and deleted. */
export async function disconnectUser(db: Db, accountId: string, userId: string, actor: Actor): Promise<number> {
  const rows = await db
    .select({ id: connections.id })
    .from(connections)
    .where(and(eq(connections.accountId, accountId), eq(connections.userId, userId), inArray(connections.status, ["active", "needs_reauth"])));
  for (const { id } of rows) await disconnect(db, { accountId, userId, role: "owner", actor }, id);
  return rows.length;
}

/** Who may share connections with the whole account (owner's choice). */
export async function setConnectionSharing(db: Db, who: ConnectionActor, sharing: "owners" | "members"): Promise<{ sharing: "owners" | "members" }> {
  await db.transaction(async (tx) => {
    const [before] = await tx.select({ sharing: accounts.connectionSharing }).from(accounts).where(eq(accounts.id, who.accountId)).for("update");
    if (before?.sharing === sharing) return;
    await tx.update(accounts).set({ connectionSharing: sharing }).where(eq(accounts.id, who.accountId));
    await recordActivity(tx as unknown as Db, who.accountId, who.actor, { action: "connection.policy_set", objectType: "account", objectId: who.accountId, before: { sharing: before?.sharing }, after: { sharing } });
  });
  return { sharing };
}

export async function connectionSharing(db: Db, accountId: string): Promise<"owners" | "members"> {
  const [row] = await db.select({ sharing: accounts.connectionSharing }).from(accounts).where(eq(accounts.id, accountId));
  return row?.sharing ?? "owners";
}
