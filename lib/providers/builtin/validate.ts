// Format validators. An invalid value is a normal answer ({ valid: false, reasons }), not an error.
import { BuiltinToolError } from "./errors";
import { type BuiltinHandler, bool, limitLength, str } from "./params";

function luhnSum(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum;
}

const CARD_BRANDS: [RegExp, string][] = [
  [/^4/, "visa"],
  [/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/, "mastercard"],
  [/^3[47]/, "amex"],
  [/^62/, "unionpay"],
  [/^(6011|65|64[4-9])/, "discover"],
  [/^35(2[89]|[3-8])/, "jcb"],
  [/^3(0[0-5]|[68])/, "diners"],
];

const luhn: BuiltinHandler = (p) => {
  const input = str(p, "number");
  const digits = input.replace(/[\s-]/g, "");
  if (!/^\d+$/.test(digits)) throw new BuiltinToolError("number may only contain digits, spaces and dashes");
  if (digits.length < 2 || digits.length > 64) throw new BuiltinToolError("number must have 2 to 64 digits");
  const valid = luhnSum(digits) % 10 === 0;
  // The digit that would make `digits` (as a payload without check digit) valid.
  const checkDigit = (10 - (luhnSum(`${digits}0`) % 10)) % 10;
  const brand = CARD_BRANDS.find(([re]) => re.test(digits))?.[1] ?? null;
  return { number: digits, valid, check_digit_if_appended: checkDigit, card_brand: valid ? brand : null, length: digits.length };
};

/** IBAN lengths by country (ISO 13616 registry, SWIFT). */
const IBAN_LENGTHS: Record<string, number> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, BY: 28, CH: 21, CR: 22, CY: 28, CZ: 24,
  DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28,
  HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20,
  LV: 21, MC: 27, MD: 24, ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29,
  RO: 24, RS: 22, SA: 24, SC: 31, SE: 24, SI: 19, SK: 24, SM: 27, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29, VA: 22,
  VG: 24, XK: 20,
};

/** ISO 7064 MOD 97-10 over the rearranged IBAN, digit by digit so no BigInt is needed. */
function mod97(iban: string): number {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of rearranged) {
    const v = ch >= "A" ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest;
}

const iban: BuiltinHandler = (p) => {
  const input = str(p, "iban");
  limitLength("iban", input, 64);
  const compact = input.replace(/[\s-]/g, "").toUpperCase();
  const reasons: string[] = [];
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(compact)) reasons.push("an IBAN is two letters, two check digits and up to 30 letters or digits");
  const country = compact.slice(0, 2);
  const expected = IBAN_LENGTHS[country];
  if (reasons.length === 0) {
    if (expected === undefined) reasons.push(`unknown IBAN country code "${country}"`);
    else if (compact.length !== expected) reasons.push(`${country} IBANs have ${expected} characters, this one has ${compact.length}`);
    if (mod97(compact) !== 1) reasons.push("the check digits do not match (mod 97 ≠ 1)");
  }
  return {
    iban: compact,
    valid: reasons.length === 0,
    reasons,
    country,
    check_digits: compact.slice(2, 4),
    bban: compact.slice(4),
    formatted: compact.replace(/(.{4})/g, "$1 ").trim(),
  };
};

const email: BuiltinHandler = (p) => {
  const input = str(p, "email").trim();
  limitLength("email", input, 1000);
  const reasons: string[] = [];
  const at = input.lastIndexOf("@");
  const local = at > 0 ? input.slice(0, at) : "";
  const domain = at > 0 ? input.slice(at + 1) : "";
  if (at <= 0) reasons.push("an address needs a local part, an @ and a domain");
  else {
    if (input.length > 254) reasons.push("longer than 254 characters");
    if (local.length > 64) reasons.push("the local part is longer than 64 characters");
    // Dot-atom local parts (RFC 5322) cover real addresses; quoted local parts are rare and refused.
    if (!/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uFFFF-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uFFFF-]+)*$/.test(local)) {
      reasons.push("the local part has invalid characters or misplaced dots");
    }
    const labels = domain.split(".");
    if (labels.length < 2) reasons.push("the domain needs a dot (e.g. example.com)");
    if (labels.some((l) => !/^(?!-)[A-Za-z0-9\u0080-\uFFFF-]{1,63}(?<!-)$/.test(l))) reasons.push("the domain has an invalid label");
    if (!/^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]+|[\u0080-\uFFFF]{2,})$/.test(labels[labels.length - 1] ?? "")) {
      reasons.push("the top-level domain is not valid");
    }
  }
  return { email: input, valid: reasons.length === 0, reasons, local_part: local || null, domain: domain.toLowerCase() || null };
};

const url: BuiltinHandler = (p) => {
  const input = str(p, "url").trim();
  limitLength("url", input, 10_000);
  const requireHttps = bool(p, "require_https", false);
  const reasons: string[] = [];
  let parsed: URL | undefined;
  try {
    parsed = new URL(input);
  } catch {
    reasons.push("not an absolute URL (a scheme such as https:// is required)");
  }
  if (parsed) {
    const scheme = parsed.protocol.replace(/:$/, "");
    if (requireHttps && scheme !== "https") reasons.push("the scheme must be https");
    else if (!["http", "https", "ftp", "ws", "wss"].includes(scheme)) reasons.push(`scheme "${scheme}" is not a web scheme`);
    if (!parsed.hostname) reasons.push("there is no host");
    else if (!parsed.hostname.includes(".") && parsed.hostname !== "localhost" && !parsed.hostname.startsWith("[")) {
      reasons.push("the host has no dot (not a public domain name)");
    }
    if (/\s/.test(input)) reasons.push("contains whitespace");
  }
  return { url: input, valid: reasons.length === 0, reasons, normalized: parsed?.href ?? null, hostname: parsed?.hostname ?? null };
};

export const validateHandlers: Record<string, BuiltinHandler> = {
  "validate.luhn": luhn,
  "validate.iban": iban,
  "validate.email": email,
  "validate.url": url,
};
