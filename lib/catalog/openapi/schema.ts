// An OpenAPI Schema Object (3.0 or 3.1, `$ref`s already resolved, possibly circular) as a finite
// JSON Schema (draft 2020-12) of what a request may carry: the form `json_schema` stores and Probe
// and Call validate with. Annotations that constrain nothing (examples, xml, discriminator) are
// dropped, as are readOnly properties, which a client never sends.
import { isObject } from "./document";

export type JsonSchemaObject = Record<string, unknown>;

export interface SchemaContext {
  /** "3.0" reads `nullable` and boolean `exclusiveMinimum`/`exclusiveMaximum`; "3.1" is JSON Schema already. */
  version: "3.0" | "3.1";
  warn(pointer: string, message: string): void;
}

/**
 * A recursive schema is unrolled this many times on one path (a category's children's children),
 * and no schema nests deeper than MAX_DEPTH; below the cut, any value of the cut schema's type passes.
 */
const MAX_REPEATS = 3;
const MAX_DEPTH = 10;
/** Schema nodes kept per parameter, so one huge body cannot bloat every tool record. */
const MAX_NODES = 400;
/** Descriptions of a body's fields and above are the params' own texts; deeper ones are only hints. */
const MAX_DESCRIPTION = 4000;
const MAX_NESTED_DESCRIPTION = 500;

const COPIED = ["const", "default", "multipleOf", "maximum", "minimum", "maxLength", "minLength", "format", "maxItems", "minItems", "uniqueItems", "maxProperties", "minProperties", "dependentRequired"];
const SUBSCHEMA = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems"];
const SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "dependentSchemas"];

/** Escapes one JSON Pointer token (RFC 6901). */
export const pointerToken = (s: string | number) => String(s).replace(/~/g, "~0").replace(/\//g, "~1");

export function requestSchema(schema: unknown, ctx: SchemaContext, pointer: string): JsonSchemaObject | boolean {
  const budget = { nodes: 0 };
  return convert(schema, ctx, pointer, [], budget);
}

function convert(schema: unknown, ctx: SchemaContext, pointer: string, ancestors: object[], budget: { nodes: number }): JsonSchemaObject | boolean {
  if (typeof schema === "boolean") return schema;
  if (!isObject(schema)) return {};
  budget.nodes++;
  const repeats = ancestors.filter((a) => a === schema).length;
  if (repeats >= MAX_REPEATS || ancestors.length >= MAX_DEPTH || budget.nodes > MAX_NODES) return shallow(schema, ctx);
  const path = [...ancestors, schema];
  const out: JsonSchemaObject = {};
  const type = typeOf(schema, ctx);
  if (type !== undefined) out.type = type;
  if (typeof schema.title === "string") out.title = schema.title.slice(0, 200);
  if (typeof schema.description === "string") out.description = schema.description.slice(0, ancestors.length <= 1 ? MAX_DESCRIPTION : MAX_NESTED_DESCRIPTION);
  // JSON Schema only says an enum *should* be non-empty; an empty one would allow nothing at all.
  if (Array.isArray(schema.enum) && schema.enum.length === 0) ctx.warn(`${pointer}/enum`, "an empty enum allows no value: ignored");
  else if (Array.isArray(schema.enum)) out.enum = ctx.version === "3.0" && schema.nullable === true && !schema.enum.includes(null) ? [...schema.enum, null] : schema.enum;
  for (const key of COPIED) if (schema[key] !== undefined) out[key] = schema[key];
  exclusiveBounds(schema, out, ctx);
  if (typeof schema.pattern === "string") {
    if (isUsablePattern(schema.pattern)) out.pattern = schema.pattern;
    else ctx.warn(`${pointer}/pattern`, `pattern ${JSON.stringify(schema.pattern)} is not a regular expression JavaScript can run: not checked`);
  }
  for (const key of SUBSCHEMA) {
    if (schema[key] !== undefined && (isObject(schema[key]) || typeof schema[key] === "boolean")) out[key] = convert(schema[key], ctx, `${pointer}/${key}`, path, budget);
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) out[key] = list.map((s, i) => convert(s, ctx, `${pointer}/${key}/${i}`, path, budget));
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = schema[key];
    if (!isObject(map)) continue;
    // Null-prototype: a property named `__proto__` is a property, not the object's prototype.
    const converted: Record<string, unknown> = Object.create(null);
    for (const [name, sub] of Object.entries(map)) {
      // A readOnly property is the server's to set: a request never carries it.
      if (key === "properties" && isObject(sub) && sub.readOnly === true) continue;
      converted[name] = convert(sub, ctx, `${pointer}/${key}/${pointerToken(name)}`, path, budget);
    }
    out[key] = converted;
  }
  if (Array.isArray(schema.required)) {
    const readOnly = (n: string) => isObject(schema.properties) && isObject(schema.properties[n]) && schema.properties[n].readOnly === true;
    const required = schema.required.filter((n): n is string => typeof n === "string" && !readOnly(n));
    if (required.length > 0) out.required = required;
  }
  return out;
}

/** Where recursion stops: the type alone (and its description), so any value of that type passes. */
function shallow(schema: Record<string, unknown>, ctx: SchemaContext): JsonSchemaObject {
  const type = typeOf(schema, ctx);
  return { ...(type !== undefined ? { type } : {}), ...(typeof schema.description === "string" ? { description: schema.description.slice(0, MAX_NESTED_DESCRIPTION) } : {}) };
}

/** 3.0's `nullable: true` is a `null` type beside the declared one. */
function typeOf(schema: Record<string, unknown>, ctx: SchemaContext): string | string[] | undefined {
  const type = schema.type;
  if (typeof type === "string") return ctx.version === "3.0" && schema.nullable === true ? [type, "null"] : type;
  if (Array.isArray(type) && type.every((t) => typeof t === "string")) return type as string[];
  return undefined;
}

/** 3.0 writes `exclusiveMinimum: true` beside `minimum`; JSON Schema writes the bound itself. */
function exclusiveBounds(schema: Record<string, unknown>, out: JsonSchemaObject, ctx: SchemaContext): void {
  for (const [exclusive, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
    const value = schema[exclusive];
    if (typeof value === "number") out[exclusive] = value;
    else if (value === true && ctx.version === "3.0" && typeof schema[bound] === "number") {
      out[exclusive] = schema[bound];
      delete out[bound];
    }
  }
}

function isUsablePattern(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}
