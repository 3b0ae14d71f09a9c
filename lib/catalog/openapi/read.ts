// Reads an API document from a file or an http(s) URL, as JSON or YAML. A URL is fetched through
// the outbound address guard like every request Tollgate makes (each redirect hop too).
import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import { outboundFetch } from "../../providers/outbound-fetch";
import { PrivateAddressError } from "../../providers/ssrf-guard";

/** Larger documents are refused rather than read into memory (the largest public ones are a few MB). */
const MAX_DOCUMENT_BYTES = 25 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 5;

export interface ApiDocument {
  document: unknown;
  /** The URL it was finally read from, when fetched (a relative server URL is resolved against it). */
  url?: string;
}

export const isHttpUrl = (location: string) => /^https?:\/\//i.test(location);

export async function readApiDocument(location: string, options: { allowPrivateNetwork?: boolean } = {}): Promise<ApiDocument> {
  if (!isHttpUrl(location)) {
    let text: string;
    try {
      text = await readFile(location, "utf8");
    } catch (err) {
      throw new Error(`Cannot read OpenAPI document ${location}: ${(err as Error).message}`);
    }
    return { document: parseApiText(text, location) };
  }
  const { text, url } = await fetchText(location, options.allowPrivateNetwork ?? false);
  return { document: parseApiText(text, location), url };
}

/** JSON when it looks like JSON (better messages), else YAML (a superset). */
export function parseApiText(text: string, origin: string): unknown {
  const json = /^\s*[{[]/.test(text);
  try {
    // Aliases are capped: a small YAML file must not expand into gigabytes ("billion laughs").
    return json ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 1000 });
  } catch (err) {
    throw new Error(`Cannot read OpenAPI document ${origin}: not valid ${json ? "JSON" : "YAML"} (${(err as Error).message.split("\n")[0]})`);
  }
}

async function fetchText(location: string, allowPrivateNetwork: boolean): Promise<{ text: string; url: string }> {
  const fetch = outboundFetch({ allowPrivateNetwork });
  const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  let url = location;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let res: Response;
    try {
      res = await fetch(url, { headers: { accept: "application/json, application/yaml, text/yaml, */*" }, signal });
    } catch (err) {
      if (err instanceof PrivateAddressError) {
        throw new Error(`Cannot fetch OpenAPI document ${url}: ${err.hostname === undefined ? `${err.address} is not a public address (${err.range})` : `${err.hostname} does not resolve to a public address`}; pass --allow-private-network to import from a private network`);
      }
      throw new Error(`Cannot fetch OpenAPI document ${url}: ${(err as Error).message}`);
    }
    const next = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && next) {
      await res.body?.cancel();
      url = new URL(next, url).toString();
      if (!isHttpUrl(url)) throw new Error(`Cannot fetch OpenAPI document ${location}: redirected to ${url}, which is not http(s)`);
      continue;
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new Error(`Cannot fetch OpenAPI document ${url}: HTTP ${res.status}`);
    }
    return { text: await boundedText(res, url), url };
  }
  throw new Error(`Cannot fetch OpenAPI document ${location}: more than ${MAX_REDIRECTS} redirects`);
}

async function boundedText(res: Response, url: string): Promise<string> {
  const reader = res.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
    size += read.value.length;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader?.cancel();
      throw new Error(`Cannot fetch OpenAPI document ${url}: larger than ${MAX_DOCUMENT_BYTES} bytes`);
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
