import crypto from "node:crypto";
import type { Db } from "../db/types";
import type { ProviderOutcome } from "../providers/types";

/**
 * Provider-response cache for tools marked cacheable, per tool TTL. In-process (a miss on another
 * instance only costs a provider call); only usable results are kept.
 */
const MAX_ENTRIES = 10_000;
const caches = new WeakMap<Db, Map<string, { outcome: ProviderOutcome; expiresAt: number }>>();

/** JSON with sorted keys: equal parameters give equal keys whatever their order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function hashOf(value: unknown): string {
  return crypto.createHash("sha256").update(canonicalJson(value)).digest("hex");
}

function cacheFor(db: Db) {
  let c = caches.get(db);
  if (!c) {
    c = new Map();
    caches.set(db, c);
  }
  return c;
}

export function cachedOutcome(db: Db, toolId: string, parameters: Record<string, unknown>): ProviderOutcome | undefined {
  const cache = cacheFor(db);
  const key = `${toolId}:${hashOf(parameters)}`;
  const hit = cache.get(key);
  if (!hit) return undefined;
  if (hit.expiresAt <= Date.now()) {
    cache.delete(key);
    return undefined;
  }
  return hit.outcome;
}

export function storeOutcome(db: Db, toolId: string, parameters: Record<string, unknown>, outcome: ProviderOutcome, ttlSeconds: number): void {
  if (outcome.reasonCode !== "result.valid" || ttlSeconds <= 0) return;
  const cache = cacheFor(db);
  if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
  cache.set(`${toolId}:${hashOf(parameters)}`, { outcome, expiresAt: Date.now() + ttlSeconds * 1000 });
}
