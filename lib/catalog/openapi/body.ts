// An operation's request body as params and the mapping a Call follows to send it: JSON, a form
// (application/x-www-form-urlencoded), multipart/form-data (with file parts) or a raw body (text
// or bytes). Where the document offers several media types, all are kept, JSON first, and a
// `content_type` param lets a Call choose.
import type { HttpBodyKind, HttpEncoding, HttpStyle, ToolParam } from "../manifest";
import { httpStyles } from "../manifest";
import { plainText } from "../plain-text";
import { type JsonSchemaObject, type SchemaContext, pointerToken, requestSchema } from "./schema";
import { isObject } from "./document";
import { own } from "../../own";

export interface BodyContext extends SchemaContext {
  warnOnce(key: string, pointer: string, message: string): void;
  /** The document was Swagger 2.0, converted. */
  fromSwagger2?: boolean;
}

export interface BodyMapping {
  /** The default body's kind ("none" without a body). */
  kind: HttpBodyKind;
  params: ToolParam[];
  /** Wire name by param name, where they differ. */
  wire: Record<string, string>;
  /** Each param's place in the document. */
  pointers: Record<string, string>;
  bodyParam?: string;
  bodyTypes?: { media_type: string; kind: HttpBodyKind }[];
  contentTypeParam?: string;
  encoding?: Record<string, HttpEncoding>;
  files?: string[];
}

export const FILE_DESCRIPTION = "File content: base64, a data: URI (data:<type>;base64,...), or an https URL where the operator allows it.";

const isTrue = (v: unknown) => v === true || v === "true";
const essence = (mediaType: string) => mediaType.split(";")[0].trim().toLowerCase();
/** Text formats outside text/* that a raw body carries as a string. */
const TEXT_APPLICATION_TYPES = new Set(["application/sdp", "application/yaml", "application/x-yaml", "application/javascript", "application/graphql", "application/sql", "application/x-ndjson", "application/csv"]);

/** The kind of body a media type is: JSON (`application/json`, `*+json`, `*\/*`), form, multipart, else raw. */
export function bodyKindOf(mediaType: string): HttpBodyKind {
  const type = essence(mediaType);
  if (type === "*/*" || /^[^/]+\/([^;]*\+)?json$/.test(type)) return "json";
  if (type === "application/x-www-form-urlencoded") return "form";
  if (type.startsWith("multipart/")) return "multipart";
  return "raw";
}

/** Whether a raw body of this media type is bytes (an image, a PDF, an archive...) rather than text. */
function isBinaryMediaType(mediaType: string): boolean {
  const type = essence(mediaType);
  return !(type.startsWith("text/") || /[/+]xml$/.test(type) || /[/+]json$/.test(type) || TEXT_APPLICATION_TYPES.has(type));
}

/** A schema of bytes: `format: binary` (3.0), `contentEncoding`/`contentMediaType` (3.1). */
function isBinarySchema(schema: unknown): boolean {
  return isObject(schema) && (schema.format === "binary" || schema.contentEncoding === "base64" || typeof schema.contentMediaType === "string");
}

interface Offered {
  mediaType: string;
  kind: HttpBodyKind;
  pointer: string;
  media: Record<string, unknown>;
  schema: JsonSchemaObject | boolean;
  fields?: { properties: Record<string, unknown>; required: string[] };
}

/**
 * The body's params: an object's fields (JSON, form or multipart) become params (required only
 * when the body is and the schema says so); any other body (an array, a union, text, bytes) is
 * one param holding it whole. An optional body stays optional: none of its params is required.
 */
