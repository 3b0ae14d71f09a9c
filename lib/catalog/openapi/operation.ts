// One OpenAPI operation as a tool: its parameters (path, query, header, and the fields of a JSON
// request body) as flat params, each with its full JSON Schema where the flat fields cannot say it
// all, and the request mapping a Call follows to send exactly what the document describes.
import { paramFromJsonSchema, type JsonSchema } from "../json-schema-params";
import { type HttpExecution, type HttpStyle, type ToolParam, type httpMethods, httpStyles } from "../manifest";
import { plainText } from "../plain-text";
import { type JsonSchemaObject, type SchemaContext, pointerToken, requestSchema } from "./schema";

export interface OperationContext extends SchemaContext {
  error(pointer: string, message: string): void;
  /** A warning given once per document however many operations it applies to. */
  warnOnce(key: string, pointer: string, message: string): void;
  /** The credential's own parameter (`apiKey` in the query or a header): the provider sends it, not the caller. */
  authParameter?: { in: "query" | "header"; name: string };
}

export interface OperationInput {
  method: Lowercase<(typeof httpMethods)[number]>;
  /** The path as the tool sends it (with its leading slash). */
  path: string;
  /** JSON Pointer of the operation in the document. */
  pointer: string;
  operation: Record<string, unknown>;
  /** The Path Item's own parameters, which every operation under it shares. */
  shared: { parameters: unknown; pointer: string };
}

export interface OperationTool {
  operationId?: string;
  name: string;
  description: string;
  category?: string;
  params: ToolParam[];
  execution: HttpExecution;
}

export type OperationResult = { tool: OperationTool } | { skipped: string };

