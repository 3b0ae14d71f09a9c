import type { Db } from "../db/types";
import { storeFullResult } from "./result-store";
import { inferSchema, projectFields, summarise, type RespondWith } from "./respond-with";

export const DEFAULT_MAX_RESPONSE_SIZE = 20_480;

export type ShapedResult =
  | { data: unknown }
  | { message: string; truncated_content: string; full_content_file_url: string; content_schema: unknown }
  | { respond_with: "summary"; content_schema: unknown; summary: unknown; full_content_file_url: string; message: string };

/** The first `maxBytes` bytes of a UTF-8 string, never splitting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString("utf8");
}

/**
 * Applies `respond_with` and `max_response_size` to a successful result. Content that does not
 * fit goes to the result store, and the client gets a signed, expiring URL to it.
 */
export async function shapeResult(db: Db, executionId: string, data: unknown, mode: RespondWith, maxResponseSize: number): Promise<{ result: ShapedResult; truncated: boolean; sizeBytes: number }> {
  if (mode.mode === "summary") {
    const json = JSON.stringify(data);
    const stored = await storeFullResult(db, executionId, json);
    return {
      result: {
        respond_with: "summary",
        content_schema: inferSchema(data),
        summary: summarise(data),
        full_content_file_url: stored.url,
        message: `Structural summary of the result; the full content (${Buffer.byteLength(json)} bytes) is at full_content_file_url until ${stored.expiresAt.toISOString()}.`,
      },
      truncated: false,
      sizeBytes: Buffer.byteLength(json),
    };
  }
  const content = mode.mode === "fields" ? projectFields(data, mode.expressions) : data;
  const json = JSON.stringify(content);
  const size = Buffer.byteLength(json);
  if (maxResponseSize === -1 || size <= maxResponseSize) return { result: { data: content }, truncated: false, sizeBytes: size };
  const stored = await storeFullResult(db, executionId, json);
  return {
    result: {
      message: `The result is ${size} bytes, above max_response_size (${maxResponseSize}); truncated_content holds the first bytes and full_content_file_url the whole content until ${stored.expiresAt.toISOString()}.`,
      truncated_content: utf8Prefix(json, maxResponseSize),
      full_content_file_url: stored.url,
      content_schema: inferSchema(content),
    },
    truncated: true,
    sizeBytes: size,
  };
}
