import { JSONPathError, jsonpath } from "json-p3";
import { inferSchema } from "./content-schema";

/** `respond_with`: `full` (default), `fields:<JSONPath,...>` rooted at `result.data`, or `summary`. */
export type RespondWith = { mode: "full" } | { mode: "summary" } | { mode: "fields"; expressions: string[] };

export class ProjectionError extends Error {}

/** Splits on commas outside brackets, parentheses and quotes: `$['a','b']` is one expression. */
function splitExpressions(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === "\\") {
        current += ch + (text[i + 1] ?? "");
        i++;
        continue;
      }
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "[" || ch === "(") depth++;
    else if (ch === "]" || ch === ")") depth--;
    else if (ch === "," && depth === 0) {
      out.push(current.trim());
      current = "";
      continue;
    }
    current += ch;
  }
  out.push(current.trim());
  return out;
}

/** Parses and compiles `respond_with`; an invalid mode or JSONPath is a ProjectionError (422). */
export function parseRespondWith(value: string | undefined): RespondWith {
  if (value === undefined || value === "full") return { mode: "full" };
  if (value === "summary") return { mode: "summary" };
  if (!value.startsWith("fields:")) {
    throw new ProjectionError(`respond_with must be "full", "summary" or "fields:<JSONPath,...>", got "${value}"`);
  }
  const expressions = splitExpressions(value.slice("fields:".length)).filter((e) => e.length > 0);
  if (expressions.length === 0) throw new ProjectionError("respond_with fields: needs at least one non-empty JSONPath expression");
  for (const expression of expressions) {
    try {
      jsonpath.compile(expression);
    } catch (err) {
      if (err instanceof JSONPathError) throw new ProjectionError(`Invalid JSONPath "${expression}": ${err.message}`);
      throw err;
    }
  }
  return { mode: "fields", expressions };
}

/** Each expression (rooted at result.data) maps to the list of values it selects. */
export function projectFields(data: unknown, expressions: string[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const expression of expressions) out[expression] = jsonpath.compile(expression).query(data as never).values();
  return out;
}

/**
 * A deterministic structural summary (no model call): the shape, sizes, item counts of arrays,
 * and the first scalar fields, enough for an agent to decide whether to fetch the full content.
 */
export function summarise(data: unknown): Record<string, unknown> {
  const json = JSON.stringify(data) ?? "null";
  const summary: Record<string, unknown> = { type: Array.isArray(data) ? "array" : data === null ? "null" : typeof data, size_bytes: Buffer.byteLength(json) };
  if (Array.isArray(data)) {
    summary.item_count = data.length;
    summary.first_item = data[0] === undefined ? null : preview(data[0]);
  } else if (data && typeof data === "object") {
    const entries = Object.entries(data as Record<string, unknown>);
    summary.keys = entries.map(([k]) => k).slice(0, 50);
    summary.array_lengths = Object.fromEntries(entries.filter(([, v]) => Array.isArray(v)).map(([k, v]) => [k, (v as unknown[]).length]));
    summary.scalars = Object.fromEntries(entries.filter(([, v]) => v === null || typeof v !== "object").slice(0, 10).map(([k, v]) => [k, preview(v)]));
  } else {
    summary.value = preview(data);
  }
  return summary;
}

function preview(value: unknown): unknown {
  if (typeof value === "string") return value.length > 200 ? `${value.slice(0, 200)}…` : value;
  if (value && typeof value === "object") {
    const json = JSON.stringify(value);
    return json.length > 200 ? `${json.slice(0, 200)}…` : value;
  }
  return value;
}

export { inferSchema };
