// Parameter values on the wire as OpenAPI 3 serializes them (its "style" values): arrays and
// objects in the path, the query string and headers. Strings inside are sent as given; numbers and
// booleans as their JSON text; anything nested deeper as JSON. A value its place cannot carry (a
// path segment URL parsers would drop, a header line break) is refused, never sent altered.
import type { HttpExecution, HttpStyle } from "../catalog/manifest";
import { own } from "../own";

const text = (v: unknown): string => (typeof v === "string" ? v : v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A parameter value its place in the request cannot carry: the Call fails validation and nothing is sent. */
export class UnsendableValue extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

/** A parameter's name on the wire (`wire_names`), its own name otherwise. */
export const wireName = (mapping: HttpExecution, name: string): string => own(mapping.wire_names, name) ?? name;

const PLACEHOLDER = /\{([^{}]+)\}/g;
/** Splits a path template at its slashes, not at those inside a placeholder's name. */
const SEGMENT_BOUNDARY = /\/(?![^{}]*\})/;
/** "", "." and ".." (percent-encoded too): URL parsers and servers remove dot segments, and many merge empty ones. */
const VANISHING_SEGMENT = /^(?:\.|%2e){0,2}$/i;

/** A path template's segment: literal text and placeholders, and the first parameter it names (none: a literal segment). */
interface TemplateSegment {
  parts: (string | { name: string })[];
  param?: string;
}

/** A path template parsed: its segments, and the parameters its placeholders name. */
interface PathTemplate {
  segments: TemplateSegment[];
  names: string[];
}

// Parsed once per mapping (tool records are cached and shared by their Calls): a Call only fills them in.
const templates = new WeakMap<HttpExecution, PathTemplate>();

function templateOf(mapping: HttpExecution): PathTemplate {
  let template = templates.get(mapping);
  if (template) return template;
  const names: string[] = [];
  const segments = mapping.path.split(SEGMENT_BOUNDARY).map((segment) => {
    const parts: TemplateSegment["parts"] = [];
    let param: string | undefined;
    let last = 0;
    for (const match of segment.matchAll(PLACEHOLDER)) {
      if (match.index > last) parts.push(segment.slice(last, match.index));
      parts.push({ name: match[1] });
      names.push(match[1]);
      param ??= match[1];
      last = match.index + match[0].length;
    }
    if (last < segment.length || parts.length === 0) parts.push(segment.slice(last));
    return { parts, param };
  });
  template = { segments, names };
  templates.set(mapping, template);
  return template;
}

/** Each segment of the operation's path, its placeholders replaced by the Call's values (each as its style says), with the first parameter it names. */
function filledSegments(mapping: HttpExecution, parameters: Record<string, unknown>, used?: Set<string>): { text: string; param?: string }[] {
  return templateOf(mapping).segments.map(({ parts, param }) => {
    let text = "";
    for (const part of parts) {
      if (typeof part === "string") text += part;
      else {
        used?.add(part.name);
        text += pathValue(wireName(mapping, part.name), own(parameters, part.name) ?? "", own(mapping.styles, part.name));
      }
    }
    return { text, param };
  });
}

/**
 * Whether a path value could help leave a segment empty, `.` or `..`: any other string or number
 * is encoded into text holding some other character. Spares validation the filling of most paths.
 */
const mayVanish = (value: unknown) => typeof value === "object" || value === "" || value === "." || value === "..";

/** A segment a value leaves empty, `.` or `..`: `new URL` and the upstream would resolve it away. */
function vanishing(segment: { text: string; param?: string }, template: string): UnsendableValue | undefined {
  if (segment.param === undefined || segment.text.length > 6 || !VANISHING_SEGMENT.test(segment.text)) return undefined;
  return new UnsendableValue(segment.param, `"${segment.param}" would make the path segment ${JSON.stringify(segment.text)}, which URL parsers remove or merge: the request would leave the operation's path ${template}`);
}

/**
 * The operation's path with its placeholders filled, every parameter named adding itself to
 * `used`. A segment a value leaves empty, `.` or `..` is refused, else the request would leave the
 * operation (`/repos/{owner}/{repo}/issues` with `..` twice is `/issues`). Throws `UnsendableValue`.
 */
export function operationPath(mapping: HttpExecution, parameters: Record<string, unknown>, used?: Set<string>): string {
  const segments = filledSegments(mapping, parameters, used);
  for (const segment of segments) {
    const refused = vanishing(segment, mapping.path);
    if (refused) throw refused;
  }
  return segments.map((segment) => segment.text).join("/");
}

