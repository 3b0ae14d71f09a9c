// Validation of parameter values against a tool's full JSON Schemas (`json_schema` in a param), for
// what the flat param fields cannot express: nested objects, unions, patterns, formats.
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

// Unknown keywords and formats are ignored (an API document carries many annotations); OpenAPI's
// own numeric and binary formats constrain nothing a JSON value can break.
const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateFormats: true });
addFormats(ajv);
for (const format of ["int32", "int64", "float", "double", "byte", "binary", "password"]) ajv.addFormat(format, true);

const MAX_CACHED = 2_000;
const byObject = new WeakMap<object, ValidateFunction>();
const byText = new Map<string, ValidateFunction>();

function compiled(schema: Record<string, unknown>): ValidateFunction {
  const hit = byObject.get(schema);
  if (hit) return hit;
  // Tool records are re-read every few seconds: equal schemas share one compiled validator.
  const text = JSON.stringify(schema);
  let validate = byText.get(text);
  if (!validate) {
    validate = ajv.compile(schema);
    if (byText.size >= MAX_CACHED) byText.clear();
    byText.set(text, validate);
  }
  byObject.set(schema, validate);
  return validate;
}

/** Why a schema cannot be used for validation, or undefined when it can. */
export function jsonSchemaCompileError(schema: Record<string, unknown>): string | undefined {
  try {
    compiled(schema);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export interface JsonSchemaError {
  /** Where inside the value, as path segments and as text appended to the parameter's name (`.owner.zip`, `[2]`). */
  path: (string | number)[];
  at: string;
  message: string;
}

const MAX_ERRORS = 5;

/** The ways `value` breaks `schema` (at most five, deepest detail first within each location). */
export function jsonSchemaErrors(schema: Record<string, unknown>, value: unknown): JsonSchemaError[] {
  const validate = compiled(schema);
  if (validate(value)) return [];
  const seen = new Set<string>();
  const out: JsonSchemaError[] = [];
  for (const error of validate.errors ?? []) {
    const described = describe(error);
    const key = `${described.at} ${described.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(described);
    if (out.length === MAX_ERRORS) break;
  }
  return out;
}

function describe(error: ErrorObject): JsonSchemaError {
  const path: (string | number)[] = error.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === "required" && params.missingProperty !== undefined) {
    return located([...path, params.missingProperty], "is required");
  }
  if (error.keyword === "additionalProperties" && params.additionalProperty !== undefined) {
    return located([...path, params.additionalProperty], "is not an allowed field");
  }
  return located(path, error.message ?? `fails ${error.keyword}`);
}

function located(path: (string | number)[], message: string): JsonSchemaError {
  const at = path.map((s) => (typeof s === "number" ? `[${s}]` : `.${s}`)).join("");
  return { path, at, message };
}
