import { type SQL, and, desc, eq, isNull, sql } from "drizzle-orm";
import { accounts, apiKeys } from "../db/schema";
import { spendByApiKey } from "../audit/usage-history";
import type { Db } from "../db/types";
import { forbidden, notFound, unauthorized } from "../errors";
import { ACCOUNT_DISABLED, notifyAuthChange } from "./auth-change";
import { newUuid } from "../ids";
import { creditsToNumber } from "../money";
import { randomToken, sha256Hex } from "./secrets";
import { type Actor, SYSTEM, recordActivity } from "../accounts/activity";

const KEY_PREFIX = "tg_";
const VISIBLE_CHARS = 11;
/**
 * Lookups are cached this long; a revocation or a disabled account reaches every instance's cache
 * at once through a notification (auth-change.ts), and within this time if one were missed.
 */
const CACHE_TTL_MS = 5_000;
const LAST_USED_RESOLUTION_MS = 60_000;

export interface ApiKeyPrincipal {
  apiKeyId: string;
  accountId: string;
}

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(KEY_PREFIX) && token.length >= 20 && token.length <= 128;
}

/**
 * Creates a key and records `api_key.created` in the same transaction. A user's key remembers who
 * created it (`created_by`), so a removed member's keys can be listed for review. Without an
 * actor the key is Tollgate's own (seeding, tests).
 */
export async function createApiKey(db: Db, input: { accountId: string; name?: string; actor?: Actor }) {
  const apiKey = `${KEY_PREFIX}${randomToken(30)}`;
  const id = newUuid();
  const prefix = apiKey.slice(0, VISIBLE_CHARS);
  const name = input.name ?? "default";
  const actor = input.actor ?? SYSTEM;
  const createdBy = actor.type === "user" || actor.type === "support" ? (actor.id ?? null) : null;
  const row = await db.transaction(async (tx) => {
    const [created] = await tx
      .insert(apiKeys)
      .values({ id, accountId: input.accountId, name, prefix, keyHash: sha256Hex(apiKey), createdBy })
      .returning({ createdAt: apiKeys.createdAt });
    await recordActivity(tx as unknown as Db, input.accountId, actor, { action: "api_key.created", objectType: "api_key", objectId: id, after: { name, prefix } });
    return created;
  });
  return { api_key_id: id, api_key: apiKey, prefix, name, created_at: row.createdAt.toISOString() };
}

export interface RevokedKey {
  api_key_id: string;
  name: string;
  prefix: string;
  /** For evicting the key from this instance's cache once the transaction has committed. */
  keyHash: string;
}

/**
 * Revokes the live keys matching `where` inside the caller's transaction: each records
 * `api_key.revoked` (with `reason` when given) and tells every instance to drop it from its cache
 * at commit. Keys already revoked are left as they are. Call `forgetRevokedKeys` after the commit.
 */
export async function revokeKeysInTransaction(tx: Db, where: SQL, actor: Actor, reason?: string): Promise<RevokedKey[]> {
  const revoked = await tx
    .update(apiKeys)
    .set({ revokedAt: sql`now()` })
    .where(and(where, isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id, accountId: apiKeys.accountId, name: apiKeys.name, prefix: apiKeys.prefix, keyHash: apiKeys.keyHash });
  for (const key of revoked) {
    await recordActivity(tx, key.accountId, actor, {
      action: "api_key.revoked",
      objectType: "api_key",
      objectId: key.id,
      before: { name: key.name, prefix: key.prefix, revoked: false },
      after: reason ? { revoked: true, reason } : { revoked: true },
    });
    await notifyAuthChange(tx, { kind: "key", keyHash: key.keyHash });
  }
  return revoked.map((k) => ({ api_key_id: k.id, name: k.name, prefix: k.prefix, keyHash: k.keyHash }));
}

/** After the revoking transaction committed: this instance stops accepting the keys at once (others hear the notification). */
export function forgetRevokedKeys(db: Db, keys: readonly RevokedKey[]): void {
  for (const key of keys) cacheFor(db).delete(key.keyHash);
}

/** Revokes a key (idempotent); the first revocation records `api_key.revoked` in its transaction. */
export async function revokeApiKey(db: Db, input: { id: string; accountId?: string; actor?: Actor }) {
  const where = input.accountId ? and(eq(apiKeys.id, input.id), eq(apiKeys.accountId, input.accountId))! : eq(apiKeys.id, input.id);
  const revoked = await db.transaction((tx) => revokeKeysInTransaction(tx as unknown as Db, where, input.actor ?? SYSTEM));
  if (revoked.length === 0) {
    const existing = await db.select({ id: apiKeys.id, accountId: apiKeys.accountId }).from(apiKeys).where(eq(apiKeys.id, input.id));
    if (existing.length === 0 || (input.accountId && existing[0].accountId !== input.accountId)) {
      throw notFound(`API key ${input.id} not found`);
    }
    return { api_key_id: input.id, revoked: true };
  }
  forgetRevokedKeys(db, revoked);
  return { api_key_id: input.id, revoked: true };
}

