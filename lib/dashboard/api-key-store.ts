"use client";

import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { apiKeysQueryKey, createApiKey, fetchApiKeys, revokeApiKey, type ApiKeyItem } from "./api-keys";

/**
 * The API key the Playground and Console call with. Discover, Inspect, Probe and Call take an API
 * key (not the dashboard's JWT), exactly as an agent would. A key's secret is shown once, at its
 * creation, so the dashboard keeps the one it uses in this browser's localStorage, under the
 * signed-in user and the account (a user of several accounts has one per account; another user
 * of the same browser never calls with it). A key kept by earlier versions under the user alone
 * moves to its account's slot once the account's key list shows it is that account's.
 *
 * The Playground's own key ("Create a playground key") is reused while it is live: the account's
 * key list (JWT) says whether the stored key was revoked. When it was, or this browser has none,
 * creating one revokes the user's previous playground keys in the account, so they never pile up
 * (docs/dashboard.md, "The playground key").
 */
export interface StoredApiKey {
  apiKey: string;
  prefix: string;
  name: string | null;
  apiKeyId: string | null;
  savedAt: string;
}

/** The name the Playground gives the keys it creates (data, not a label: the same in every language). */
export const PLAYGROUND_KEY_NAME = "playground";

const listeners = new Set<() => void>();
const PREFIX = "tollgate.playground-key.";
const storageKey = (userId: string, accountId: string) => `${PREFIX}${userId}.${accountId}`;

function read(slot: string): string | null {
  try {
    return window.localStorage.getItem(slot);
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

/** This user's slots, whatever the account: `userId.accountId`, and the per-user slot of earlier versions. */
function slotsOf(userId: string): string[] {
  const out: string[] = [];
  try {
    for (let i = 0; i < window.localStorage.length; i++) {
      const name = window.localStorage.key(i);
      if (name && (name === `${PREFIX}${userId}` || name.startsWith(`${PREFIX}${userId}.`))) out.push(name);
    }
  } catch {
    // Storage unavailable (private mode): nothing is kept.
  }
  return out;
}

export function saveApiKey(userId: string, accountId: string, key: Omit<StoredApiKey, "savedAt">): void {
  window.localStorage.setItem(storageKey(userId, accountId), JSON.stringify({ ...key, savedAt: new Date().toISOString() }));
  notify();
}

export function forgetApiKey(userId: string, accountId: string): void {
  window.localStorage.removeItem(storageKey(userId, accountId));
  notify();
}

/** Forgets the stored key, in whichever of the user's accounts, if it is the one with this id (after it was revoked). */
export function forgetApiKeyIfId(userId: string, apiKeyId: string): void {
  for (const slot of slotsOf(userId)) if (parse(read(slot))?.apiKeyId === apiKeyId) window.localStorage.removeItem(slot);
  notify();
}

/**
 * Whether the account's key list shows the stored key revoked, or lacks it though it was read after
 * the key was kept here (a list read before that may not know a key just created).
 */
export function isStoredKeyDead(key: StoredApiKey, keys: ApiKeyItem[] | undefined, listedAt: number): boolean {
  if (!keys) return false;
  // A pasted key has no id: it is recognised by its prefix (unique enough within one account).
  const same = keys.filter((k) => (key.apiKeyId ? k.api_key_id === key.apiKeyId : k.prefix === key.prefix));
  return same.length === 0 ? listedAt > Date.parse(key.savedAt) : same.every((k) => k.revoked_at !== null);
}

/** The user's live playground keys in the account: what creating a new one revokes. */
export function playgroundKeysOf(keys: ApiKeyItem[] | undefined, userId: string): ApiKeyItem[] {
  return (keys ?? []).filter((k) => k.revoked_at === null && k.name === PLAYGROUND_KEY_NAME && k.created_by === userId);
}

export interface ApiKeyStore {
  /** undefined until the browser's storage has been read (never during the server render). */
  key: StoredApiKey | null | undefined;
  save(key: Omit<StoredApiKey, "savedAt">): void;
  forget(): void;
  /** The key this browser kept was revoked (seen in the account's key list) and has been forgotten. */
  lost: boolean;
  /** The user's live playground keys whose secret this browser does not hold: creating a key revokes them. */
  replaces: ApiKeyItem[];
  /** Creates the user's playground key, revokes the previous ones, and keeps the new one here. */
  createPlaygroundKey(): Promise<StoredApiKey>;
}

export function useStoredApiKey(userId: string, accountId: string): ApiKeyStore {
  const slot = storageKey(userId, accountId);
  // The raw string is the snapshot: it is stable between reads, unlike a parsed object.
  const raw = useSyncExternalStore(subscribe, () => read(slot) ?? "", () => undefined);
  const key = useMemo(() => (raw === undefined ? undefined : parse(raw)), [raw]);
  const save = useCallback((value: Omit<StoredApiKey, "savedAt">) => saveApiKey(userId, accountId, value), [userId, accountId]);
  const forget = useCallback(() => forgetApiKey(userId, accountId), [userId, accountId]);
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: apiKeysQueryKey, queryFn: ({ signal }) => fetchApiKeys(signal) });
  const [lost, setLost] = useState(false);

  // Earlier versions kept one key per user, whichever account it was for: once this account's key
  // list shows that it is this account's key, it moves to this account's slot.
  useEffect(() => {
    const legacySlot = `${PREFIX}${userId}`;
    const legacy = parse(read(legacySlot));
    if (!legacy || key === undefined || !keys.data) return;
    const ours = keys.data.some((k) => (legacy.apiKeyId ? k.api_key_id === legacy.apiKeyId : k.prefix === legacy.prefix));
    if (!ours) return;
    if (!key) window.localStorage.setItem(slot, JSON.stringify(legacy));
    window.localStorage.removeItem(legacySlot);
    notify();
  }, [userId, slot, key, keys.data]);

  // Reuse the stored key while it is live; once the account's list shows it revoked, forget it and say so.
  useEffect(() => {
    if (key && isStoredKeyDead(key, keys.data, keys.dataUpdatedAt)) {
      forget();
      setLost(true);
    }
  }, [key, keys.data, keys.dataUpdatedAt, forget]);

  const replaces = useMemo(() => playgroundKeysOf(keys.data, userId).filter((k) => k.api_key_id !== key?.apiKeyId), [keys.data, userId, key]);
  const creating = useRef(false);

  const createPlaygroundKey = useCallback(async () => {
    if (creating.current) throw new Error("A playground key is already being created");
    creating.current = true;
    try {
      // Read the list afresh: another tab or browser may have made one since.
      const previous = playgroundKeysOf(await fetchApiKeys(), userId);
      const created = await createApiKey(PLAYGROUND_KEY_NAME);
      const stored = { apiKey: created.api_key, prefix: created.prefix, name: created.name, apiKeyId: created.api_key_id };
      saveApiKey(userId, accountId, stored);
      setLost(false);
      // Revoked after the new one exists: a failure here leaves a usable key, never none.
      await Promise.all(previous.map((k) => revokeApiKey(k.api_key_id)));
      return { ...stored, savedAt: new Date().toISOString() };
    } finally {
      creating.current = false;
      void queryClient.invalidateQueries({ queryKey: apiKeysQueryKey });
    }
  }, [userId, accountId, queryClient]);

  return { key, save, forget, lost, replaces, createPlaygroundKey };
}
