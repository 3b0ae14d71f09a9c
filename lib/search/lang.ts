import type { SearchLang } from "./schemas";

/**
 * The result language from `Accept-Language` (RFC 9110 weights): the supported language with the
 * highest q among zh (any zh-* tag) and en (any en-*); `*` counts as en; English when nothing
 * matches or the header is absent. Ties keep the header's order.
 */
export function negotiateLang(header: string | undefined | null): SearchLang {
  if (!header) return "en";
  let best: { lang: SearchLang; q: number } | undefined;
  for (const part of header.split(",")) {
    const [tag, ...rest] = part.trim().toLowerCase().split(";");
    const qParam = rest.map((r) => r.trim()).find((r) => r.startsWith("q="));
    const q = qParam ? Number.parseFloat(qParam.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) continue;
    const primary = tag.trim().split("-")[0];
    const lang: SearchLang | undefined = primary === "zh" ? "zh" : primary === "en" || primary === "*" ? "en" : undefined;
    if (lang && (!best || q > best.q)) best = { lang, q };
  }
  return best?.lang ?? "en";
}
