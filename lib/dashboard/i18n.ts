/**
 * The dashboard's UI strings, one ICU MessageFormat catalog per locale in `lib/i18n/messages/`
 * (`en.json` defines the keys; `zh.json` translates every one — `i18n.test.ts` fails on a key
 * missing from either). Messages are formatted by next-intl (`createTranslator`), so plurals are
 * the language's own rules: `{count, plural, one {# key} other {# keys}}`. The same translator
 * serves server and client components; the choice is kept in a cookie so server-rendered pages
 * already come out in the chosen language.
 */
import { createTranslator, type AbstractIntlMessages } from "next-intl";
import en from "@/lib/i18n/messages/en.json";
import zh from "@/lib/i18n/messages/zh.json";

export const locales = ["en", "zh"] as const;
export type Locale = (typeof locales)[number];
export const DEFAULT_LOCALE: Locale = "en";
export const LOCALE_COOKIE = "tollgate-locale";

/** The `lang` attribute for <html>; `zh` is written in simplified Chinese. */
export const htmlLang: Record<Locale, string> = { en: "en", zh: "zh-CN" };
/** Each language's own name, for the switcher. */
export const localeNames: Record<Locale, string> = { en: "English", zh: "中文" };
export const localeShortNames: Record<Locale, string> = { en: "EN", zh: "中文" };

/** A nested catalog's keys as dotted paths: `{ nav: { usage: "…" } }` → `"nav.usage"`. */
type DottedKeys<T, Prefix extends string = ""> = {
  [K in keyof T & string]: T[K] extends string ? `${Prefix}${K}` : DottedKeys<T[K], `${Prefix}${K}.`>;
}[keyof T & string];

export type MessageKey = DottedKeys<typeof en>;
export type MessageCatalog = typeof en;

export const catalogs: Record<Locale, MessageCatalog> = { en, zh };

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (locales as readonly string[]).includes(value);
}

export function parseLocale(value: string | undefined | null): Locale {
  return isLocale(value) ? value : DEFAULT_LOCALE;
}

export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

const translators = new Map<Locale, Translate>();

/**
 * A translator for one locale (one per locale and process: next-intl caches the parsed messages
 * in it). A message that is missing or fails to format is reported and shows its key rather
 * than breaking the page.
 */
export function translator(locale: Locale): Translate {
  let translate = translators.get(locale);
  if (!translate) {
    // Typed loosely on purpose: next-intl's own typing would parse every ICU message of the
    // catalog at compile time; `MessageKey` already checks the keys.
    translate = createTranslator({
      locale,
      messages: catalogs[locale] as AbstractIntlMessages,
      onError: (error) => console.error(`i18n (${locale}): ${error.message}`),
      getMessageFallback: ({ key, namespace }) => (namespace ? `${namespace}.${key}` : key),
    }) as unknown as Translate;
    translators.set(locale, translate);
  }
  return translate;
}
