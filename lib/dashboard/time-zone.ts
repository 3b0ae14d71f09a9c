"use client";

import { useCallback, useSyncExternalStore } from "react";
import { useUrlParams } from "./url-state";

export const UTC = "UTC";
const STORAGE_KEY = "tollgate.time-zone";
const listeners = new Set<() => void>();

export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || UTC;
  } catch {
    return UTC;
  }
}

/** The zone as IANA writes it ("asia/shanghai" → "Asia/Shanghai"), or null if it is no zone. */
export function canonicalTimeZone(zone: string): string | null {
  try {
    const resolved = new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions().timeZone;
    return resolved === "Etc/UTC" || resolved === "Etc/GMT" ? UTC : resolved;
  } catch {
    return null;
  }
}

function storedChoice(): string | null {
  try {
    return window.localStorage.getItem(STORAGE_KEY);
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

export interface TimeZoneState {
  /** The IANA zone every time on the page is shown in, and sent to the API as `tz`. */
  timeZone: string;
  /** The browser's own zone. */
  localZone: string;
  isUtc: boolean;
  /** Switches between the user's zone and UTC; remembered in this browser and put in the URL. */
  setUtc(utc: boolean): void;
}

/**
 * The time zone of the page: `?tz=` when the URL names one (a shared link keeps its buckets),
 * else the choice remembered in this browser, else the browser's zone. The server render
 * assumes UTC; the client corrects it right after hydration.
 */
export function useTimeZone(): TimeZoneState {
  const [params, update] = useUrlParams();
  const fromUrl = params.get("tz");
  const stored = useSyncExternalStore(subscribe, storedChoice, () => null);
  const localZone = useSyncExternalStore(subscribe, browserTimeZone, () => UTC);
  const fromUrlZone = fromUrl ? canonicalTimeZone(fromUrl) : null;
  const timeZone = fromUrlZone ?? (stored === UTC ? UTC : localZone);

  const setUtc = useCallback(
    (utc: boolean) => {
      try {
        if (utc) window.localStorage.setItem(STORAGE_KEY, UTC);
        else window.localStorage.removeItem(STORAGE_KEY);
      } catch {
        // Private mode without storage: the URL still carries the choice.
      }
      listeners.forEach((l) => l());
      update({ tz: utc ? UTC : null });
    },
    [update],
  );

  return { timeZone, localZone, isUtc: timeZone === UTC, setUtc };
}
