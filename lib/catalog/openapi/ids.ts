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

/** A summary this short is a name a person would use; a longer one is the start of the description. */
const NAME_MAX_WORDS = 8;
const NAME_MAX_CHARS = 80;

/**
 * A tool's name: its summary when that is short (one line, a few words), else its operationId
 * made readable (`createChatCompletion`, `chat.postMessage`, `list_users` → "Create chat
 * completion", "Chat post message", "List users"), else the summary when it is one line of at most
 * 80 characters, else `METHOD /path`.
 */
export function toolName(summary: string, operationId: string | undefined, method: string, path: string): string {
  const line = summary.trim().replace(/\s+/g, " ");
  if (line && !/\n/.test(summary.trim()) && line.length <= NAME_MAX_CHARS && line.split(" ").length <= NAME_MAX_WORDS) return line;
  const readable = operationId && readableIdentifier(operationId);
  if (readable) return readable;
  // Without an operationId, a one-line sentence still says more than the method and path.
  return line && !/\n/.test(summary.trim()) && line.length <= NAME_MAX_CHARS ? line : `${method.toUpperCase()} ${path}`;
}

/** Words of an identifier (camelCase, snake_case, dotted, dashed), lower-case but for acronyms, the first capitalised. */
function readableIdentifier(identifier: string): string {
  const words = identifier
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[\s._\-/:]+/)
    .filter(Boolean)
    .map((w) => (w.length > 1 && w === w.toUpperCase() && /[A-Z]/.test(w) ? w : w.toLowerCase()));
  if (words.length === 0) return "";
  words[0] = words[0][0].toUpperCase() + words[0].slice(1);
  return words.join(" ").slice(0, 200);
}
