import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { describe, expect, it } from "vitest";
import { catalogs, locales, parseLocale, translator, type MessageKey } from "./i18n";

type Catalog = { [key: string]: string | Catalog };

/** Every message of a nested catalog by its dotted key. */
function flatten(catalog: Catalog, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(catalog)) {
    if (typeof value === "string") out.set(prefix + key, value);
    else for (const [k, v] of flatten(value, `${prefix}${key}.`)) out.set(k, v);
  }
  return out;
}

/** The arguments a message reads, at any depth (inside plural and select branches too). */
function argumentsOf(elements: MessageFormatElement[], out = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
    if (element.type === TYPE.tag) {
      argumentsOf(element.children, out);
      continue;
    }
    out.add(element.value);
    if (element.type === TYPE.plural || element.type === TYPE.select) for (const option of Object.values(element.options)) argumentsOf(option.value, out);
  }
  return out;
}

const flat = Object.fromEntries(locales.map((locale) => [locale, flatten(catalogs[locale])])) as Record<(typeof locales)[number], Map<string, string>>;

describe("i18n", () => {
  it("falls back to English for a missing or unknown locale", () => {
    expect(parseLocale(undefined)).toBe("en");
    expect(parseLocale("fr")).toBe("en");
    expect(parseLocale("zh")).toBe("zh");
  });

  it("translates and fills placeholders", () => {
    expect(translator("zh")("nav.overview")).toBe("概览");
    expect(translator("en")("table.pageOf", { page: 2, pages: 5 })).toBe("Page 2 of 5");
  });

  it("every locale has exactly the keys of every other", () => {
    for (const locale of locales) {
      for (const other of locales) {
        const missing = [...flat[other].keys()].filter((key) => !flat[locale].has(key));
        expect(missing, `keys of ${other} missing in ${locale}`).toEqual([]);
      }
    }
  });

  it("every message is valid ICU and reads only arguments the English message is given", () => {
    const problems: string[] = [];
    for (const locale of locales) {
      for (const [key, message] of flat[locale]) {
        try {
          const args = argumentsOf(parse(message));
          const given = argumentsOf(parse(flat.en.get(key) ?? ""));
          for (const arg of args) if (!given.has(arg)) problems.push(`${locale} ${key}: {${arg}} is not an argument of the English message`);
        } catch (error) {
          problems.push(`${locale} ${key}: ${(error as Error).message}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("English counts are plural-correct, never 'key(s)'", () => {
    const t = translator("en");
    expect(t("common.creditAmount", { amount: "1", n: 1 })).toBe("1 credit");
    expect(t("common.creditAmount", { amount: "2", n: 2 })).toBe("2 credits");
    expect(t("common.creditAmount", { amount: "0.4", n: 0.4 })).toBe("0.4 credits");
    expect(t("members.removedKeys", { count: 1 })).toMatch(/^1 API key they created is still active/);
    expect(t("members.removedKeys", { count: 3 })).toMatch(/^3 API keys they created are still active/);
    expect(t("console.detailsInForm", { count: 1 })).toBe("1 field error is shown in the form.");
    expect(t("twoFactor.recoveryLeft", { count: 1234 })).toBe("1,234 unused recovery codes");
    expect(translator("zh")("common.creditAmount", { amount: "1", n: 1 })).toBe("1 积分");
    const crude = [...flat.en].filter(([, message]) => /\w\((s|es)\)|->/.test(message)).map(([key]) => key);
    expect(crude).toEqual([]);
  });

  it("a missing message shows its key instead of breaking the page", () => {
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      expect(translator("en")("no.such.key" as MessageKey)).toBe("no.such.key");
    } finally {
      console.error = original;
    }
    expect(errors).toHaveLength(1);
  });
});
