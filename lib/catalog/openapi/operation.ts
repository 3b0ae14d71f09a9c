// One OpenAPI operation as a tool: its parameters (path, query, header, cookie, and the fields of
// its request body) as flat params, each with its full JSON Schema where the flat fields cannot say
// it all, and the request mapping a Call follows to send exactly what the document describes.
import { paramFromJsonSchema, type JsonSchema } from "../json-schema-params";
import { type HttpCredential, type HttpExecution, type HttpStyle, type ToolParam, type httpMethods, httpStyles } from "../manifest";
import { plainText } from "../plain-text";
import { requestBody } from "./body";
import { toolName } from "./ids";
import { type JsonSchemaObject, type SchemaContext, requestSchema } from "./schema";
import { isObject } from "./document";
import { own } from "../../own";

export interface OperationContext extends SchemaContext {
  /** A warning given once per document however many operations it applies to. */
  warnOnce(key: string, pointer: string, message: string): void;
  /** The document was Swagger 2.0, converted to OpenAPI 3.0. */
  fromSwagger2?: boolean;
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
  /** The operation's own server, when it is not the provider's. */
  baseUrl?: string;
  /** The operation's security alternatives (absent: the provider's `auth`). */
  security?: HttpCredential[][];
  /** Credentials sent as parameters (apiKeys in the query, a header or a cookie): the provider sends them, not the caller. */
  credentialParameters: { in: "query" | "header" | "cookie"; name: string }[];
}

export interface OperationTool {
  operationId?: string;
  name: string;
  description: string;
  category?: string;
  params: ToolParam[];
  execution: HttpExecution;
  /** Each param's place in the document, so a message about it points there. */
  pointers: Record<string, string>;
}

export type OperationResult = { tool: OperationTool } | { skipped: string; pointer?: string };

type Location = "path" | "query" | "header" | "cookie";
const LOCATIONS: Location[] = ["path", "query", "header", "cookie"];
/** Headers OpenAPI says a parameter cannot define: the request's own. */
const RESERVED_HEADERS = new Set(["accept", "content-type", "authorization"]);
const DEFAULT_STYLE: Record<Location, string> = { path: "simple", query: "form", header: "simple", cookie: "form" };
const FLAT_KEYS = new Set(["type", "description", "title", "enum", "default", "minimum", "maximum", "maxLength", "maxItems", "items"]);
const FLAT_ITEM_KEYS = new Set(["type", "description", "title", "enum"]);
/** OpenAPI formats that constrain nothing a JSON value can break: alone they need no full schema. */
const INERT_FORMATS = new Set(["int32", "int64", "float", "double", "byte", "binary", "password"]);

/** Some documents write booleans as strings (`"required": "true"`). */
const isTrue = (v: unknown) => v === true || v === "true";

