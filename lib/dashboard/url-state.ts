"use client";

import { useCallback } from "react";
import { usePathname, useRouter, useSearchParams, type ReadonlyURLSearchParams } from "next/navigation";

export type UrlPatch = Record<string, string | number | boolean | null | undefined>;

/** What the readers below need of URLSearchParams (or Next's read-only ones). */
export type ParamReader = { get(name: string): string | null };

/**
 * The page's filters live in its URL so a view can be shared and reloaded. `update` merges a
 * patch into the current query (null, undefined and "" remove a parameter) and replaces the
 * history entry, without scrolling.
 */
export function useUrlParams(): [ReadonlyURLSearchParams, (patch: UrlPatch) => void] {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const update = useCallback(
    (patch: UrlPatch) => {
      // Read the live URL, not the render's snapshot, so two updates in one tick both apply.
      const next = new URLSearchParams(window.location.search);
      for (const [name, value] of Object.entries(patch)) {
        if (value === null || value === undefined || value === "") next.delete(name);
        else next.set(name, String(value));
      }
      const qs = next.toString();
      router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
    },
    [router, pathname],
  );
  return [params, update];
}

/** A positive integer from the URL, else the fallback. */
export function intParam(params: ParamReader, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = params.get(name);
  const n = raw ? Number.parseInt(raw, 10) : Number.NaN;
  return Number.isFinite(n) && n >= 1 ? Math.min(n, max) : fallback;
}

/** One of a closed set of values from the URL, else undefined. */
export function enumParam<T extends string>(params: ParamReader, name: string, values: readonly T[]): T | undefined {
  const raw = params.get(name);
  return raw && (values as readonly string[]).includes(raw) ? (raw as T) : undefined;
}

/** The page sizes a list offers; the default is left out of the URL. */
export const PAGE_SIZES = [25, 50, 100];
export const DEFAULT_PAGE_SIZE = 50;

/** `page` and `page_size` from the URL; a size the lists do not offer falls back to the default. */
export function pagingParams(params: ParamReader): { page: number; pageSize: number } {
  const size = intParam(params, "page_size", DEFAULT_PAGE_SIZE);
  return { page: intParam(params, "page", 1), pageSize: PAGE_SIZES.includes(size) ? size : DEFAULT_PAGE_SIZE };
}