type Location = "path" | "query" | "header" | "cookie";
const LOCATIONS: Location[] = ["path", "query", "header", "cookie"];
/** Headers OpenAPI says a parameter cannot define: the request's own. */
const RESERVED_HEADERS = new Set(["accept", "content-type", "authorization"]);
const DEFAULT_STYLE: Record<Location, string> = { path: "simple", query: "form", header: "simple", cookie: "form" };
const FLAT_KEYS = new Set(["type", "description", "title", "enum", "default", "minimum", "maximum", "maxLength", "maxItems", "items"]);
const FLAT_ITEM_KEYS = new Set(["type", "description", "title", "enum"]);
/** OpenAPI formats that constrain nothing a JSON value can break: alone they need no full schema. */
const INERT_FORMATS = new Set(["int32", "int64", "float", "double", "byte", "binary", "password"]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
/** Some documents write booleans as strings (`"required": "true"`). */
const isTrue = (v: unknown) => v === true || v === "true";

export function toolFromOperation(input: OperationInput, ctx: OperationContext): OperationResult {
  const op = input.operation;
  const params: ToolParam[] = [];
  const taken = new Set<string>();
  const query: string[] = [];
  const headers: string[] = [];
  const wireNames: Record<string, string> = {};
  const styles: Record<string, HttpStyle> = {};
  const pathNames = new Set<string>();
  const add = (param: ToolParam, wire: string) => {
    params.push(param);
    taken.add(param.name);
    if (param.name !== wire) wireNames[param.name] = wire;
  };

  for (const { parameter, pointer } of declaredParameters(input)) {
    const where = parameter.in as Location;
    const wire = parameter.name as string;
    if (where === "header" && RESERVED_HEADERS.has(wire.toLowerCase())) continue;
    if (ctx.authParameter && ctx.authParameter.in === where && ctx.authParameter.name.toLowerCase() === wire.toLowerCase()) continue;
    if (where === "path" && !input.path.includes(`{${wire}}`)) {
      ctx.warn(pointer, `path parameter "${wire}" does not appear in the path ${input.path}: ignored`);
      continue;
    }
    if (where === "cookie" || parameter.content !== undefined) {
      const why = where === "cookie" ? "cookie parameters are not supported" : "parameters serialized as a media type (`content`) are not supported";
      if (isTrue(parameter.required) || where === "path") return { skipped: `${where} parameter "${wire}" is required and ${why}` };
      ctx.warn(pointer, `${why}: optional ${where} parameter "${wire}" is left out`);
      continue;
    }
    if (typeof parameter.required === "string") ctx.warnOnce("string-required", pointer, 'some parameters write "required" as a string ("true"/"false"): read as the boolean it spells');
    if (where === "path" && !isTrue(parameter.required)) ctx.warn(pointer, `path parameter "${wire}" is not marked required: path parameters always are`);
    const name = uniqueName(wire, where, taken);
    const schema = requestSchema(parameter.schema ?? {}, ctx, `${pointer}/schema`);
    add(toParam(name, schema, where === "path" || isTrue(parameter.required), parameter.description), wire);
    const style = styleOf(parameter, where, pointer, ctx);
    if (style.style !== DEFAULT_STYLE[where] || style.explode !== (style.style === "form")) styles[name] = style;
    if (where === "path") pathNames.add(name);
    if (where === "query") query.push(name);
    if (where === "header") headers.push(name);
  }

  for (const [, placeholder] of input.path.matchAll(/\{([^{}]+)\}/g)) {
    if (!pathNames.has(placeholder)) {
      ctx.error(input.pointer, `path parameter {${placeholder}} of ${input.path} is not declared in the operation's or its path's parameters`);
    }
  }

  const body = requestBody(input, ctx, taken);
  if ("skipped" in body) return body;
  for (const param of body.params) add(param, body.wire[param.name] ?? param.name);

  warnNonJsonAnswers(input, ctx);
  if (isObject(op.callbacks)) ctx.warn(`${input.pointer}/callbacks`, "callbacks are not imported: Tollgate does not receive requests from the API");

  const summary = plainText(typeof op.summary === "string" ? op.summary : undefined, 200).replace(/\s+/g, " ");
  const details = plainText(typeof op.description === "string" ? op.description : undefined);
  const operationId = typeof op.operationId === "string" && op.operationId.trim() ? op.operationId.trim() : undefined;
  const text = !summary || details.startsWith(summary) ? details : [summary, details].filter(Boolean).join("\n\n");
  const tag = Array.isArray(op.tags) && typeof op.tags[0] === "string" ? op.tags[0].trim().slice(0, 100) : undefined;
  const execution: HttpExecution = {
    method: input.method.toUpperCase() as HttpExecution["method"],
    path: input.path,
    ...(query.length ? { query } : {}),
    ...(headers.length ? { headers } : {}),
    body: body.sends ? "json" : "none",
    ...(body.bodyParam ? { body_param: body.bodyParam } : {}),
    ...(Object.keys(wireNames).length ? { wire_names: wireNames } : {}),
    ...(Object.keys(styles).length ? { styles } : {}),
    ...(operationId ? { operation_id: operationId } : {}),
  };
  return {
    tool: {
      operationId,
      name: (summary || operationId || `${execution.method} ${input.path}`).slice(0, 200),
      description: (op.deprecated === true ? `Deprecated. ${text}` : text).slice(0, 8000),
      ...(tag ? { category: tag } : {}),
      params,
      execution,
    },
  };
}

/** How a value is serialized (OpenAPI `style`/`explode`, defaults by location); an unknown style is read as the default. */
function styleOf(parameter: Record<string, unknown>, where: Location, pointer: string, ctx: OperationContext): HttpStyle {
  let style = DEFAULT_STYLE[where] as HttpStyle["style"];
  if (typeof parameter.style === "string") {
    if ((httpStyles as readonly string[]).includes(parameter.style)) style = parameter.style as HttpStyle["style"];
    else ctx.warn(`${pointer}/style`, `unknown style "${parameter.style}": sent as ${style}`);
  }
  return { style, explode: typeof parameter.explode === "boolean" ? parameter.explode : style === "form" };
}

/** The Path Item's parameters, overridden by the operation's own of the same name and location; path ones first (they keep their names). */
function declaredParameters(input: OperationInput): { parameter: Record<string, unknown>; pointer: string }[] {
  const byKey = new Map<string, { parameter: Record<string, unknown>; pointer: string }>();
  const collect = (list: unknown, pointer: string) => {
    if (!Array.isArray(list)) return;
    list.forEach((parameter, i) => {
      if (isObject(parameter) && typeof parameter.name === "string" && LOCATIONS.includes(parameter.in as Location)) {
        byKey.set(`${parameter.in}:${parameter.name}`, { parameter, pointer: `${pointer}/${i}` });
      }
    });
  };
  collect(input.shared.parameters, input.shared.pointer);
  collect(input.operation.parameters, `${input.pointer}/parameters`);
  return [...byKey.values()].sort((a, b) => LOCATIONS.indexOf(a.parameter.in as Location) - LOCATIONS.indexOf(b.parameter.in as Location));
}

/** A name no earlier parameter has: a clash (the same name in the query and the body) gets the later location as prefix (`body_ids`). */
function uniqueName(wire: string, where: string, taken: Set<string>): string {
  if (!taken.has(wire)) return wire;
  let candidate = `${where}_${wire}`;
  for (let n = 2; taken.has(candidate); n++) candidate = `${where}_${wire}_${n}`;
  return candidate;
}

function toParam(name: string, schema: JsonSchemaObject | boolean, required: boolean, description: unknown): ToolParam {
  const full = typeof schema === "boolean" ? {} : schema;
  const param = paramFromJsonSchema(name, full as JsonSchema, required);
  param.description = plainText(typeof description === "string" ? description : typeof full.description === "string" ? full.description : undefined, 4000);
  // The param's description is its own field: the schema need not carry it twice.
  if (needsFullSchema(full)) param.json_schema = Object.fromEntries(Object.entries(full).filter(([k]) => k !== "description")) as ToolParam["json_schema"];
  return param;
}

/** Whether the flat param fields lose something of this schema (nested fields, unions, patterns, formats, lower bounds...). */
function needsFullSchema(schema: JsonSchemaObject): boolean {
  if (Object.keys(schema).some((k) => !FLAT_KEYS.has(k) && !(k === "format" && INERT_FORMATS.has(String(schema.format))))) return true;
  if (nonNullTypes(schema.type).length !== 1) return true;
  const items = schema.items;
  if (items === undefined) return false;
  return !isObject(items) || Object.keys(items).some((k) => !FLAT_ITEM_KEYS.has(k)) || nonNullTypes(items.type).length !== 1;
}

const nonNullTypes = (type: unknown): string[] => (Array.isArray(type) ? type : typeof type === "string" ? [type] : []).filter((t) => t !== "null");

interface BodyMapping {
  sends: boolean;
  params: ToolParam[];
  wire: Record<string, string>;
  bodyParam?: string;
}

/**
 * A JSON request body: an object's fields become params (required when the body is and the schema
 * says so); any other body (an array, a union, a free-form object) is one param holding it whole.
 * A required body Tollgate cannot send (only form data, XML...) skips the operation.
 */
function requestBody(input: OperationInput, ctx: OperationContext, taken: Set<string>): BodyMapping | { skipped: string } {
  const body = input.operation.requestBody;
  const pointer = `${input.pointer}/requestBody`;
  const none: BodyMapping = { sends: false, params: [], wire: {} };
  if (!isObject(body) || !isObject(body.content) || Object.keys(body.content).length === 0) return none;
  const types = Object.keys(body.content);
  const json = types.find((t) => /^application\/json\b/i.test(t)) ?? types.find((t) => /^[^/]+\/([^;]*\+)?json\b/i.test(t) || t === "*/*");
  if (json === undefined) {
    const schemas = Object.values(body.content).map((m) => (isObject(m) && isObject(m.schema) ? m.schema : {}));
    // Swagger 2.0's form fields convert to an optional body whose schema still requires them.
    const needed = isTrue(body.required) || schemas.some((schema) => Array.isArray(schema.required) && schema.required.length > 0);
    if (needed) return { skipped: `its request body is ${types.join(", ")} only: Tollgate sends JSON bodies` };
    ctx.warn(pointer, `the optional request body (${types.join(", ")}) is not sent: Tollgate sends JSON bodies only`);
    return none;
  }
  const media = body.content[json];
  const schema = requestSchema(isObject(media) ? media.schema : undefined, ctx, `${pointer}/content/${pointerToken(json)}/schema`);
  const required = isTrue(body.required);
  const fields = typeof schema === "boolean" ? undefined : objectFields(schema);
  const mapping: BodyMapping = { sends: true, params: [], wire: {} };
  if (fields && Object.keys(fields.properties).length > 0) {
    for (const [field, sub] of Object.entries(fields.properties)) {
      const name = uniqueName(field, "body", taken);
      taken.add(name);
      mapping.params.push(toParam(name, sub as JsonSchemaObject | boolean, required && fields.required.includes(field), undefined));
      mapping.wire[name] = field;
    }
    return mapping;
  }
  const name = uniqueName("body", "request", taken);
  taken.add(name);
  const param = toParam(name, schema, required, body.description);
  if (!param.description) param.description = "The request body (JSON).";
  return { sends: true, params: [param], wire: {}, bodyParam: name };
}

/** The named fields of an object schema, `allOf` branches merged; undefined for any other shape. */
function objectFields(schema: JsonSchemaObject): { properties: Record<string, unknown>; required: string[] } | undefined {
  if (schema.anyOf !== undefined || schema.oneOf !== undefined || schema.not !== undefined) return undefined;
  if (schema.type !== undefined && schema.type !== "object") return undefined;
  const properties: Record<string, unknown> = { ...(isObject(schema.properties) ? schema.properties : {}) };
  const required = Array.isArray(schema.required) ? [...(schema.required as string[])] : [];
  for (const branch of Array.isArray(schema.allOf) ? schema.allOf : []) {
    const merged = isObject(branch) ? objectFields(branch) : undefined;
    if (!merged) return undefined;
    Object.assign(properties, merged.properties);
    required.push(...merged.required);
  }
  return { properties, required };
}

/** A Call's result is JSON: an operation whose success answers are something else will not give one. */
function warnNonJsonAnswers(input: OperationInput, ctx: OperationContext): void {
  const responses = input.operation.responses;
  if (!isObject(responses)) return;
  const types = Object.entries(responses)
    .filter(([status]) => /^2/.test(status))
    .flatMap(([, response]) => (isObject(response) && isObject(response.content) ? Object.keys(response.content) : []));
  if (types.length > 0 && !types.some((t) => /json/i.test(t) || t === "*/*")) {
    ctx.warn(`${input.pointer}/responses`, `answers ${[...new Set(types)].join(", ")}, not JSON: its Calls will fail (transport.execution_failed)`);
  }
}
