import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { firstSentence } from "./first-sentence";

const DEMO_CATALOG = path.resolve(import.meta.dirname, "../catalog/demo-catalog.json");
// The public catalog lives beside the repository (it is not copied into it); see its README.
const PUBLIC_CATALOG = path.resolve(import.meta.dirname, "../../../shared/catalog/tools.jsonl");

interface DemoTool {
  id: string;
  description: string;
  i18n?: Record<string, { description?: string }>;
}

/** Every description of the demo catalog, in each of its languages, with the tool's id. */
function demoDescriptions(): [string, string][] {
  const catalog = JSON.parse(fs.readFileSync(DEMO_CATALOG, "utf8")) as { providers: { tools: DemoTool[] }[] };
  return catalog.providers.flatMap((p) =>
    p.tools.flatMap((t) => [[t.id, t.description], ...Object.entries(t.i18n ?? {}).flatMap(([lang, local]) => (local.description ? [[`${t.id} (${lang})`, local.description]] : []))] as [string, string][]),
  );
}

/** What a summary must never be: cut inside a bracket, cut right after "e.g."/"i.e.", or longer than 200 characters. */
function flaws(summary: string): string[] {
  let depth = 0;
  for (const ch of summary) {
    if ("([{（【".includes(ch)) depth += 1;
    else if (")]}）】".includes(ch)) depth = Math.max(0, depth - 1);
  }
  return [
    ...(depth > 0 ? ["ends inside a bracket"] : []),
    ...(/(?:^|[^\p{L}])[EeIi]\.[ge]\.…?$/u.test(summary) ? ['ends after "e.g." or "i.e."'] : []),
    ...([...summary].length > 200 ? ["is longer than 200 characters"] : []),
  ];
}

describe("firstSentence", () => {
  it("ends at the first sentence's end, in English and Chinese", () => {
    expect(firstSentence("Converts units. Supports many.")).toBe("Converts units.");
    expect(firstSentence("评估风险。提供建议。")).toBe("评估风险。");
    expect(firstSentence("Is it up? Then go")).toBe("Is it up?");
    expect(firstSentence("No stop")).toBe("No stop");
  });

  it("does not end at decimals, versions or abbreviations", () => {
    expect(firstSentence("Version 1.5 of it, on API v2.0.1. Next")).toBe("Version 1.5 of it, on API v2.0.1.");
    expect(firstSentence("Writes amounts as capital numerals, e.g. 1234.50 → 壹仟贰佰叁拾肆元伍角整. Next.")).toBe("Writes amounts as capital numerals, e.g. 1234.50 → 壹仟贰佰叁拾肆元伍角整.");
    expect(firstSentence("Compares A vs. B quickly. Next.")).toBe("Compares A vs. B quickly.");
    expect(firstSentence("Uses zone names, e.g. Europe/Berlin. Next.")).toBe("Uses zone names, e.g. Europe/Berlin.");
    expect(firstSentence("Handles dates, times etc. and durations. Next.")).toBe("Handles dates, times etc. and durations.");
    // "etc." before a capital is a sentence's end more often than not.
    expect(firstSentence("Supports JSON, XML etc. Returns data.")).toBe("Supports JSON, XML etc.");
  });

  it("does not end inside brackets, whatever they hold", () => {
    expect(firstSentence("Converts times using IANA zone names (e.g. Asia/Shanghai, Europe/London), DST included. Also parses.")).toBe(
      "Converts times using IANA zone names (e.g. Asia/Shanghai, Europe/London), DST included.",
    );
    expect(firstSentence("Returns True if valid (i.e. Start <= End). Next")).toBe("Returns True if valid (i.e. Start <= End).");
    expect(firstSentence("Does X (see the docs. They help) and Y. Next.")).toBe("Does X (see the docs. They help) and Y.");
    expect(firstSentence("Counts primes in [start, end). Next.")).toBe("Counts primes in [start, end).");
    expect(firstSentence("按时区换算（例如：亚洲/上海。欧洲/伦敦）并计入夏令时。其他。")).toBe("按时区换算（例如：亚洲/上海。欧洲/伦敦）并计入夏令时。");
  });

  it("closes a bracket the description never closes", () => {
    expect(firstSentence("Adds (a thing")).toBe("Adds (a thing)");
  });

  it("reads hard-wrapped lines as one text", () => {
    expect(firstSentence("Provides the tools to perform enhancement and\nrobust ASR training. Next")).toBe("Provides the tools to perform enhancement and robust ASR training.");
  });

  it("shortens a long sentence to whole words before an ellipsis, closing what the cut left open", () => {
    const long = `Converts ${"many kinds of values ".repeat(4)}between units (e.g. ${"metres to feet and ".repeat(6)}back). Next.`;
    const summary = firstSentence(long);
    expect([...summary].length).toBeLessThanOrEqual(200);
    expect(summary).toMatch(/ [a-z]+…\)$/);
    expect(long.startsWith(summary.slice(0, -2))).toBe(true);

    const cutAtExample = `Converts ${"values ".repeat(24)}between units (e.g. metres, feet). Next.`;
    expect(firstSentence(cutAtExample)).toMatch(/ units…$/);

    const chinese = "在公制和英制单位之间换算".repeat(30);
    expect(firstSentence(chinese)).toBe(`${[...chinese].slice(0, 199).join("")}…`);
  });

  it("leaves no demo-catalog summary cut inside a bracket or after e.g./i.e.", () => {
    const found = demoDescriptions().flatMap(([id, text]) => flaws(firstSentence(text)).map((flaw) => `${id}: ${flaw}`));
    expect(found).toEqual([]);
    const byId = new Map(demoDescriptions());
    expect(firstSentence(byId.get("builtin.time.convert_timezone")!)).toBe(
      "Converts a date and time from one time zone to another using IANA zone names (e.g. Asia/Shanghai, America/New_York, Europe/London), daylight saving time included.",
    );
  });

  it("leaves no summary of the public catalog's 6,670 tools cut inside a bracket or after e.g./i.e.", () => {
    const tools = fs
      .readFileSync(PUBLIC_CATALOG, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: string; description: string });
    expect(tools.length).toBeGreaterThan(6000);
    const found = tools.flatMap((t) => flaws(firstSentence(t.description)).map((flaw) => `${t.id}: ${flaw}`));
    expect(found).toEqual([]);
  });
});
