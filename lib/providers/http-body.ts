// The body of an http tool's request, in the media type the operation declares (or the Call picks
// among `body_types`): JSON, a form (application/x-www-form-urlencoded), multipart/form-data
// (serialized by the platform's FormData, never by hand), or a raw string / bytes.
import type { HttpBodyKind, HttpEncoding, HttpExecution, HttpStyle } from "../catalog/manifest";
import { own } from "../own";
import { appendQuery } from "./http-serialize";
import { fileValues, filenameFor, resolveFile, type FileBudget } from "./http-files";

export interface BodyType {
  media_type: string;
  kind: HttpBodyKind;
}

export interface EncodedBody {
  body?: Buffer | string;
  contentType?: string;
}

const DEFAULT_MEDIA_TYPE: Record<HttpBodyKind, string> = {
  json: "application/json",
  form: "application/x-www-form-urlencoded",
  multipart: "multipart/form-data",
  raw: "application/octet-stream",
  none: "",
};

/**
 * The body type a Call sends: none when the mapping says so; else the one of `body_types` the
 * Call's `content_type_param` names (the first by default); without `body_types`, the mapping's
 * `body` kind (JSON for POST/PUT/PATCH, none for GET/DELETE).
 */
export function chosenBodyType(mapping: HttpExecution, parameters: Record<string, unknown>): BodyType {
  if (mapping.body === "none") return { media_type: "", kind: "none" };
  const types = mapping.body_types;
  if (types?.length) {
    const asked = mapping.content_type_param === undefined ? undefined : own(parameters, mapping.content_type_param);
    return types.find((t) => t.media_type === asked) ?? types[0];
  }
  const kind = mapping.body ?? (["POST", "PUT", "PATCH"].includes(mapping.method) ? "json" : "none");
  return { media_type: DEFAULT_MEDIA_TYPE[kind], kind };
}

/** OpenAPI's form default: style form, exploded (explode defaults to true only for form). */
function formStyle(encoding: HttpEncoding | undefined): HttpStyle {
  const style = encoding?.style ?? "form";
  return { style, explode: encoding?.explode ?? style === "form" };
}

/** A single concrete media type (an Encoding's `contentType` may list several or use wildcards). */
function concreteType(contentType: string | undefined): string | undefined {
  return contentType && !contentType.includes(",") && !contentType.includes("*") ? contentType.trim() : undefined;
}

interface BodyInput {
  mapping: HttpExecution;
  type: BodyType;
  /** The body's fields by parameter name, in the Call's order (path, query, header, cookie and content-type parameters left out). */
  fields: [string, unknown][];
  wire: (name: string) => string;
  /** The Call's deadline (epoch ms) for fetching file URLs, and the bytes its files may still take. */
  deadline: number;
  budget: FileBudget;
}

/**
 * Encodes the body. With `body_param`, that parameter's value is the whole body (a JSON value, a
 * raw string or file, or for a form or multipart body an object of fields). Throws
 * `FileValueError` when a file value cannot be had.
 */
export async function encodeBody(input: BodyInput): Promise<EncodedBody> {
  const { mapping, type, wire } = input;
  const whole = mapping.body_param === undefined ? undefined : input.fields.find(([name]) => name === mapping.body_param);
  // An optional body the Call left out is not sent.
  if (mapping.body_param !== undefined && whole === undefined) return {};
  switch (type.kind) {
    case "none":
      return {};
    case "json":
      if (whole) return { body: JSON.stringify(whole[1]), contentType: type.media_type };
      return { body: JSON.stringify(Object.fromEntries(input.fields.map(([k, v]) => [wire(k), v]))), contentType: type.media_type };
    case "form": {
      const form = new URLSearchParams();
      for (const [name, value, key] of bodyFields(input, whole)) appendQuery(form, key, value, formStyle(own(mapping.encoding, name)));
      return { body: form.toString(), contentType: type.media_type };
    }
    case "multipart":
      return encodeMultipart(input, whole);
    case "raw":
      return encodeRaw(input, whole);
  }
}

/** Fields as [parameter name, value, wire name]: the parameters, or the properties of `body_param`'s object. */
function bodyFields(input: BodyInput, whole: [string, unknown] | undefined): [string, unknown, string][] {
  if (whole === undefined) return input.fields.map(([name, value]) => [name, value, input.wire(name)]);
  const value = whole[1];
  return value !== null && typeof value === "object" && !Array.isArray(value) ? Object.entries(value).map(([k, v]) => [k, v, k]) : [];
}

async function encodeMultipart(input: BodyInput, whole: [string, unknown] | undefined): Promise<EncodedBody> {
  const { mapping } = input;
  const files = new Set(whole === undefined ? (mapping.files ?? []) : []);
  const form = new FormData();
  for (const [name, value, key] of bodyFields(input, whole)) {
    const encoding = own(mapping.encoding, name);
    if (files.has(name)) {
      for (const item of fileValues(value)) {
        const file = await resolveFile(item, name, input.budget, input.deadline);
        const type = file.type ?? concreteType(encoding?.content_type) ?? "application/octet-stream";
        form.append(key, new Blob([new Uint8Array(file.bytes)], { type }), file.filename ?? filenameFor(key, type));
      }
      continue;
    }
    if (encoding?.style) {
      // An Encoding with a style serializes the field as a form would, each pair a text part.
      const pairs = new URLSearchParams();
      appendQuery(pairs, key, value, formStyle(encoding));
      for (const [k, v] of pairs) form.append(k, v);
      continue;
    }
    // OpenAPI's defaults: a primitive is a text part, an object a JSON part, an array one part per item.
    for (const item of Array.isArray(value) ? value : [value]) {
      const isObject = item !== null && typeof item === "object";
      const text = typeof item === "string" ? item : JSON.stringify(item);
      const partType = concreteType(encoding?.content_type) ?? (isObject ? "application/json" : undefined);
      // A File named "" gets its part's Content-Type and no filename: a typed field, not an upload.
      if (partType) form.append(key, new File([text], "", { type: partType }));
      else form.append(key, text);
    }
  }
  const response = new Response(form);
  return { body: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get("content-type") ?? undefined };
}

async function encodeRaw(input: BodyInput, whole: [string, unknown] | undefined): Promise<EncodedBody> {
  const { mapping, type } = input;
  // Without body_param, a raw body is the one field there is.
  const field = whole ?? (input.fields.length === 1 ? input.fields[0] : undefined);
  if (!field) return {};
  const [name, value] = field;
  if (mapping.files?.includes(name)) {
    const file = await resolveFile(value, name, input.budget, input.deadline);
    const declared = type.media_type.includes("*") ? undefined : type.media_type;
    return { body: file.bytes, contentType: declared ?? file.type ?? "application/octet-stream" };
  }
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const declared = mapping.body_types?.length && !type.media_type.includes("*") ? type.media_type : typeof value === "string" ? "text/plain; charset=utf-8" : "application/json";
  return { body: text, contentType: declared };
}
