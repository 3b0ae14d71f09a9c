// One rule for every string a request carries (query, path, headers, JSON and form bodies, a
// Call's `parameters` included): it must be text PostgreSQL can store. PostgreSQL refuses U+0000
// in `text` and an unpaired UTF-16 surrogate (`"\ud800"` in JSON) in `jsonb`, and a value that
// reached a statement with either used to end as a 500. Checked on what the request validators
// parsed, before any handler runs; each operation answers with its own validation error.
import { ZodError } from "zod";

/** How deep a request body may nest (objects and arrays). Tool parameters rarely pass 10. */
export const MAX_BODY_DEPTH = 64;

/** The marker on the validation issue this rule raises (OAuth maps it to `invalid_request`). */
export const UNSTORABLE_TEXT = "unstorable_text";

export const unstorableMessage = "Text must not contain U+0000 or an unpaired UTF-16 surrogate";

type Path = (string | number)[];

function unstorable(text: string): boolean {
  return text.includes("\0") || !text.isWellFormed();
}

/**
 * The first place in `value` where a string or an object key is not storable text, or where the
 * nesting passes `MAX_BODY_DEPTH`. Iterative, so no input can overflow the stack.
 */
export function findUnstorable(value: unknown): { path: Path; message: string; input: unknown } | undefined {
  const stack: { value: unknown; path: Path }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: node, path } = stack.pop()!;
    if (typeof node === "string") {
      if (unstorable(node)) return { path, message: unstorableMessage, input: node };
      continue;
    }
    if (node === null || typeof node !== "object") continue;
    if (path.length >= MAX_BODY_DEPTH) return { path, message: `Nested deeper than ${MAX_BODY_DEPTH} levels`, input: undefined };
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ value: node[i], path: [...path, i] });
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      if (unstorable(key)) return { path: [...path, key], message: `Key: ${unstorableMessage}`, input: key };
      stack.push({ value: child, path: [...path, key] });
    }
  }
  return undefined;
}

/** The rule's finding as a validation error, so every operation's hook answers it in its own shape. */
export function unstorableError(value: unknown): ZodError | undefined {
  const found = findUnstorable(value);
  if (!found) return undefined;
  return new ZodError([{ code: "custom", path: found.path, message: found.message, input: found.input, params: { reason: UNSTORABLE_TEXT } }]);
}

export function isUnstorableIssue(issue: { code: string; params?: unknown }): boolean {
  return issue.code === "custom" && (issue.params as { reason?: string } | undefined)?.reason === UNSTORABLE_TEXT;
}
