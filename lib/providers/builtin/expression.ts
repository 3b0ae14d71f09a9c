// A small recursive-descent evaluator for arithmetic expressions. User input never reaches
// eval/Function: it is tokenised and interpreted here, with bounded length and nesting.
import { BuiltinToolError } from "./errors";

export type AngleUnit = "radians" | "degrees";

type Token =
  | { kind: "num"; value: number; pos: number }
  | { kind: "id"; value: string; pos: number }
  | { kind: "op"; value: string; pos: number };

const MAX_LENGTH = 2000;
const MAX_DEPTH = 100;

const constants: Record<string, number> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI, phi: (1 + Math.sqrt(5)) / 2 };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const number = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i));
    if (number) {
      tokens.push({ kind: "num", value: Number.parseFloat(number[0]), pos: i });
      i += number[0].length;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (ident) {
      tokens.push({ kind: "id", value: ident[0].toLowerCase(), pos: i });
      i += ident[0].length;
      continue;
    }
    if (src.startsWith("**", i)) {
      tokens.push({ kind: "op", value: "^", pos: i });
      i += 2;
      continue;
    }
    // Typographic operators show up in text pasted from documents.
    const op = ({ "×": "*", "÷": "/", "−": "-" } as Record<string, string>)[c] ?? c;
    if ("+-*/%^(),!".includes(op)) {
      tokens.push({ kind: "op", value: op, pos: i });
      i++;
      continue;
    }
    throw new BuiltinToolError(`unexpected character "${c}" at position ${i + 1}`);
  }
  return tokens;
}

function factorial(n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new BuiltinToolError("factorial needs a non-negative integer");
  if (n > 170) throw new BuiltinToolError("factorial overflows above 170!");
  let r = 1;
  for (let k = 2; k <= n; k++) r *= k;
  return r;
}

