import type { ParseArgsConfig } from "node:util";
import type { Db } from "../db/types";

/** A usage error: the CLI prints it with the command's usage and exits 2. */
export class UsageError extends Error {}

export type Options = NonNullable<ParseArgsConfig["options"]>;
export type Values = Record<string, string | boolean | string[] | undefined>;

export interface CommandSpec {
  usage: string;
  options: Options;
  run(db: Db, values: Values, ctx: CommandContext): Promise<unknown>;
}

export interface CommandContext {
  /** Progress for long operations (printed to stderr unless --json). */
  progress?: (message: string) => void;
}

export const str = (values: Values, name: string): string => {
  const v = values[name];
  if (typeof v !== "string" || v.length === 0) throw new UsageError(`--${name} is required`);
  return v;
};
export const optStr = (values: Values, name: string): string | undefined => {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
};
export const list = (values: Values, name: string): string[] => {
  const v = values[name];
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
};
export function oneOf<T extends string>(value: string, allowed: readonly T[], name: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(", ")}`);
  return value as T;
}

