// Typed reads of a handler's parameters. The executor validates against the manifest schema
// first; these still check, because a handler must never act on a value of the wrong type.
import { BuiltinToolError } from "./errors";

export type Params = Record<string, unknown>;
export type BuiltinHandler = (params: Params) => unknown | Promise<unknown>;

function missing(name: string): never {
  throw new BuiltinToolError(`parameter "${name}" is required`);
}

function wrongType(name: string, type: string): never {
  throw new BuiltinToolError(`parameter "${name}" must be ${type}`);
}

export function str(params: Params, name: string, fallback?: string): string {
  const v = params[name] ?? fallback;
  if (v === undefined) return missing(name);
  return typeof v === "string" ? v : wrongType(name, "a string");
}

export function optStr(params: Params, name: string): string | undefined {
  return params[name] === undefined ? undefined : str(params, name);
}

export function num(params: Params, name: string, fallback?: number): number {
  const v = params[name] ?? fallback;
  if (v === undefined) return missing(name);
  return typeof v === "number" && Number.isFinite(v) ? v : wrongType(name, "a finite number");
}

export function optNum(params: Params, name: string): number | undefined {
  return params[name] === undefined ? undefined : num(params, name);
}

export function int(params: Params, name: string, fallback?: number): number {
  const v = num(params, name, fallback);
  return Number.isInteger(v) ? v : wrongType(name, "an integer");
}

export function bool(params: Params, name: string, fallback?: boolean): boolean {
  const v = params[name] ?? fallback;
  if (v === undefined) return missing(name);
  return typeof v === "boolean" ? v : wrongType(name, "a boolean");
}

export function arr(params: Params, name: string): unknown[] {
  const v = params[name];
  if (v === undefined) return missing(name);
  return Array.isArray(v) ? v : wrongType(name, "an array");
}

export function optArr(params: Params, name: string): unknown[] | undefined {
  return params[name] === undefined ? undefined : arr(params, name);
}

export function numbers(params: Params, name: string): number[] {
  return arr(params, name).map((v, i) =>
    typeof v === "number" && Number.isFinite(v) ? v : wrongType(`${name}[${i}]`, "a finite number"),
  );
}

/** One of a closed set of strings (the manifest's enum), with an optional default. */
export function oneOf<T extends string>(params: Params, name: string, allowed: readonly T[], fallback?: T): T {
  const v = str(params, name, fallback);
  return (allowed as readonly string[]).includes(v) ? (v as T) : wrongType(name, `one of ${allowed.join(", ")}`);
}

/** Rejects inputs too large to process quickly; the manifest declares the same limits. */
export function limitLength(name: string, value: string | unknown[], max: number): void {
  if (value.length > max) throw new BuiltinToolError(`parameter "${name}" is too long (at most ${max})`);
}

/** Rounds away binary noise (0.1 + 0.2) without pretending to more precision than a double has. */
export function tidy(n: number, digits = 12): number {
  if (!Number.isFinite(n)) return n;
  return Number.parseFloat(n.toPrecision(digits));
}