export function requestBody(operation: Record<string, unknown>, operationPointer: string, ctx: BodyContext, taken: Set<string>, uniqueName: (wire: string, where: string) => string, toParam: (name: string, schema: JsonSchemaObject | boolean, required: boolean, description: unknown) => ToolParam): BodyMapping | { skipped: string } {
  const body = operation.requestBody;
  const pointer = `${operationPointer}/requestBody`;
  const none: BodyMapping = { kind: "none", params: [], wire: {}, pointers: {} };
  if (!isObject(body) || !isObject(body.content) || Object.keys(body.content).length === 0) return none;

  const all: Offered[] = Object.entries(body.content).map(([mediaType, media]) => {
    const kind = bodyKindOf(mediaType);
    const at = `${pointer}/content/${pointerToken(mediaType)}`;
    const m = isObject(media) ? media : {};
    const schema = kind === "raw" ? {} : requestSchema(m.schema, ctx, `${at}/schema`);
    const fields = kind === "raw" || typeof schema === "boolean" ? undefined : kind === "json" ? objectFields(schema) : (objectFields(schema) ?? unionFields(schema));
    const named = fields && Object.keys(fields.properties).length > 0 ? fields : undefined;
    return { mediaType: kind === "json" && essence(mediaType) === "*/*" ? "application/json" : mediaType, kind, pointer: at, media: m, schema, fields: named };
  });
  // JSON first (application/json itself before other JSON types), then the document's order.
  const rank = (o: Offered) => (o.kind !== "json" ? 2 : essence(o.mediaType) === "application/json" ? 0 : 1);
  // `*/*` is sent as application/json: beside application/json itself it offers nothing more.
  let offered = [...all].sort((a, b) => rank(a) - rank(b)).filter((o, i, list) => list.findIndex((other) => other.mediaType.toLowerCase() === o.mediaType.toLowerCase()) === i);
  const json = offered.filter((o) => o.kind === "json");
  if (json.length > 0 && offered.some((o) => o.kind === "raw")) {
    // A raw body beside JSON would need a second whole-body param: the JSON one says the same.
    ctx.warnOnce("raw-beside-json", offered.find((o) => o.kind === "raw")!.pointer, "a body offered as JSON is sent as JSON only: its other media types (XML, text, bytes) beside it are not offered");
    offered = offered.filter((o) => o.kind !== "raw");
  }
  const fieldless = offered.filter((o) => (o.kind === "form" || o.kind === "multipart") && !o.fields);
  if (fieldless.length > 0) {
    if (fieldless.length === offered.length) return { skipped: `its ${fieldless[0].mediaType} body declares no fields (an object schema with properties) to send (${fieldless[0].pointer}/schema)` };
    for (const o of fieldless) ctx.warn(o.pointer, `the ${o.mediaType} body declares no fields (an object schema with properties): not offered`);
    offered = offered.filter((o) => !fieldless.includes(o));
  }

  // One body is named fields, another one whole value: a Call sends `body_param` alone or the
  // fields, never a choice between them, so only the default's shape is offered.
  const isWhole = (o: Offered) => o.kind === "raw" || (o.kind === "json" && !o.fields);
  const otherShape = offered.filter((o) => isWhole(o) !== isWhole(offered[0]));
  if (otherShape.length > 0) {
    ctx.warn(otherShape[0].pointer, `the body as ${otherShape.map((o) => o.mediaType).join(", ")} is not offered: it is ${isWhole(otherShape[0]) ? "one whole value" : "named fields"}, the default (${offered[0].mediaType}) is ${isWhole(offered[0]) ? "one whole value" : "named fields"}`);
    offered = offered.filter((o) => !otherShape.includes(o));
  }
  // Swagger 2.0's form fields convert to an optional body whose schema still requires them: there, the fields are required.
  const required = isTrue(body.required) || (ctx.fromSwagger2 === true && offered.some((o) => (o.kind === "form" || o.kind === "multipart") && (o.fields?.required.length ?? 0) > 0));
  const wholeKinds = offered.filter(isWhole);
  const mapping: BodyMapping = { kind: offered[0].kind, params: [], wire: {}, pointers: {} };
  const byField = new Map<string, ToolParam>();
  const files = new Set<string>();
  const encoding: Record<string, HttpEncoding> = {};

  for (const o of offered) {
    if (!o.fields) continue;
    const isDefault = o === offered[0];
    for (const [field, sub] of Object.entries(o.fields.properties)) {
      const rawSchema = isObject(o.media.schema) ? rawProperty(o.media.schema, field) : undefined;
      const file = o.kind === "multipart" && (isBinarySchema(rawSchema) || (isObject(rawSchema) && rawSchema.type === "array" && isBinarySchema(rawSchema.items)));
      let param = byField.get(field);
      if (!param) {
        const name = uniqueName(field, "body");
        taken.add(name);
        param = toParam(name, sub as JsonSchemaObject | boolean, required && isDefault && o.fields.required.includes(field), undefined);
        byField.set(field, param);
        mapping.params.push(param);
        mapping.pointers[name] = `${o.pointer}/schema/properties/${pointerToken(field)}`;
        if (name !== field) mapping.wire[name] = field;
      }
      if (file && !files.has(param.name)) {
        files.add(param.name);
        asFile(param, isObject(rawSchema) && rawSchema.type === "array");
      }
      const declared = isObject(o.media.encoding) ? own(o.media.encoding, field) : undefined;
      if ((o.kind === "form" || o.kind === "multipart") && isObject(declared)) {
        const enc = encodingOf(declared, o.kind, `${o.pointer}/encoding/${pointerToken(field)}`, ctx);
        encoding[param.name] = { ...enc, ...own(encoding, param.name) };
        if (Object.keys(encoding[param.name]).length === 0) delete encoding[param.name];
      }
    }
  }

  if (wholeKinds.length > 0) {
    const whole = wholeKinds[0];
    const name = uniqueName("body", "request");
    taken.add(name);
    if (whole.kind === "json") {
      const param = toParam(name, whole.schema, required, body.description);
      if (!param.description) param.description = "The request body (JSON).";
      mapping.params.push(param);
    } else {
      const binary = wholeKinds.some((o) => o.kind === "raw" && (isBinaryMediaType(o.mediaType) || isBinarySchema(o.media.schema)));
      const description = plainText(typeof body.description === "string" ? body.description : undefined, 4000) || `The request body (${wholeKinds.map((o) => o.mediaType).join(", ")}).`;
      const param: ToolParam = { name, type: "string", required, description };
      if (binary) {
        asFile(param, false);
        files.add(name);
      }
      mapping.params.push(param);
    }
    mapping.pointers[name] = whole.pointer;
    mapping.bodyParam = name;
  }

  const bodyTypes = offered.map((o) => ({ media_type: o.mediaType, kind: o.kind }));
  if (!(bodyTypes.length === 1 && bodyTypes[0].media_type.toLowerCase() === "application/json")) mapping.bodyTypes = bodyTypes;
  if (bodyTypes.length > 1) {
    const name = uniqueName("content_type", "request");
    taken.add(name);
    mapping.params.push({
      name,
      type: "string",
      required: false,
      description: `The media type the request body is sent as (default ${bodyTypes[0].media_type}). Not sent as a parameter: it chooses the body's encoding.`,
      enum: bodyTypes.map((t) => t.media_type),
      default: bodyTypes[0].media_type,
    });
    mapping.pointers[name] = `${pointer}/content`;
    mapping.contentTypeParam = name;
  }
  if (Object.keys(encoding).length > 0) mapping.encoding = encoding;
  if (files.size > 0) mapping.files = [...files];
  return mapping;
}

