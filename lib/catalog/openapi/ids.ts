// How imported operations are named. A tool's id is `<provider id>:<operationId>` (else
// `<provider id>:<restPathId>`); the public catalog's datasets name the same operations their own
// way, and the functions here compute those names from what a tool keeps (method, path, operationId).

const TOOL_ID_UNSAFE = /[^A-Za-z0-9._:-]/g;

/** Path segments without braces: `/movie/{movie_id}/credits` → `movie`, `movie_id`, `credits`. */
function segments(path: string): string[] {
  return path
    .split("/")
    .filter(Boolean)
    .map((s) => s.replace(/[{}]/g, ""));
}

/**
 * RestBench's id of an operation: `<lower-case method>.<path segments without braces joined by .>`
 * (`GET /movie/{movie_id}/credits` → `get.movie.movie_id.credits`); the gold id is `<source>:` before it.
 */
export function restPathId(method: string, path: string): string {
  return [method.toLowerCase(), ...segments(path)].join(".");
}

/**
 * ToolAlpaca's function name of an operation: its operationId, else its path segments and its
 * lower-case method joined by `_` (`GET /charts/changes` → `charts_changes_get`); the gold id is
 * `toolalpaca:<api>.<function>`.
 */
export function toolAlpacaFunctionName(operation: { method: string; path: string; operation_id?: string }): string {
  return operation.operation_id ?? [...segments(operation.path), operation.method.toLowerCase()].join("_");
}

/** The id part after `<provider id>:`, in the tool-id charset (other characters become `_`). */
export function operationToolKey(method: string, path: string, operationId: string | undefined): string {
  return (operationId?.trim() || restPathId(method, path)).replace(TOOL_ID_UNSAFE, "_");
}
