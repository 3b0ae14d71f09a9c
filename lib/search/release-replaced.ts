// Returning the memory of a replaced search index to the system. A rebuilt index (after a catalog
// change, in the background: catalog-index.ts) is allocated while the one it replaces still
// answers; afterwards V8 keeps the pages both occupied until a full collection, which an idle
// server may not run for a long time: +100 to +140 MB of RSS after each OpenAPI import on the
// 10,766-tool catalog, and more with every import (bench:search, "import at scale"). When node
// runs with `--expose-gc` (`npm start` gives it: package.json, docs/deployment.md), one full
// collection shortly after the last replacement returns them: a pause of ~0.1-0.2 s at 10,000 tools,
// once per catalog change, never per request. Without the flag this does nothing.
import { logger } from "../log";

/** Replacements this close together share one collection. */
const DELAY_MS = 200;

let pending: NodeJS.Timeout | undefined;

export function releaseReplacedIndexSoon(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== "function") return;
  clearTimeout(pending);
  pending = setTimeout(() => {
    pending = undefined;
    const started = performance.now();
    gc();
    logger.info({ ms: Math.round(performance.now() - started), rss_mb: Math.round(process.memoryUsage.rss() / 1048576) }, "released the replaced search index's memory");
  }, DELAY_MS);
  pending.unref();
}