/**
 * The account's keys, newest first, with what each has spent: the settled credits of the usage
 * events it made (the same amounts the ledger recorded) and how many events it made.
 */
export async function listApiKeys(db: Db, input: { accountId: string }) {
  const [rows, spend] = await Promise.all([
    db
      .select({
        id: apiKeys.id,
        name: apiKeys.name,
        prefix: apiKeys.prefix,
        lastUsedAt: apiKeys.lastUsedAt,
        revokedAt: apiKeys.revokedAt,
        createdBy: apiKeys.createdBy,
        createdAt: apiKeys.createdAt,
      })
      .from(apiKeys)
      .where(eq(apiKeys.accountId, input.accountId))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)),
    spendByApiKey(db, input.accountId),
  ]);
  return rows.map((r) => ({
    api_key_id: r.id,
    name: r.name,
    prefix: r.prefix,
    last_used_at: r.lastUsedAt?.toISOString() ?? null,
    revoked_at: r.revokedAt?.toISOString() ?? null,
    created_at: r.createdAt.toISOString(),
    created_by: r.createdBy,
    credits_spent: creditsToNumber(spend.get(r.id)?.spent ?? "0"),
    usage_event_count: spend.get(r.id)?.events ?? 0,
  }));
}

/** Whether a key exists and is not revoked; a plain read (unlike authentication, it marks no use). */
export async function isLiveApiKey(db: Db, apiKey: string): Promise<boolean> {
  const rows = await db.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.keyHash, sha256Hex(apiKey))).limit(1);
  return rows.length === 1 && rows[0].revokedAt === null;
}

interface CacheEntry {
  principal: ApiKeyPrincipal | null;
  accountDisabled: boolean;
  expiresAt: number;
  touchedAt: number;
}
const caches = new WeakMap<Db, Map<string, CacheEntry>>();
function cacheFor(db: Db): Map<string, CacheEntry> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  return cache;
}

/** Drops cached lookups after a change another instance (or this one) made: one key, one account's keys, or all. */
export function forgetApiKeys(db: Db, change: { keyHash: string } | { accountId: string } | "all"): void {
  const cache = caches.get(db);
  if (!cache) return;
  if (change === "all") return cache.clear();
  if ("keyHash" in change) return void cache.delete(change.keyHash);
  for (const [hash, entry] of cache) if (entry.principal?.accountId === change.accountId) cache.delete(hash);
}

/** Resolves a presented API key to its account; cached briefly so a Call does not re-read it. */
export async function authenticateApiKey(db: Db, apiKey: string): Promise<ApiKeyPrincipal> {
  if (!looksLikeApiKey(apiKey)) throw unauthorized("Malformed API key");
  const hash = sha256Hex(apiKey);
  const cache = cacheFor(db);
  const now = Date.now();
  let entry = cache.get(hash);
  if (!entry || entry.expiresAt <= now) {
    const rows = await db
      .select({ id: apiKeys.id, accountId: apiKeys.accountId, revokedAt: apiKeys.revokedAt, disabledAt: accounts.disabledAt })
      .from(apiKeys)
      .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
      .where(eq(apiKeys.keyHash, hash))
      .limit(1);
    const row = rows[0];
    entry = {
      principal: row && !row.revokedAt ? { apiKeyId: row.id, accountId: row.accountId } : null,
      accountDisabled: Boolean(row?.disabledAt),
      expiresAt: now + CACHE_TTL_MS,
      touchedAt: entry?.touchedAt ?? 0,
    };
    if (cache.size > 10_000) cache.clear();
    cache.set(hash, entry);
  }
  if (!entry.principal) throw unauthorized("Unknown or revoked API key");
  if (entry.accountDisabled) throw forbidden(ACCOUNT_DISABLED);
  if (now - entry.touchedAt > LAST_USED_RESOLUTION_MS) {
    entry.touchedAt = now;
    // last_used_at is advisory: written at most once a minute per key, never on the request's path.
    void db
      .update(apiKeys)
      .set({ lastUsedAt: sql`now()` })
      .where(eq(apiKeys.id, entry.principal.apiKeyId))
      .catch(() => undefined);
  }
  return entry.principal;
}
