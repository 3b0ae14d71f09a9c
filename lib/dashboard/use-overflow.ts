"use client";

import { useCallback, useEffect, useState } from "react";

/**
 * Whether an element's content is wider than the element (it scrolls sideways). A region that
 * scrolls must be reachable by keyboard (WCAG 2.1.1; axe's `scrollable-region-focusable`), and
 * one that does not should not be an extra tab stop: this says which, as the width changes.
 * Returns the ref to put on the element (a callback, so an element mounted later is measured too).
 */
export function useHorizontalOverflow<E extends HTMLElement>(): [(element: E | null) => void, boolean] {
  const [element, setElement] = useState<E | null>(null);
  const [overflows, setOverflows] = useState(false);
  useEffect(() => {
    if (!element) return;
    const measure = () => setOverflows(element.scrollWidth > element.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    return () => observer.disconnect();
  }, [element]);
  return [useCallback((e: E | null) => setElement(e), []), overflows];
}