/** Evaluates `src`; throws BuiltinToolError on syntax errors, unknown names and non-finite results. */
export function evaluateExpression(src: string, angle: AngleUnit = "radians"): number {
  if (src.length > MAX_LENGTH) throw new BuiltinToolError(`expression is longer than ${MAX_LENGTH} characters`);
  const tokens = tokenize(src);
  let at = 0;
  let depth = 0;
  const toRad = (x: number) => (angle === "degrees" ? (x * Math.PI) / 180 : x);
  const fromRad = (x: number) => (angle === "degrees" ? (x * 180) / Math.PI : x);

  const functions: Record<string, { arity: [number, number]; fn: (a: number[]) => number }> = {
    sqrt: { arity: [1, 1], fn: ([x]) => (x < 0 ? fail("sqrt of a negative number") : Math.sqrt(x)) },
    cbrt: { arity: [1, 1], fn: ([x]) => Math.cbrt(x) },
    abs: { arity: [1, 1], fn: ([x]) => Math.abs(x) },
    sign: { arity: [1, 1], fn: ([x]) => Math.sign(x) },
    floor: { arity: [1, 1], fn: ([x]) => Math.floor(x) },
    ceil: { arity: [1, 1], fn: ([x]) => Math.ceil(x) },
    trunc: { arity: [1, 1], fn: ([x]) => Math.trunc(x) },
    round: {
      arity: [1, 2],
      fn: ([x, d = 0]) => {
        const f = 10 ** Math.trunc(d);
        return Math.round(x * f) / f;
      },
    },
    exp: { arity: [1, 1], fn: ([x]) => Math.exp(x) },
    ln: { arity: [1, 1], fn: ([x]) => (x <= 0 ? fail("ln of a non-positive number") : Math.log(x)) },
    log: {
      arity: [1, 2],
      fn: ([x, b = 10]) => (x <= 0 || b <= 0 || b === 1 ? fail("log needs x > 0 and a positive base other than 1") : Math.log(x) / Math.log(b)),
    },
    log2: { arity: [1, 1], fn: ([x]) => (x <= 0 ? fail("log2 of a non-positive number") : Math.log2(x)) },
    log10: { arity: [1, 1], fn: ([x]) => (x <= 0 ? fail("log10 of a non-positive number") : Math.log10(x)) },
    sin: { arity: [1, 1], fn: ([x]) => Math.sin(toRad(x)) },
    cos: { arity: [1, 1], fn: ([x]) => Math.cos(toRad(x)) },
    tan: { arity: [1, 1], fn: ([x]) => Math.tan(toRad(x)) },
    asin: { arity: [1, 1], fn: ([x]) => fromRad(Math.asin(x)) },
    acos: { arity: [1, 1], fn: ([x]) => fromRad(Math.acos(x)) },
    atan: { arity: [1, 1], fn: ([x]) => fromRad(Math.atan(x)) },
    atan2: { arity: [2, 2], fn: ([y, x]) => fromRad(Math.atan2(y, x)) },
    pow: { arity: [2, 2], fn: ([x, y]) => x ** y },
    hypot: { arity: [1, 64], fn: (a) => Math.hypot(...a) },
    min: { arity: [1, 64], fn: (a) => Math.min(...a) },
    max: { arity: [1, 64], fn: (a) => Math.max(...a) },
    fact: { arity: [1, 1], fn: ([x]) => factorial(x) },
  };

  function fail(message: string): never {
    throw new BuiltinToolError(message);
  }
  const peek = () => tokens[at];
  const isOp = (v: string) => peek()?.kind === "op" && peek()?.value === v;
  const where = () => (peek() ? `at position ${peek().pos + 1}` : "at the end");
  function expect(v: string): void {
    if (!isOp(v)) fail(`expected "${v}" ${where()}`);
    at++;
  }

  function expression(): number {
    if (++depth > MAX_DEPTH) fail("expression is nested too deeply");
    let v = term();
    while (isOp("+") || isOp("-")) {
      const op = tokens[at++].value;
      const r = term();
      v = op === "+" ? v + r : v - r;
    }
    depth--;
    return v;
  }
  function term(): number {
    let v = unary();
    while (isOp("*") || isOp("/") || isOp("%")) {
      const op = tokens[at++].value;
      const r = unary();
      if ((op === "/" || op === "%") && r === 0) fail("division by zero");
      v = op === "*" ? v * r : op === "/" ? v / r : v % r;
    }
    return v;
  }
  // Unary minus binds looser than ^, so -2^2 = -4 as in mathematics.
  function unary(): number {
    if (isOp("-") || isOp("+")) {
      const op = tokens[at++].value;
      if (++depth > MAX_DEPTH) fail("expression is nested too deeply");
      const v = unary();
      depth--;
      return op === "-" ? -v : v;
    }
    return power();
  }
  function power(): number {
    const base = postfix();
    if (isOp("^")) {
      at++;
      return base ** unary();
    }
    return base;
  }
  function postfix(): number {
    let v = primary();
    while (isOp("!")) {
      at++;
      v = factorial(v);
    }
    return v;
  }
  function primary(): number {
    const t = peek();
    if (!t) fail("unexpected end of expression");
    if (t.kind === "num") {
      at++;
      return t.value;
    }
    if (t.kind === "op" && t.value === "(") {
      at++;
      const v = expression();
      expect(")");
      return v;
    }
    if (t.kind === "id") {
      at++;
      if (isOp("(")) {
        // Own properties only: "constructor(" must not reach Object.prototype.
        const f = Object.hasOwn(functions, t.value) ? functions[t.value] : fail(`unknown function "${t.value}"`);
        at++;
        const args: number[] = [];
        if (!isOp(")")) {
          args.push(expression());
          while (isOp(",")) {
            at++;
            args.push(expression());
          }
        }
        expect(")");
        if (args.length < f.arity[0] || args.length > f.arity[1]) {
          fail(`${t.value}() takes ${f.arity[0] === f.arity[1] ? f.arity[0] : `${f.arity[0]} to ${f.arity[1]}`} argument(s)`);
        }
        return f.fn(args);
      }
      if (Object.hasOwn(constants, t.value)) return constants[t.value];
      fail(`unknown name "${t.value}"`);
    }
    fail(`unexpected "${t.value}" at position ${t.pos + 1}`);
  }

  if (tokens.length === 0) fail("expression is empty");
  const value = expression();
  if (at < tokens.length) fail(`unexpected "${tokens[at].value}" at position ${tokens[at].pos + 1}`);
  if (!Number.isFinite(value)) fail("the result is not a finite number");
  return value;
}
