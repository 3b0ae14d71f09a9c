"use client";

import { useSyncExternalStore } from "react";

/**
 * Whether a CSS media query matches. The server render (and the first client render) assume it
 * does not, so layouts chosen by width must not change anything server-rendered.
 */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (listener) => {
      const list = window.matchMedia(query);
      list.addEventListener("change", listener);
      return () => list.removeEventListener("change", listener);
    },
    () => window.matchMedia(query).matches,
    () => false,
  );
}

/** Below Tailwind's `sm` breakpoint: tables become stacked cards. */
export function usePhoneLayout(): boolean {
  return useMediaQuery("(max-width: 639.98px)");
}
