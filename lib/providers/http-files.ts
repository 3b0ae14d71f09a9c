// File values of a Call (an http tool's `files` parameters): bytes given inline as base64 or a
// `data:` URI, or, where the operator allows it, an https URL fetched through the outbound guard.
// Probe and Call check them with `fileValueIssues` before anything is reserved or sent; the
// adapter turns them into bytes with `resolveFile`.
import { outboundFileUrlsAllowed } from "../env";
import { own } from "../own";
import { outboundFetch } from "./outbound-fetch";

/** The bytes a Call may send as files, all of its file values together (decoded or fetched). */
export const MAX_CALL_FILE_BYTES = 10 * 1024 * 1024;

export interface FileBytes {
  bytes: Buffer;
  /** The media type the value declared (a `data:` URI's, or the fetched answer's Content-Type). */
  type?: string;
  filename?: string;
}

/** A file value that cannot be used: the Call fails validation (nothing is sent, nothing charged). */
export class FileValueError extends Error {}

const DATA_URI = /^data:([^,]*?),(.*)$/s;
const BASE64 = /^[A-Za-z0-9+/\-_]*={0,2}$/;

const EXTENSIONS: Record<string, string> = {
  "image/jpeg": "jpg",
  "text/plain": "txt",
  "audio/mpeg": "mp3",
  "application/octet-stream": "bin",
  "image/svg+xml": "svg",
};

/** A filename for bytes of `type` sent as field `field` (a part with a filename is a file to every server). */
export function filenameFor(field: string, type: string | undefined): string {
  const base = field.replace(/[^A-Za-z0-9._-]/g, "_") || "file";
  if (!type) return base;
  const essence = type.split(";")[0].trim().toLowerCase();
  const ext = EXTENSIONS[essence] ?? essence.split("/")[1]?.replace(/^x-/, "").replace(/[^a-z0-9]/g, "");
  return ext ? `${base}.${ext}` : base;
}

/** Whether a file value is an URL to fetch (the only non-inline form). */
export const isUrl = (value: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(value);

/**
 * The bytes of an inline value: a `data:` URI (`data:<type>[;name=<file>][;base64],<data>`) or bare
 * base64 (standard or URL-safe alphabet, whitespace ignored). Throws `FileValueError` with the reason.
 */
export function decodeInlineFile(value: string, field: string): FileBytes {
  const data = DATA_URI.exec(value);
  if (data) {
    const [mediaType, ...params] = data[1].split(";").map((s) => s.trim());
    const base64 = params.includes("base64");
    const name = params.find((p) => p.startsWith("name="))?.slice(5);
    let bytes: Buffer;
    if (base64) bytes = decodeBase64(data[2], `"${field}" is a data: URI whose content is not valid base64`);
    else {
      try {
        bytes = Buffer.from(decodeURIComponent(data[2]), "utf8");
      } catch {
        throw new FileValueError(`"${field}" is a data: URI whose content is not valid percent-encoding`);
      }
    }
    // RFC 2397: without a type, the data is text/plain.
    const type = mediaType || "text/plain";
    return { bytes, type, filename: name ? decodeURIComponent(name) : filenameFor(field, type) };
  }
  return { bytes: decodeBase64(value, `"${field}" must be base64, a data: URI or an https URL`) };
}

function decodeBase64(text: string, message: string): Buffer {
  const compact = text.replace(/\s+/g, "");
  if (!BASE64.test(compact) || compact.length % 4 === 1) throw new FileValueError(message);
  return Buffer.from(compact, compact.includes("-") || compact.includes("_") ? "base64url" : "base64");
}

/** The file values of a parameter: one, or each item of an array (several parts of one name). */
export function fileValues(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

export interface FileIssue {
  path: (string | number)[];
  type: "file_invalid" | "file_too_large" | "file_url_not_allowed";
  message: string;
}

/**
 * What is wrong with a Call's file values, without fetching anything: inline values must decode
 * and all of them together fit `MAX_CALL_FILE_BYTES`; an URL must be https and allowed by the
 * operator (`OUTBOUND_FILE_URLS=allow`); its size is known only when the Call fetches it.
 */
export function fileValueIssues(files: readonly string[], parameters: Record<string, unknown>): FileIssue[] {
  const issues: FileIssue[] = [];
  let total = 0;
  for (const field of files) {
    const value = own(parameters, field);
    if (value === undefined || value === null) continue;
    const many = Array.isArray(value);
    fileValues(value).forEach((item, i) => {
      const path = many ? [field, i] : [field];
      if (typeof item !== "string") {
        issues.push({ path, type: "file_invalid", message: notAString(field) });
        return;
      }
      if (isUrl(item)) {
        const problem = urlProblem(item, field);
        if (problem) issues.push({ path, type: problem.type, message: problem.message });
        return;
      }
      try {
        total += decodeInlineFile(item, field).bytes.length;
      } catch (err) {
        if (!(err instanceof FileValueError)) throw err;
        issues.push({ path, type: "file_invalid", message: err.message });
      }
    });
  }
  if (total > MAX_CALL_FILE_BYTES) {
    issues.push({ path: [files[0]], type: "file_too_large", message: tooLargeMessage(total) });
  }
  return issues;
}

const notAString = (field: string) => `"${field}" must be a string: base64, a data: URI or an https URL`;
const tooLargeMessage = (bytes: number) => `the Call's files are ${bytes} bytes, more than the ${MAX_CALL_FILE_BYTES} bytes (10 MiB) a Call may send`;

function urlProblem(value: string, field: string): { type: FileIssue["type"]; message: string } | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { type: "file_invalid", message: `"${field}" is not a valid URL` };
  }
  if (url.protocol !== "https:") return { type: "file_invalid", message: `"${field}": a file URL must be https (got ${url.protocol.slice(0, -1)})` };
  if (url.username || url.password) return { type: "file_invalid", message: `"${field}": a file URL may not carry credentials` };
  if (!outboundFileUrlsAllowed()) {
    return { type: "file_url_not_allowed", message: `"${field}": this server does not fetch files from URLs (OUTBOUND_FILE_URLS is not "allow"); send the bytes as base64 or a data: URI` };
  }
  return undefined;
}

