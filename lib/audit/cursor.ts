import { invalidInput } from "../errors";

/**
 * Opaque keyset cursors: base64url of `<version>|<sort key>|<id>`. The sort key is an exact
 * value (a microsecond timestamp or a day), never a float, so pages never skip or repeat a row.
 */
export function encodeCursor(key: string, id: string): string {
  return Buffer.from(`v1|${key}|${id}`, "utf8").toString("base64url");
}

export function decodeCursor(raw: string, keyPattern: RegExp, idPattern: RegExp): { key: string; id: string } {
  const parts = Buffer.from(raw, "base64url").toString("utf8").split("|");
  if (parts.length !== 3 || parts[0] !== "v1" || !keyPattern.test(parts[1]) || !idPattern.test(parts[2])) {
    throw invalidInput("Invalid cursor: pass the next_cursor value of the previous page unchanged");
  }
  return { key: parts[1], id: parts[2] };
}

export const TIMESTAMP_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
export const UUID_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
