"use client";

import { useCallback, useMemo, useSyncExternalStore } from "react";

/**
 * The API key the Playground and Console call with. Discover, Inspect, Probe and Call take an API
 * key (not the dashboard's JWT), exactly as an agent would; the user picks one and it is kept in
 * this browser's localStorage, under the signed-in user's id so another user of the same browser
 * never calls with it.
 */
export interface StoredApiKey {
  apiKey: string;
  prefix: string;
  name: string | null;
  apiKeyId: string | null;
  savedAt: string;
}

const listeners = new Set<() => void>();
const storageKey = (userId: string) => `tollgate.playground-key.${userId}`;

function read(userId: string): string | null {
  try {
    return window.localStorage.getItem(storageKey(userId));
  } catch {
    return null;
  }
}

function parse(raw: string | null): StoredApiKey | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<StoredApiKey>;
    if (typeof value.apiKey !== "string" || !value.apiKey) return null;
    return {
      apiKey: value.apiKey,
      prefix: typeof value.prefix === "string" ? value.prefix : value.apiKey.slice(0, 11),
      name: typeof value.name === "string" ? value.name : null,
      apiKeyId: typeof value.apiKeyId === "string" ? value.apiKeyId : null,
      savedAt: typeof value.savedAt === "string" ? value.savedAt : new Date(0).toISOString(),
    };
  } catch {
    return null;
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener("storage", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", listener);
  };
}

function notify() {
  listeners.forEach((l) => l());
}

export function saveApiKey(userId: string, key: Omit<StoredApiKey, "savedAt">): void {
  window.localStorage.setItem(storageKey(userId), JSON.stringify({ ...key, savedAt: new Date().toISOString() }));
  notify();
}

export function forgetApiKey(userId: string): void {
  window.localStorage.removeItem(storageKey(userId));
  notify();
}

/** Forgets the stored key if it is the one with this id (after it was revoked). */
export function forgetApiKeyIfId(userId: string, apiKeyId: string): void {
  if (parse(read(userId))?.apiKeyId === apiKeyId) forgetApiKey(userId);
}

export interface ApiKeyStore {
  /** undefined until the browser's storage has been read (never during the server render). */
  key: StoredApiKey | null | undefined;
  save(key: Omit<StoredApiKey, "savedAt">): void;
  forget(): void;
}

export function useStoredApiKey(userId: string): ApiKeyStore {
  // The raw string is the snapshot: it is stable between reads, unlike a parsed object.
  const raw = useSyncExternalStore(subscribe, () => read(userId) ?? "", () => undefined);
  const key = useMemo(() => (raw === undefined ? undefined : parse(raw)), [raw]);
  const save = useCallback((value: Omit<StoredApiKey, "savedAt">) => saveApiKey(userId, value), [userId]);
  const forget = useCallback(() => forgetApiKey(userId), [userId]);
  return { key, save, forget };
}
