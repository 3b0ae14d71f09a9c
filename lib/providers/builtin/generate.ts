// Identifiers and secrets, all from the cryptographic RNG (node:crypto).
import { randomInt } from "node:crypto";
import { monotonicFactory } from "ulid";
import { v4 as uuidv4, v7 as uuidv7 } from "uuid";
import { BuiltinToolError } from "./errors";
import { type BuiltinHandler, bool, int, oneOf } from "./params";

const MAX_COUNT = 100;

function count(p: Record<string, unknown>, max = MAX_COUNT): number {
  const n = int(p, "count", 1);
  if (n < 1 || n > max) throw new BuiltinToolError(`count must be between 1 and ${max}`);
  return n;
}

const uuid: BuiltinHandler = (p) => {
  const version = oneOf(p, "version", ["v4", "v7"] as const, "v4");
  const n = count(p);
  const uppercase = bool(p, "uppercase", false);
  const make = version === "v4" ? uuidv4 : uuidv7;
  const uuids = Array.from({ length: n }, () => (uppercase ? make().toUpperCase() : make()));
  return { version, uuids };
};

const ulid: BuiltinHandler = (p) => {
  const n = count(p);
  // A monotonic factory keeps ids created in the same millisecond sorted.
  const next = monotonicFactory();
  const now = Date.now();
  return { ulids: Array.from({ length: n }, () => next(now)), timestamp: new Date(now).toISOString() };
};

const SETS = {
  lowercase: "abcdefghijklmnopqrstuvwxyz",
  uppercase: "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
  digits: "0123456789",
  symbols: "!@#$%^&*()-_=+[]{};:,.?/~",
} as const;
const AMBIGUOUS = /[Il1O0o|`'"]/g;

const password: BuiltinHandler = (p) => {
  const length = int(p, "length", 16);
  if (length < 4 || length > 256) throw new BuiltinToolError("length must be between 4 and 256");
  const n = count(p, 50);
  const excludeAmbiguous = bool(p, "exclude_ambiguous", false);
  const sets = (Object.keys(SETS) as (keyof typeof SETS)[])
    .filter((k) => bool(p, k, true))
    .map((k) => (excludeAmbiguous ? SETS[k].replace(AMBIGUOUS, "") : SETS[k]));
  if (sets.length === 0) throw new BuiltinToolError("enable at least one of lowercase, uppercase, digits, symbols");
  if (length < sets.length) throw new BuiltinToolError(`length must be at least ${sets.length} to include every enabled character set`);
  const alphabet = sets.join("");
  const make = () => {
    // One character from each enabled set, the rest from the union, then an unbiased shuffle.
    const chars = sets.map((s) => s[randomInt(s.length)]);
    while (chars.length < length) chars.push(alphabet[randomInt(alphabet.length)]);
    for (let i = chars.length - 1; i > 0; i--) {
      const j = randomInt(i + 1);
      [chars[i], chars[j]] = [chars[j], chars[i]];
    }
    return chars.join("");
  };
  return {
    passwords: Array.from({ length: n }, make),
    length,
    alphabet_size: alphabet.length,
    entropy_bits: Math.round(length * Math.log2(alphabet.length) * 10) / 10,
  };
};

export const generateHandlers: Record<string, BuiltinHandler> = {
  "generate.uuid": uuid,
  "generate.ulid": ulid,
  "generate.password": password,
};
