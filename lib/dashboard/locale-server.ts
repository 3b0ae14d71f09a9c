import { cookies, headers } from "next/headers";
import { LOCALE_COOKIE, isLocale, type Locale } from "./i18n";

/** The request's UI language: the switcher's cookie, else the browser's preference, else English. */
export async function getRequestLocale(): Promise<Locale> {
  const chosen = (await cookies()).get(LOCALE_COOKIE)?.value;
  if (isLocale(chosen)) return chosen;
  const accept = (await headers()).get("accept-language") ?? "";
  return /^\s*zh\b/i.test(accept) ? "zh" : "en";
}