/** A file param: a string (or strings) of content, whatever the document's schema says of bytes. */
function asFile(param: ToolParam, many: boolean): void {
  const own = param.description && !param.description.startsWith("File content") ? `${param.description} ` : "";
  for (const key of ["enum", "default", "items", "properties", "minimum", "maximum", "max_length", "json_schema"] as const) delete param[key];
  param.type = many ? "array" : "string";
  if (many) param.items = { type: "string" };
  param.description = `${own}${FILE_DESCRIPTION}`.slice(0, 4000);
  // `format: binary` constrains nothing a value can break; it tells Inspect's readers (an agent, the
  // Console's file picker) that the value is a file's content.
  const file = { type: "string", format: "binary" };
  param.json_schema = many ? { type: "array", items: file } : file;
}

/** A field's schema as the document wrote it (its `allOf` branches searched too). */
function rawProperty(schema: Record<string, unknown>, field: string): unknown {
  const declared = isObject(schema.properties) ? own(schema.properties, field) : undefined;
  if (declared !== undefined) return declared;
  for (const branch of Array.isArray(schema.allOf) ? schema.allOf : []) {
    const found = isObject(branch) ? rawProperty(branch, field) : undefined;
    if (found !== undefined) return found;
  }
  return undefined;
}

/** An Encoding Object: style/explode (form's default: form, exploded) and a multipart part's contentType. */
function encodingOf(declared: Record<string, unknown>, kind: HttpBodyKind, pointer: string, ctx: BodyContext): HttpEncoding {
  const out: HttpEncoding = {};
  if (typeof declared.style === "string") {
    if ((httpStyles as readonly string[]).includes(declared.style)) out.style = declared.style as HttpStyle["style"];
    else ctx.warn(`${pointer}/style`, `unknown style "${declared.style}": sent as form`);
  }
  if (typeof declared.explode === "boolean") out.explode = declared.explode;
  else if (out.style !== undefined) out.explode = out.style === "form";
  if (kind === "multipart" && typeof declared.contentType === "string" && declared.contentType.trim()) out.content_type = declared.contentType.trim();
  return out;
}

