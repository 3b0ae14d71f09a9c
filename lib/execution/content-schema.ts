import { own, setOwn } from "../own";

/** A JSON Schema (draft 2020-12 subset) inferred from a value: the `content_schema` of a shaped result. */
export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
};

const SAMPLE_ITEMS = 50;
const MAX_DEPTH = 8;

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function merge(a: JsonSchema, b: JsonSchema): JsonSchema {
  const types = new Set([a.type, b.type].flat().filter((t): t is string => typeof t === "string"));
  if (types.has("integer") && types.has("number")) types.delete("integer");
  const out: JsonSchema = { type: types.size === 1 ? [...types][0] : [...types].sort() };
  if (a.properties || b.properties) {
    // The result's keys are the upstream's (`constructor`, `__proto__`): read and written as own properties.
    const properties: Record<string, JsonSchema> = { ...a.properties };
    for (const [k, v] of Object.entries(b.properties ?? {})) {
      const prior = own(properties, k);
      setOwn(properties, k, prior ? merge(prior, v) : v);
    }
    out.properties = properties;
  }
  if (a.items || b.items) out.items = a.items && b.items ? merge(a.items, b.items) : (a.items ?? b.items);
  return out;
}

export function inferSchema(value: unknown, depth = 0): JsonSchema {
  const type = typeOf(value);
  if (depth >= MAX_DEPTH) return { type };
  if (type === "array") {
    const items = (value as unknown[]).slice(0, SAMPLE_ITEMS).map((v) => inferSchema(v, depth + 1));
    return items.length ? { type, items: items.reduce(merge) } : { type };
  }
  if (type === "object") {
    const properties = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, inferSchema(v, depth + 1)]));
    return { type, properties };
  }
  return { type };
}
