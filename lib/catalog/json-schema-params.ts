// JSON Schema → the contract's flat parameter: shared by the importers whose sources describe
// inputs in JSON Schema (MCP tool listings, OpenAPI documents).
import { own } from "../own";
import { type ParamType, type ToolParam, matchesParamType } from "./manifest";

/** The subset of JSON Schema that tool inputs use. */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  items?: JsonSchema | JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  maxItems?: number;
}

const PARAM_TYPES: Record<string, ParamType> = { string: "string", number: "number", integer: "integer", boolean: "boolean", object: "object", array: "array" };

/** A nullable or single-branch union (`anyOf: [{type: "string"}, {type: "null"}]`) is its one real branch. */
function unwrap(schema: JsonSchema): JsonSchema {
  const branches = schema.anyOf ?? schema.oneOf;
  if (schema.type !== undefined || !branches) return schema;
  const real = branches.filter((b) => b.type !== "null");
  return real.length === 1 ? { ...real[0], description: schema.description ?? real[0].description, default: schema.default ?? real[0].default } : schema;
}

/**
 * JSON Schema type → param type: the first non-null type; without a type, what `enum`/`const`,
 * `properties` or `items` imply; anything else (an untyped or mixed value) imports as `string`,
 * the same fallback as the ACEBench import.
 */
function paramType(schema: JsonSchema): ParamType {
  const types = (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []).filter((t) => t !== "null");
  if (types.length > 0) return own(PARAM_TYPES, types[0]) ?? "string";
  const sample = schema.enum?.[0] ?? schema.const;
  if (typeof sample === "number") return Number.isInteger(sample) ? "integer" : "number";
  if (typeof sample === "boolean") return "boolean";
  if (schema.properties) return "object";
  if (schema.items) return "array";
  return "string";
}

const primitive = (v: unknown): v is string | number | boolean => typeof v === "string" || typeof v === "number" || typeof v === "boolean";

function enumOf(schema: JsonSchema, type: ParamType): (string | number | boolean)[] | undefined {
  const values = (schema.enum ?? (schema.const !== undefined ? [schema.const] : [])).filter((v) => primitive(v) && matchesParamType(v, type)) as (string | number | boolean)[];
  return values.length > 0 ? values : undefined;
}

export function paramFromJsonSchema(name: string, raw: JsonSchema, required: boolean): ToolParam {
  const schema = unwrap(raw);
  const type = paramType(schema);
  const param: ToolParam = { name, type, required, description: (schema.description ?? schema.title ?? "").slice(0, 4000) };
  const values = enumOf(schema, type);
  if (values) param.enum = values;
  if (type === "array" && schema.items && !Array.isArray(schema.items)) {
    const items = unwrap(schema.items);
    const itemType = paramType(items);
    const itemEnum = enumOf(items, itemType);
    param.items = { type: itemType, ...(itemEnum ? { enum: itemEnum } : {}), ...(itemType === "object" && items.properties ? { properties: Object.keys(items.properties) } : {}) };
  }
  if (type === "object" && schema.properties) param.properties = Object.keys(schema.properties);
  if (type === "number" || type === "integer") {
    if (typeof schema.minimum === "number") param.minimum = schema.minimum;
    if (typeof schema.maximum === "number") param.maximum = schema.maximum;
    if (param.minimum !== undefined && param.maximum !== undefined && param.minimum > param.maximum) delete param.maximum;
  }
  const maxLength = type === "string" ? schema.maxLength : type === "array" ? schema.maxItems : undefined;
  if (typeof maxLength === "number" && Number.isInteger(maxLength) && maxLength > 0) param.max_length = maxLength;
  // A default the schema itself would reject is dropped rather than failing the whole import.
  const d = schema.default;
  if (d !== undefined && matchesParamType(d, type) && (!param.enum || param.enum.some((e) => e === d))) param.default = d as ToolParam["default"];
  return param;
}