/**
 * A form's fields when its schema is a union of objects (an OAuth token request: one shape per
 * grant type): every branch's fields, required where every branch requires them. A JSON body keeps
 * its union whole, which its schema checks; a form has no such whole value.
 */
function unionFields(schema: JsonSchemaObject): { properties: Record<string, unknown>; required: string[] } | undefined {
  const branches = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (!branches || branches.length === 0) return undefined;
  const shapes = branches.map((b) => (isObject(b) ? objectFields(b) : undefined));
  if (shapes.some((shape) => !shape)) return undefined;
  // A field the branches define differently (`grant_type`'s const in each) takes any of their schemas.
  const variants = new Map<string, unknown[]>();
  for (const shape of shapes) {
    for (const [name, sub] of Object.entries(shape!.properties)) {
      const seen = variants.get(name) ?? [];
      if (!seen.some((v) => JSON.stringify(v) === JSON.stringify(sub))) seen.push(sub);
      variants.set(name, seen);
    }
  }
  const properties = Object.fromEntries([...variants].map(([name, subs]) => [name, subs.length === 1 ? subs[0] : { anyOf: subs }]));
  const required = shapes[0]!.required.filter((name) => shapes.every((shape) => shape!.required.includes(name)));
  return { properties, required };
}

/** The named fields of an object schema, `allOf` branches merged; undefined for any other shape. */
function objectFields(schema: JsonSchemaObject): { properties: Record<string, unknown>; required: string[] } | undefined {
  if (schema.anyOf !== undefined || schema.oneOf !== undefined || schema.not !== undefined) return undefined;
  if (schema.type !== undefined && schema.type !== "object") return undefined;
  // Null-prototype: a field named `__proto__` is copied as a field, not set as the prototype.
  const properties: Record<string, unknown> = Object.assign(Object.create(null), isObject(schema.properties) ? schema.properties : {});
  const required = Array.isArray(schema.required) ? [...(schema.required as string[])] : [];
  for (const branch of Array.isArray(schema.allOf) ? schema.allOf : []) {
    const merged = isObject(branch) ? objectFields(branch) : undefined;
    if (!merged) return undefined;
    Object.assign(properties, merged.properties);
    required.push(...merged.required);
  }
  return { properties, required };
}