export function toolFromOperation(input: OperationInput, ctx: OperationContext): OperationResult {
  const op = input.operation;
  const params: ToolParam[] = [];
  const taken = new Set<string>();
  const query: string[] = [];
  const headers: string[] = [];
  const cookies: string[] = [];
  const wireNames: Record<string, string> = {};
  const styles: Record<string, HttpStyle> = {};
  const pointers: Record<string, string> = {};
  /** Path parameters by wire name: the placeholders, renamed in the tool's path where the param is (`__proto__`). */
  const pathWires = new Map<string, string>();
  const add = (param: ToolParam, wire: string, pointer: string) => {
    params.push(param);
    taken.add(param.name);
    pointers[param.name] = pointer;
    if (param.name !== wire) wireNames[param.name] = wire;
  };
  const isCredential = (where: Location, wire: string) => input.credentialParameters.some((c) => c.in === where && c.name.toLowerCase() === wire.toLowerCase());

  for (const { parameter, pointer } of declaredParameters(input)) {
    const where = parameter.in as Location;
    const wire = parameter.name as string;
    if (where === "header" && RESERVED_HEADERS.has(wire.toLowerCase())) continue;
    if (isCredential(where, wire)) continue;
    if (where === "path" && !input.path.includes(`{${wire}}`)) {
      ctx.warn(pointer, `path parameter "${wire}" does not appear in the path ${input.path}: ignored`);
      continue;
    }
    if (parameter.content !== undefined) {
      const why = "parameters serialized as a media type (`content`) are not supported";
      if (isTrue(parameter.required) || where === "path") return { skipped: `${where} parameter "${wire}" is required and ${why}`, pointer };
      ctx.warn(pointer, `${why}: optional ${where} parameter "${wire}" is left out`);
      continue;
    }
    if (typeof parameter.required === "string") ctx.warnOnce("string-required", pointer, 'some parameters write "required" as a string ("true"/"false"): read as the boolean it spells');
    if (where === "path" && !isTrue(parameter.required)) ctx.warn(pointer, `path parameter "${wire}" is not marked required: path parameters always are`);
    const name = uniqueName(wire, where, taken);
    const schema = requestSchema(parameter.schema ?? {}, ctx, `${pointer}/schema`);
    add(toParam(name, schema, where === "path" || isTrue(parameter.required), parameter.description), wire, pointer);
    const style = styleOf(parameter, where, pointer, ctx);
    if (style.style !== DEFAULT_STYLE[where] || style.explode !== (style.style === "form")) styles[name] = style;
    if (where === "path") pathWires.set(wire, name);
    if (where === "query") query.push(name);
    if (where === "header") headers.push(name);
    if (where === "cookie") cookies.push(name);
  }

  for (const [, placeholder] of input.path.matchAll(/\{([^{}]+)\}/g)) {
    if (!pathWires.has(placeholder)) {
      return { skipped: `path parameter {${placeholder}} of ${input.path} is not declared in the operation's or its path's parameters`, pointer: `${input.pointer}/parameters` };
    }
  }

  const body = requestBody(op, input.pointer, ctx, taken, (wire, where) => uniqueName(wire, where, taken), toParam);
  if ("skipped" in body) return body;
  for (const param of body.params) add(param, own(body.wire, param.name) ?? param.name, body.pointers[param.name]);

  warnNonJsonAnswers(input, ctx);
  if (isObject(op.callbacks)) ctx.warn(`${input.pointer}/callbacks`, "callbacks are not imported: Tollgate does not receive requests from the API");

  const summaryText = plainText(typeof op.summary === "string" ? op.summary : undefined, 200);
  const summary = summaryText.replace(/\s+/g, " ");
  const details = plainText(typeof op.description === "string" ? op.description : undefined);
  const operationId = typeof op.operationId === "string" && op.operationId.trim() ? op.operationId.trim() : undefined;
  const text = !summary || details.startsWith(summary) ? details : [summary, details].filter(Boolean).join("\n\n");
  const tag = Array.isArray(op.tags) && typeof op.tags[0] === "string" ? op.tags[0].trim().slice(0, 100) : undefined;
  const method = input.method.toUpperCase() as HttpExecution["method"];
  const emptySuccess = emptySuccessStatuses(op);
  const execution: HttpExecution = {
    method,
    path: input.path.replace(/\{([^{}]+)\}/g, (_, wire: string) => `{${pathWires.get(wire)}}`),
    ...(input.baseUrl ? { base_url: input.baseUrl } : {}),
    ...(query.length ? { query } : {}),
    ...(headers.length ? { headers } : {}),
    ...(cookies.length ? { cookies } : {}),
    body: body.kind,
    ...(body.bodyTypes ? { body_types: body.bodyTypes } : {}),
    ...(body.contentTypeParam ? { content_type_param: body.contentTypeParam } : {}),
    ...(body.bodyParam ? { body_param: body.bodyParam } : {}),
    ...(body.encoding ? { encoding: body.encoding } : {}),
    ...(body.files ? { files: body.files } : {}),
    ...(Object.keys(wireNames).length ? { wire_names: wireNames } : {}),
    ...(Object.keys(styles).length ? { styles } : {}),
    ...(input.security ? { security: input.security } : {}),
    ...(emptySuccess.length ? { empty_success: emptySuccess } : {}),
    ...(operationId ? { operation_id: operationId } : {}),
  };
  return {
    tool: {
      operationId,
      name: toolName(summaryText, operationId, method, input.path),
      description: (op.deprecated === true ? `Deprecated. ${text}` : text).slice(0, 8000),
      ...(tag ? { category: tag } : {}),
      params,
      execution,
      pointers,
    },
  };
}

/** The 2XX statuses the operation declares without content: an empty answer with one is the success it describes. */
function emptySuccessStatuses(op: Record<string, unknown>): string[] {
  if (!isObject(op.responses)) return [];
  return Object.entries(op.responses).flatMap(([status, response]) => {
    if (!/^2(\d\d|xx)$/i.test(status) || !isObject(response) || typeof response.$ref === "string") return [];
    const empty = !isObject(response.content) || Object.keys(response.content).length === 0;
    return empty ? [status.toUpperCase()] : [];
  });
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

/**
 * A name no earlier parameter has: a clash (the same name in the query and the body) gets the later
 * location as prefix (`body_ids`); so does `__proto__`, which a Call could never give (JSON readers drop it).
 */
function uniqueName(wire: string, where: string, taken: Set<string>): string {
  if (!taken.has(wire) && wire !== "__proto__") return wire;
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
