// Reads a catalog file in either accepted format: a provider manifest (JSON) or the public tools
// list (JSONL, converted by `manifestFromToolsJsonl`).
import { readFile } from "node:fs/promises";
import { manifestFromToolsJsonl } from "./acebench";
import { type Manifest, ManifestError, formatIssueList, parseManifest } from "./manifest";

export interface LoadOptions {
  /** Keep only providers (manifest) or lines (JSONL) with this `source`. */
  source?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Parses catalog text; `origin` names it (a file path) in error messages. */
export function parseCatalogText(text: string, origin: string, opts: LoadOptions = {}): Manifest {
  let whole: unknown;
  let wholeError: string | undefined;
  try {
    whole = JSON.parse(text);
  } catch (err) {
    wholeError = (err as Error).message;
  }
  // A manifest is one JSON object with `providers`; anything else that starts like a tool line is JSONL.
  if (isObject(whole) && "providers" in whole) {
    const manifest = withOrigin(origin, () => parseManifest(whole, `manifest ${origin}`));
    return opts.source === undefined ? manifest : filterBySource(manifest, opts.source, origin);
  }
  const firstLine = text.trimStart().split(/\r?\n/, 1)[0] ?? "";
  if (firstLine.startsWith("{") && (whole === undefined || (isObject(whole) && "params" in whole))) {
    return withOrigin(origin, () => manifestFromToolsJsonl(text, opts));
  }
  const why = wholeError ? `it is not valid JSON (${wholeError})` : "it is neither a manifest ({\"providers\": [...]}) nor a tools JSONL file";
  throw new Error(`Cannot read catalog ${origin}: ${why}`);
}

/** Reads and validates a manifest JSON or tools JSONL file; errors name the file and the first issues. */
export async function loadManifestFile(path: string, opts: LoadOptions = {}): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new Error(`Cannot read catalog ${path}: ${(err as Error).message}`);
  }
  return parseCatalogText(text, path, opts);
}

function withOrigin<T>(origin: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ManifestError && !err.message.includes(origin)) {
      throw new ManifestError(`${origin}: ${err.message}`, err.issues);
    }
    throw err;
  }
}

function filterBySource(manifest: Manifest, source: string, origin: string): Manifest {
  const providers = manifest.providers.filter((p) => p.source === source);
  if (providers.length === 0) {
    const message = `no provider with source "${source}"`;
    throw new ManifestError(formatIssueList(`Nothing to import from ${origin}`, [{ path: "providers", message }]), [{ path: "providers", message }]);
  }
  return { providers };
}