/** Bytes already counted for one Call's files (the limit holds for all of them together). */
export interface FileBudget {
  used: number;
}

/**
 * The bytes of one file value, fetching an https URL through the outbound guard (public addresses
 * only, no redirects, within the Call's deadline and the remaining budget). Throws `FileValueError`.
 */
export async function resolveFile(value: unknown, field: string, budget: FileBudget, deadline: number): Promise<FileBytes> {
  if (typeof value !== "string") throw new FileValueError(notAString(field));
  const file = isUrl(value) ? await fetchFile(value, field, budget, deadline) : decodeInlineFile(value, field);
  budget.used += file.bytes.length;
  if (budget.used > MAX_CALL_FILE_BYTES) throw new FileValueError(tooLargeMessage(budget.used));
  return file;
}

async function fetchFile(value: string, field: string, budget: FileBudget, deadline: number): Promise<FileBytes> {
  const problem = urlProblem(value, field);
  if (problem) throw new FileValueError(problem.message);
  const url = new URL(value);
  const where = `"${field}" (${url.host})`;
  let response: Response;
  try {
    // A user's URL never reaches a private address, whatever the provider may.
    response = await outboundFetch({ allowPrivateNetwork: false })(url, { signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
  } catch (err) {
    throw new FileValueError(`the file of ${where} could not be fetched: ${(err as Error).message}`);
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new FileValueError(`the file of ${where} could not be fetched: HTTP ${response.status}`);
  }
  const room = MAX_CALL_FILE_BYTES - budget.used;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (;;) {
    const chunk = reader ? await reader.read() : { done: true as const, value: undefined };
    if (chunk.done) break;
    size += chunk.value.length;
    if (size > room) {
      await reader?.cancel();
      throw new FileValueError(`the file of ${where} is larger than the ${MAX_CALL_FILE_BYTES} bytes (10 MiB) a Call may send`);
    }
    chunks.push(chunk.value);
  }
  const type = response.headers.get("content-type") ?? undefined;
  const last = decodeURIComponent(url.pathname.split("/").pop() ?? "");
  return { bytes: Buffer.concat(chunks), type, filename: last || filenameFor(field, type) };
}
