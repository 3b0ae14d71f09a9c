import type { ActivityEntry } from "./team";

export interface ChangeLine {
  key: string;
  before?: string;
  after?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

function show(value: unknown, formatInstant: (iso: string) => string): string {
  if (value === null) return "null";
  if (typeof value === "string") return ISO_INSTANT.test(value) ? formatInstant(value) : value;
  if (Array.isArray(value)) return value.map((v) => show(v, formatInstant)).join(", ") || "[]";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** A readable name for the entry's object, from what the entry kept of it (an email, a key's name). */
export function objectName(entry: Pick<ActivityEntry, "before" | "after">): { field: string; value: string } | null {
  for (const side of [entry.after, entry.before]) {
    if (!isRecord(side)) continue;
    for (const field of ["email", "name"]) {
      const value = side[field];
      if (typeof value === "string") return { field, value };
    }
  }
  return null;
}

/**
 * An entry's before and after as one line per field: `role: member → owner` where it changed,
 * just the value where only one side has it. Fields the same on both sides are left out, and so is
 * the object's name (shown as the object) unless it is what changed. Instants are shown in the page's zone.
 */
export function changeLines(entry: Pick<ActivityEntry, "before" | "after">, formatInstant: (iso: string) => string): ChangeLine[] {
  const wrap = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : v === null || v === undefined ? {} : { value: v });
  const b = wrap(entry.before);
  const a = wrap(entry.after);
  const named = objectName(entry)?.field;
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return keys.flatMap((key) => {
    const inBefore = key in b;
    const inAfter = key in a;
    const before = inBefore ? show(b[key], formatInstant) : undefined;
    const after = inAfter ? show(a[key], formatInstant) : undefined;
    if (before === after) return [];
    if (key === named && !(inBefore && inAfter)) return [];
    return [{ key, before, after }];
  });
}
