import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { manifestFromToolsJsonl, mapParamType } from "./acebench";
import { ManifestError } from "./manifest";

// The public catalog lives beside the repository (it is not copied into it); see its README.
const CATALOG = path.resolve(import.meta.dirname, "../../../shared/catalog/tools.jsonl");

const line = (over: Record<string, unknown>) =>
  JSON.stringify({ id: "s:1", name: "tool", description: "Does things.", provider: null, category: null, source: "s", lang: "en", params: [], ...over });

describe("mapParamType", () => {
  it("maps Python and JSON-Schema type names onto the contract's six types", () => {
    expect(mapParamType("dict")).toEqual({ type: "object" });
    expect(mapParamType("list")).toEqual({ type: "array" });
    expect(mapParamType("float")).toEqual({ type: "number" });
    expect(mapParamType("int")).toEqual({ type: "integer" });
    expect(mapParamType("str")).toEqual({ type: "string" });
    expect(mapParamType("bool")).toEqual({ type: "boolean" });
    expect(mapParamType("any")).toEqual({ type: "string" });
    expect(mapParamType("List[int]")).toEqual({ type: "array", items: "integer" });
    expect(mapParamType("array<string>")).toEqual({ type: "array", items: "string" });
    expect(mapParamType("Integer")).toEqual({ type: "integer" });
  });
});

describe("manifestFromToolsJsonl on inline lines", () => {
  it("maps params, keeps fitting enums and item types, and drops ones that do not fit", () => {
    const text = line({
      params: [
        { name: "size", type: "int", required: true, description: "n", enum: [1, 2] },
        { name: "mode", type: "str", required: false, description: "", enum: [1, "a"] },
        { name: "tags", type: "list", required: false, description: "", items: "str" },
        { name: "opts", type: "dict", required: false, description: "", properties: ["a", "b"] },
        { name: "ratio", type: "float", required: false, description: "", default: 0.5 },
      ],
    });
    const params = manifestFromToolsJsonl(text).providers[0].tools[0].params;
    expect(params).toEqual([
      { name: "size", type: "integer", required: true, description: "n", enum: [1, 2] },
      { name: "mode", type: "string", required: false, description: "" },
      { name: "tags", type: "array", required: false, description: "", items: { type: "string" } },
      { name: "opts", type: "object", required: false, description: "", properties: ["a", "b"] },
      { name: "ratio", type: "number", required: false, description: "", default: 0.5 },
    ]);
  });

  it("repeats Chinese texts in i18n.zh and filters by source", () => {
    const text = [
      line({ id: "zh:1", source: "zh", lang: "zh", name: "天气", description: "查询天气", params: [{ name: "city", type: "string", required: true, description: "城市" }] }),
      line({ id: "en:1", source: "en" }),
    ].join("\n");
    const m = manifestFromToolsJsonl(text, { source: "zh" });
    expect(m.providers.map((p) => p.id)).toEqual(["zh"]);
    expect(m.providers[0].tools[0]).toMatchObject({ lang: "zh", source: "zh", i18n: { zh: { name: "天气", description: "查询天气", params: { city: "城市" } } } });
  });

  it("reports bad lines by number", () => {
    const text = `${line({})}\n{broken\n${line({ id: "s:2", lang: "fr" })}`;
    expect(() => manifestFromToolsJsonl(text)).toThrow(ManifestError);
    expect(() => manifestFromToolsJsonl(text)).toThrow(/line 2: not JSON[\s\S]*line 3: lang/);
    expect(() => manifestFromToolsJsonl(line({}), { source: "missing" })).toThrow(/No tools with source "missing"/);
  });
});

// The public catalog sits beside the repository (../shared/catalog), as on every machine and in CI.
describe("manifestFromToolsJsonl on the public catalog", () => {
  const text = fs.readFileSync(CATALOG, "utf8");
  const first50 = text.split("\n").slice(0, 50).join("\n");
  const rawLines = first50.split("\n").map((l) => JSON.parse(l) as { id: string; source: string; lang: string; params: { type: string }[] });

  it("keeps the line ids as tool ids and makes one catalog-only provider per source", () => {
    const m = manifestFromToolsJsonl(first50);
    const sources = [...new Set(rawLines.map((l) => l.source))];
    expect(m.providers.map((p) => p.id).sort()).toEqual(sources.sort());
    for (const p of m.providers) {
      expect(p).toMatchObject({ transport: "none", source: p.id });
      for (const t of p.tools) {
        expect(t.source).toBe(p.id);
        expect(t.execution).toBeUndefined();
        expect(t.billing_rule).toBeUndefined();
      }
    }
    const ids = m.providers.flatMap((p) => p.tools.map((t) => t.id));
    expect(ids).toEqual(rawLines.map((l) => l.id));
    expect(ids[0]).toMatch(/^acebench-(zh|en):\d+$/);
  });

  it("stores each tool's language and maps every parameter to a contract type", () => {
    const tools = manifestFromToolsJsonl(first50).providers.flatMap((p) => p.tools);
    tools.forEach((t, i) => {
      expect(t.lang).toBe(rawLines[i].lang);
      expect(t.params.map((p) => p.type)).toEqual(rawLines[i].params.map((p) => mapParamType(p.type).type));
      if (t.lang === "zh") expect(t.i18n?.zh?.description).toBe(t.description);
    });
  });

  it("converts the whole catalog (every source) without a validation error, one provider per source and provider name", () => {
    const m = manifestFromToolsJsonl(text);
    const lines = text.trim().split("\n").map((line) => JSON.parse(line) as { id: string; source: string; provider: string | null });
    const sources = [...new Set(lines.map((l) => l.source))].sort();
    expect(sources).toEqual(expect.arrayContaining(["acebench-en", "acebench-zh"]));
    expect([...new Set(m.providers.map((p) => p.source))].sort()).toEqual(sources);
    expect(m.providers.reduce((n, p) => n + p.tools.length, 0)).toBe(lines.length);
    // Every tool sits under the provider its line names (the source's own provider when it names none).
    const providerOf = new Map(m.providers.flatMap((p) => p.tools.map((t) => [t.id, p] as const)));
    for (const line of lines) {
      const p = providerOf.get(line.id)!;
      expect(p.source).toBe(line.source);
      if (line.provider) expect(p.name.toLowerCase().replace(/[^a-z0-9]/g, "")).toBe(line.provider.toLowerCase().replace(/[^a-z0-9]/g, ""));
      else expect(p.id).toBe(line.source);
    }
    // toolalpaca's 21 APIs are 21 providers.
    expect(m.providers.filter((p) => p.source === "toolalpaca")).toHaveLength(21);
  });
});
