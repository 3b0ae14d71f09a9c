// Parameter values on the wire as OpenAPI 3 serializes them (its "style" values): arrays and
// objects in the path, the query string and headers. Strings inside are sent as given; numbers and
// booleans as their JSON text; anything nested deeper as JSON.
import type { HttpStyle } from "../catalog/manifest";

const text = (v: unknown): string => (typeof v === "string" ? v : v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A path placeholder's replacement (default style `simple`, not exploded), each value URL-encoded. */
export function pathValue(name: string, value: unknown, style: HttpStyle = { style: "simple", explode: false }): string {
  const enc = (v: unknown) => encodeURIComponent(text(v));
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

/** A header parameter's value (style `simple`). */
export function headerValue(value: unknown, style: HttpStyle = { style: "simple", explode: false }): string {
  if (Array.isArray(value)) return value.map(text).join(",");
  if (isObject(value)) {
    const entries = Object.entries(value);
    return (style.explode ? entries.map(([k, v]) => `${k}=${text(v)}`) : entries.flatMap(([k, v]) => [k, text(v)])).join(",");
  }
  return text(value);
}
