/**
 * A user agent in a few words ("Chrome 131 · macOS") for a table cell; the full string stays in
 * its title. Order matters: Edge and Opera also say Chrome, and Chrome also says Safari.
 */
const browsers: readonly [RegExp, string][] = [
  [/Edg(?:e|A|iOS)?\/(\d+)/, "Edge"],
  [/OPR\/(\d+)/, "Opera"],
  [/Firefox\/(\d+)/, "Firefox"],
  [/HeadlessChrome\/(\d+)/, "Headless Chrome"],
  [/(?:Chrome|CriOS)\/(\d+)/, "Chrome"],
  [/Version\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//, "Safari"],
  [/^curl\/(\d+)/, "curl"],
  [/^node(?:-fetch)?\/?(\d*)/i, "Node.js"],
];

const systems: readonly [RegExp, string][] = [
  [/Windows/, "Windows"],
  [/iPhone|iPad|iPod/, "iOS"],
  [/Mac OS X|Macintosh/, "macOS"],
  [/Android/, "Android"],
  [/CrOS/, "ChromeOS"],
  [/Linux/, "Linux"],
];

export function shortUserAgent(userAgent: string | null | undefined): string | null {
  const ua = userAgent?.trim();
  if (!ua) return null;
  const browser = browsers.map(([re, name]) => {
    const m = re.exec(ua);
    return m ? `${name}${m[1] ? ` ${m[1]}` : ""}` : null;
  }).find((b) => b !== null);
  const system = systems.find(([re]) => re.test(ua))?.[1];
  const parts = [browser ?? ua.split(/[\s/]/)[0].slice(0, 40), system].filter(Boolean);
  return parts.join(" · ");
}
