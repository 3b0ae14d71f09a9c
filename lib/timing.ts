/** Milliseconds from `start` (a `performance.now()` reading) to `now`, to 0.01 ms. */
export function msSince(start: number, now = performance.now()): number {
  return Math.round((now - start) * 100) / 100;
}
