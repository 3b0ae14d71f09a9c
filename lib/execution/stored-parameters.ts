// The parameters an execution keeps. A file's content (an http tool's `files` parameter, inline
// as base64 or a `data:` URI) can be megabytes: the record keeps its size and SHA-256 instead, which
// is what support needs to match an upload, and never the bytes. A file URL is kept as given.
import { createHash } from "node:crypto";
import { own } from "../own";
import { decodeInlineFile, FileValueError, isUrl } from "../providers/http-files";

function fileSummary(value: unknown, field: string): unknown {
  if (typeof value !== "string" || isUrl(value)) return value;
  try {
    const file = decodeInlineFile(value, field);
    return { file: true, bytes: file.bytes.length, sha256: createHash("sha256").update(file.bytes).digest("hex"), ...(file.type ? { type: file.type } : {}) };
  } catch (err) {
    if (err instanceof FileValueError) return { file: true, invalid: true, length: value.length };
    throw err;
  }
}

/** `parameters` with each file value replaced by its summary; the same object when the tool takes no files. */
export function storedParameters(execution: Record<string, unknown>, parameters: Record<string, unknown>): Record<string, unknown> {
  const files = Array.isArray(execution.files) ? (execution.files as string[]).filter((name) => own(parameters, name) !== undefined) : [];
  if (files.length === 0) return parameters;
  const stored = { ...parameters };
  for (const name of files) {
    const value = own(parameters, name);
    stored[name] = Array.isArray(value) ? value.map((v) => fileSummary(v, name)) : fileSummary(value, name);
  }
  return stored;
}
