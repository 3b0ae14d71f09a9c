// Hashing, HMAC, Base64, URL encoding and URL parsing (node:crypto and WHATWG URL).
import { createHash, createHmac } from "node:crypto";
import { BuiltinToolError } from "./errors";
import { type BuiltinHandler, bool, limitLength, oneOf, str } from "./params";

const MAX_TEXT = 1_000_000;
const HASHES = ["md5", "sha1", "sha256", "sha384", "sha512", "sha3-256"] as const;
const HMACS = ["sha1", "sha256", "sha384", "sha512"] as const;
const DIGEST_ENCODINGS = ["hex", "base64", "base64url"] as const;

const hash: BuiltinHandler = (p) => {
  const text = str(p, "text");
  limitLength("text", text, MAX_TEXT);
  const algorithm = oneOf(p, "algorithm", HASHES, "sha256");
  const encoding = oneOf(p, "encoding", DIGEST_ENCODINGS, "hex");
  const bytes = Buffer.from(text, "utf8");
  return { algorithm, encoding, digest: createHash(algorithm).update(bytes).digest(encoding), input_bytes: bytes.length };
};

const hmac: BuiltinHandler = (p) => {
  const text = str(p, "text");
  const key = str(p, "key");
  limitLength("text", text, MAX_TEXT);
  limitLength("key", key, 10_000);
  const algorithm = oneOf(p, "algorithm", HMACS, "sha256");
  const encoding = oneOf(p, "encoding", DIGEST_ENCODINGS, "hex");
  return { algorithm, encoding, signature: createHmac(algorithm, key).update(text, "utf8").digest(encoding) };
};

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

const base64: BuiltinHandler = (p) => {
  const text = str(p, "text");
  limitLength("text", text, MAX_TEXT);
  const mode = oneOf(p, "mode", ["encode", "decode"] as const);
  const urlSafe = bool(p, "url_safe", false);
  if (mode === "encode") {
    const out = Buffer.from(text, "utf8").toString(urlSafe ? "base64url" : "base64");
    return { mode, result: out };
  }
  // Buffer.from(…, "base64") silently skips garbage; validate first so typos are reported.
  const compact = text.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact) || compact.replace(/=+$/, "").length % 4 === 1) {
    throw new BuiltinToolError("text is not valid Base64");
  }
  const bytes = Buffer.from(compact.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  try {
    return { mode, result: strictUtf8.decode(bytes), bytes: bytes.length };
  } catch {
    throw new BuiltinToolError(`the decoded ${bytes.length} bytes are not UTF-8 text (hex: ${bytes.subarray(0, 32).toString("hex")}${bytes.length > 32 ? "…" : ""})`);
  }
};

const urlEncode: BuiltinHandler = (p) => {
  const text = str(p, "text");
  limitLength("text", text, MAX_TEXT);
  const mode = oneOf(p, "mode", ["encode", "decode"] as const);
  const component = bool(p, "component", true);
  if (mode === "encode") return { mode, result: component ? encodeURIComponent(text) : encodeURI(text) };
  try {
    // Form encoding writes spaces as "+"; only component decoding treats them so.
    return { mode, result: component ? decodeURIComponent(text.replace(/\+/g, " ")) : decodeURI(text) };
  } catch {
    throw new BuiltinToolError("text contains a malformed percent-encoding (e.g. a lone % or invalid UTF-8)");
  }
};

const urlParse: BuiltinHandler = (p) => {
  const text = str(p, "url");
  limitLength("url", text, 10_000);
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new BuiltinToolError(`"${text}" is not an absolute URL (it needs a scheme such as https://)`);
  }
  // Null-prototype: a query key such as `constructor` or `__proto__` is a key like any other.
  const query: Record<string, string | string[]> = Object.create(null);
  for (const [k, v] of url.searchParams) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return {
    href: url.href,
    protocol: url.protocol.replace(/:$/, ""),
    username: url.username || null,
    host: url.host,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : null,
    pathname: url.pathname,
    path_segments: url.pathname.split("/").filter(Boolean).map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    }),
    search: url.search,
    query,
    hash: url.hash ? url.hash.slice(1) : null,
    origin: url.origin,
  };
};

export const encodingHandlers: Record<string, BuiltinHandler> = {
  "crypto.hash": hash,
  "crypto.hmac": hmac,
  "encoding.base64": base64,
  "encoding.url": urlEncode,
  "web.url_parse": urlParse,
};
