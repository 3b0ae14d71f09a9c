// What the published OpenAPI description says about ids and credentials, for the security tests:
// they compare their tables with it, so a new operation cannot slip past them without a row.
import { operationsOf, type OpenApiDocument } from "./openapi-arbitrary";

type Schema = Record<string, unknown>;

/** A parameter or body field that names an object: `id`, `*_id`, `*_ids`. */
const ID_NAME = /^(.+_)?ids?$/;

function resolve(doc: OpenApiDocument, schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let i = 0; i < 10 && typeof s.$ref === "string"; i++) s = doc.components?.schemas?.[(s.$ref as string).split("/").pop()!] ?? {};
  return s;
}

/** Top-level property names of a body schema, through `$ref` and `oneOf`/`anyOf`/`allOf`. */
function bodyFields(doc: OpenApiDocument, schema: Schema | undefined): string[] {
  const s = resolve(doc, schema);
  const own = Object.keys((s.properties as Schema | undefined) ?? {});
  const parts = [s.oneOf, s.anyOf, s.allOf].flatMap((v) => (Array.isArray(v) ? (v as Schema[]) : []));
  return [...new Set([...own, ...parts.flatMap((p) => bodyFields(doc, p))])];
}

/**
 * Every operation that takes an id, as `"METHOD /path"` → its id inputs (`path:event_id`,
 * `query:account_id`, `body:search_id`), sorted: every path parameter, and every query parameter
 * and request body field named `id`, `*_id` or `*_ids`.
 */
export function idTakingOperations(doc: OpenApiDocument): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const op of operationsOf(doc, "")) {
    const ids = [
      ...op.parameters.filter((p) => p.in === "path" || (p.in === "query" && ID_NAME.test(p.name))).map((p) => `${p.in}:${p.name}`),
      ...(op.body ? bodyFields(doc, op.body.schema).filter((f) => ID_NAME.test(f)).map((f) => `body:${f}`) : []),
    ];
    if (ids.length > 0) out[`${op.method} ${op.path}`] = [...new Set(ids)].sort();
  }
  return out;
}

/** Operations that accept the given security scheme (e.g. `ApiKeyAuth`), as `"METHOD /path"`. */
export function operationsAccepting(doc: OpenApiDocument, scheme: string): string[] {
  return operationsOf(doc, "")
    .filter((op) => op.security.includes(scheme))
    .map((op) => `${op.method} ${op.path}`)
    .sort();
}

/** Operations with an `account_id` query parameter (the support users' account switch). */
export function operationsWithAccountId(doc: OpenApiDocument): string[] {
  return operationsOf(doc, "")
    .filter((op) => op.parameters.some((p) => p.in === "query" && p.name === "account_id"))
    .map((op) => `${op.method} ${op.path}`)
    .sort();
}
