// The builtin tools, keyed by the manifest's `execution.handler`. Each handler receives
// schema-validated parameters and returns JSON-serialisable result data; `{}` (or `[]`) means an
// empty result (reason_code result.empty, never charged); BuiltinToolError means it could not
// produce a result for these parameters.
import { convertHandlers } from "./convert";
import { dataHandlers } from "./data";
import { encodingHandlers } from "./encoding";
import { generateHandlers } from "./generate";
import { mathHandlers } from "./math";
import type { BuiltinHandler } from "./params";
import { regexHandlers } from "./regex";
import { textHandlers } from "./text";
import { timeHandlers } from "./time";
import { validateHandlers } from "./validate";

export { BuiltinToolError } from "./errors";
export type { BuiltinHandler } from "./params";

export const builtinHandlers: Record<string, BuiltinHandler> = {
  ...mathHandlers,
  ...convertHandlers,
  ...timeHandlers,
  ...textHandlers,
  ...regexHandlers,
  ...encodingHandlers,
  ...generateHandlers,
  ...dataHandlers,
  ...validateHandlers,
};
