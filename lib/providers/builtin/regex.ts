// Regular expressions supplied by callers. A pattern like (a+)+$ can backtrack for minutes on a
// short input, and JavaScript cannot interrupt a running RegExp — except through node:vm's
// execution timeout. So every match runs inside one fixed vm script ("job()") with a time limit;
// no caller-supplied code is ever compiled, only the RegExp itself.
import vm from "node:vm";
import { BuiltinToolError } from "./errors";
import { type BuiltinHandler, type Params, bool, int, limitLength, str } from "./params";

const MAX_PATTERN = 1000;
const MAX_TEXT = 100_000;
const TIME_LIMIT_MS = 250;

const sandbox = vm.createContext({ job: null as (() => unknown) | null });
const runner = new vm.Script("job()");

/** Runs `fn` (our own closure) under the vm watchdog; a runaway regex becomes a BuiltinToolError. */
export function withRegexTimeout<T>(fn: () => T, limitMs = TIME_LIMIT_MS): T {
  sandbox.job = fn;
  try {
    return runner.runInContext(sandbox, { timeout: limitMs }) as T;
  } catch (err) {
    if ((err as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") {
      throw new BuiltinToolError(`the pattern took longer than ${limitMs} ms (catastrophic backtracking?); simplify it`);
    }
    throw err;
  } finally {
    sandbox.job = null;
  }
}

function compile(p: Params, forceGlobal: boolean): { regex: RegExp; text: string } {
  const pattern = str(p, "pattern");
  const text = str(p, "text");
  limitLength("pattern", pattern, MAX_PATTERN);
  limitLength("text", text, MAX_TEXT);
  const flags = str(p, "flags", "");
  if (!/^[imsuy]*g?[imsuy]*$/.test(flags) || new Set(flags).size !== flags.length) {
    throw new BuiltinToolError(`flags "${flags}" are not valid: use any of g, i, m, s, u, y once`);
  }
  const finalFlags = forceGlobal ? (flags.includes("g") ? flags : `${flags}g`) : flags.replace("g", "");
  try {
    return { regex: new RegExp(pattern, finalFlags), text };
  } catch (err) {
    throw new BuiltinToolError(`invalid regular expression: ${(err as Error).message}`);
  }
}

function describeMatch(m: RegExpExecArray | RegExpMatchArray) {
  return {
    match: m[0],
    index: m.index ?? 0,
    captures: m.slice(1).map((c) => c ?? null),
    ...(m.groups && { groups: { ...m.groups } }),
  };
}

const regexTest: BuiltinHandler = (p) => {
  const { regex, text } = compile(p, false);
  const m = withRegexTimeout(() => regex.exec(text));
  return m ? { matched: true, ...describeMatch(m) } : { matched: false };
};

const regexExtract: BuiltinHandler = (p) => {
  const { regex, text } = compile(p, true);
  const max = int(p, "max_matches", 100);
  const items = withRegexTimeout(() => {
    const out: ReturnType<typeof describeMatch>[] = [];
    for (const m of text.matchAll(regex)) {
      out.push(describeMatch(m));
      if (out.length >= max) break;
    }
    return out;
  });
  if (items.length === 0) return {};
  return { count: items.length, truncated: items.length >= max, items };
};

const regexReplace: BuiltinHandler = (p) => {
  const all = bool(p, "all", true);
  const { regex, text } = compile(p, all);
  const replacement = str(p, "replacement");
  limitLength("replacement", replacement, MAX_PATTERN);
  return withRegexTimeout(() => {
    // Counting in a separate pass keeps the native $1 / $<name> / $& replacement semantics.
    const replacements = all ? [...text.matchAll(regex)].length : regex.exec(text) ? 1 : 0;
    regex.lastIndex = 0;
    return { result: text.replace(regex, replacement), replacements };
  });
};

export const regexHandlers: Record<string, BuiltinHandler> = {
  "regex.test": regexTest,
  "regex.extract": regexExtract,
  "regex.replace": regexReplace,
};
