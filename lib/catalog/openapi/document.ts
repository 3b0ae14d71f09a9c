// Walking an OpenAPI document as the import reads it: its objects and its operations.

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The operations a Path Item may hold. */
export const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** Every operation of the document (any method) with its Path Item, for questions about the document as a whole. */
export function operationEntries(doc: Record<string, unknown>): { item: Record<string, unknown>; operation: Record<string, unknown> }[] {
  if (!isObject(doc.paths)) return [];
  return Object.values(doc.paths).flatMap((item) => (isObject(item) ? METHODS.flatMap((m) => (isObject(item[m]) ? [{ item, operation: item[m] }] : [])) : []));
}