/** A path placeholder's replacement (default style `simple`, not exploded), each value URL-encoded. */
export function pathValue(name: string, value: unknown, style: HttpStyle = { style: "simple", explode: false }): string {
  // A lone surrogate has no UTF-8 form: it is sent as U+FFFD, as URLSearchParams sends it in the query.
  const enc = (v: unknown) => {
    const t = text(v);
    return encodeURIComponent(t.isWellFormed() ? t : t.toWellFormed());
  };
  const pairs = isObject(value) ? Object.entries(value) : undefined;
  const items = Array.isArray(value) ? value.map(enc) : pairs ? (style.explode ? pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`) : pairs.flatMap(([k, v]) => [enc(k), enc(v)])) : [enc(value)];
  const exploded = style.explode && (Array.isArray(value) || pairs !== undefined);
  switch (style.style) {
    case "label":
      return `.${items.join(exploded ? "." : ",")}`;
    case "matrix":
      if (exploded) return items.map((item) => (pairs ? `;${item}` : `;${encodeURIComponent(name)}=${item}`)).join("");
      return `;${encodeURIComponent(name)}=${items.join(",")}`;
    default:
      return items.join(",");
  }
}

/** Appends one query parameter (default style `form`, exploded). */
export function appendQuery(params: URLSearchParams, name: string, value: unknown, style: HttpStyle = { style: "form", explode: true }): void {
  if (Array.isArray(value)) {
    if (style.explode) for (const v of value) params.append(name, text(v));
    else params.append(name, value.map(text).join({ spaceDelimited: " ", pipeDelimited: "|" }[style.style as string] ?? ","));
    return;
  }
  if (isObject(value)) {
    const entries = Object.entries(value);
    if (style.style === "deepObject") appendDeep(params, name, value);
    else if (style.explode) for (const [k, v] of entries) params.append(k, text(v));
    else params.append(name, entries.flatMap(([k, v]) => [k, text(v)]).join(","));
    return;
  }
  params.append(name, text(value));
}

/**
 * deepObject: `a[b]=c`, nested objects as `a[b][c]=d` and array items under their key repeated
 * (OpenAPI leaves deeper nesting undefined; this is the bracket form form parsers read back).
 */
function appendDeep(params: URLSearchParams, key: string, value: unknown): void {
  if (isObject(value)) for (const [k, v] of Object.entries(value)) appendDeep(params, `${key}[${k}]`, v);
  else if (Array.isArray(value)) for (const v of value) appendDeep(params, key, v);
  else params.append(key, text(value));
}

/** Tab, visible ASCII, space and Latin-1's upper half: what a header value can carry (Node sends it as Latin-1). */
const HEADER_TEXT = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Header parameter `name`'s line as sent, `[lower-case wire name, value]`; undefined when the Call
 * leaves it out. A value with a control character (CR, LF, NUL...) or a character beyond U+00FF is
 * refused: it could end the header and start another. Throws `UnsendableValue`.
 */
export function headerParam(mapping: HttpExecution, parameters: Record<string, unknown>, name: string): [string, string] | undefined {
  const value = own(parameters, name);
  if (value === undefined) return undefined;
  const sent = headerValue(value, own(mapping.styles, name));
  if (!HEADER_TEXT.test(sent)) throw new UnsendableValue(name, `"${name}" holds a character a header cannot carry (a control character such as CR, LF or NUL, or one beyond U+00FF)`);
  return [wireName(mapping, name).toLowerCase(), sent];
}

/** The values of a Call an http tool cannot send (see `operationPath`, `headerParam`), for validation to report. */
export function unsendableValues(mapping: HttpExecution, parameters: Record<string, unknown>): UnsendableValue[] {
  const found: UnsendableValue[] = [];
  if (templateOf(mapping).names.some((name) => mayVanish(own(parameters, name)))) {
    for (const segment of filledSegments(mapping, parameters)) {
      const refused = vanishing(segment, mapping.path);
      // A path parameter left out is reported as missing, not as the empty segment it would leave.
      if (refused && own(parameters, refused.param) !== undefined) found.push(refused);
    }
  }
  for (const name of mapping.headers ?? []) {
    try {
      headerParam(mapping, parameters, name);
    } catch (err) {
      if (!(err instanceof UnsendableValue)) throw err;
      found.push(err);
    }
  }
  return found;
}

/** A header parameter's value (style `simple`). */
export function headerValue(value: unknown, style: HttpStyle = { style: "simple", explode: false }): string {
  if (Array.isArray(value)) return value.map(text).join(",");
  if (isObject(value)) {
    const entries = Object.entries(value);
    return (style.explode ? entries.map(([k, v]) => `${k}=${text(v)}`) : entries.flatMap(([k, v]) => [k, text(v)])).join(",");
  }
  return text(value);
}
