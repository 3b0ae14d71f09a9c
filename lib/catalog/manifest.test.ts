import { describe, expect, it } from "vitest";
import { builtinHandlers } from "../providers/builtin/handlers";
import demoCatalog from "./demo-catalog.json";
import { searchText } from "./import";
import { parseCatalogText } from "./load";
import {
  type BillingRule,
  type ToolManifest,
  type ToolParam,
  ManifestError,
  describeBillingRule,
  matchesParamType,
  parameterIssues,
  parseManifest,
  quoteBillingUnits,
  resultItemCount,
  settledBillingUnits,
} from "./manifest";

const manifest = parseManifest(demoCatalog, "demo catalog");
const provider = manifest.providers[0];
const active = provider.tools.filter((t) => t.status === "active");
const HAN = /\p{Script=Han}/u;

/** An independent reading of the contract's rules for sample parameters (not the module's own checker). */
function sampleProblems(tool: ToolManifest): string[] {
  const sample = tool.examples?.sample_parameters ?? {};
  const byName = new Map(tool.params.map((p) => [p.name, p]));
  const problems: string[] = [];
  for (const p of tool.params) if (p.required && !(p.name in sample)) problems.push(`missing ${p.name}`);
  for (const [name, value] of Object.entries(sample)) {
    const p = byName.get(name);
    if (!p) problems.push(`unknown ${name}`);
    else if (!matchesParamType(value, p.type)) problems.push(`${name} is not ${p.type}`);
    else if (p.enum && !p.enum.includes(value as string)) problems.push(`${name} not in enum`);
  }
  for (const group of tool.one_of_required ?? []) {
    if (!group.some((n) => n in sample)) problems.push(`none of ${group.join("/")}`);
  }
  return problems;
}

function manifestWith(tool: Record<string, unknown>, provider: Record<string, unknown> = {}) {
  return {
    providers: [
      {
        id: "p",
        name: "P",
        transport: "builtin",
        tools: [{ id: "t.one", name: "T", description: "d", params: [], execution: { handler: "math.evaluate" }, ...tool }],
        ...provider,
      },
    ],
  };
}

function errorOf(input: unknown): ManifestError {
  try {
    parseManifest(input);
  } catch (err) {
    if (err instanceof ManifestError) return err;
    throw err;
  }
  throw new Error("the manifest was accepted");
}

describe("the shipped demo catalog", () => {
  it("is one builtin provider named Tollgate Builtins", () => {
    expect(manifest.providers).toHaveLength(1);
    expect(provider).toMatchObject({ id: "tollgate-builtin", name: "Tollgate Builtins", transport: "builtin" });
    expect(provider.i18n?.zh?.name).toMatch(HAN);
  });

  it("has at least 30 active builtin tools and exactly one retired tool", () => {
    expect(active.length).toBeGreaterThanOrEqual(30);
    expect(provider.tools.filter((t) => t.status === "retired")).toHaveLength(1);
  });

  it("gives every tool a Chinese name and description, a category and stats", () => {
    for (const t of provider.tools) {
      expect(t.i18n?.zh?.name, t.id).toMatch(HAN);
      expect(t.i18n?.zh?.description, t.id).toMatch(HAN);
      expect(t.i18n?.zh?.description.length, t.id).toBeGreaterThan(10);
      expect(t.category, t.id).toBeTruthy();
      expect(t.stats, t.id).toBeDefined();
      expect(provider.categories).toContain(t.category);
    }
  });

  it("translates every parameter description into Chinese", () => {
    for (const t of provider.tools) {
      for (const p of t.params) expect(t.i18n?.zh?.params?.[p.name], `${t.id}.${p.name}`).toMatch(HAN);
    }
  });

  it("has sample parameters that satisfy each tool's own required, enum and one_of_required rules", () => {
    for (const t of provider.tools) {
      expect(t.examples?.sample_parameters, t.id).toBeDefined();
      expect(sampleProblems(t), t.id).toEqual([]);
    }
  });

  it("points every tool at an existing builtin handler", () => {
    for (const t of provider.tools) {
      const handler = (t.execution as { handler?: string } | undefined)?.handler ?? "";
      expect(builtinHandlers[handler], `${t.id} → ${handler}`).toBeTypeOf("function");
    }
  });

  it("uses dotted builtin.* tool ids", () => {
    for (const t of provider.tools) expect(t.id).toMatch(/^builtin\.[a-z_]+\.[a-z_0-9]+$/);
  });

  it("covers free, per-call and per-unit billing, one_of_required and caching", () => {
    const rules = active.map((t) => t.billing_rule).filter((r): r is BillingRule => r !== undefined);
    expect(rules).toHaveLength(active.length);
    expect(rules.filter((r) => r.unit === "free").length).toBeGreaterThanOrEqual(3);
    expect(rules.filter((r) => r.unit === "call").length).toBeGreaterThanOrEqual(3);
    const perUnit = rules.filter((r) => r.unit === "per_unit");
    expect(perUnit.length).toBeGreaterThanOrEqual(2);
    expect(perUnit.some((r) => r.quantity_from === "param_length")).toBe(true);
    expect(perUnit.some((r) => r.quantity_from === "result_items")).toBe(true);
    expect(active.filter((t) => t.one_of_required).length).toBeGreaterThanOrEqual(3);
    expect(active.filter((t) => t.cacheable && t.cache_ttl_seconds > 0).length).toBeGreaterThanOrEqual(3);
  });
});

describe("manifest validation", () => {
  it("accepts a minimal manifest and fills defaults", () => {
    const m = parseManifest(manifestWith({}));
    expect(m.providers[0].tools[0]).toMatchObject({ status: "active", lang: "en", cacheable: false, timeout_ms: 10_000, params: [] });
  });

  it("rejects a one_of_required group naming an unknown parameter, with the path in the message", () => {
    const err = errorOf(manifestWith({ one_of_required: [["nope"]] }));
    expect(err.message).toContain("providers[0].tools[0].one_of_required[0][0]");
    expect(err.message).toContain('unknown parameter "nope"');
  });

  it("rejects http tools without execution.path and http providers without base_url", () => {
    const err = errorOf(manifestWith({ execution: { method: "GET" } }, { transport: "http" }));
    expect(err.message).toContain("base_url");
    expect(err.message).toContain("providers[0].tools[0].execution.path");
  });

  it("rejects duplicate tool ids across providers", () => {
    const one = manifestWith({}).providers[0];
    const err = errorOf({ providers: [one, { ...one, id: "q" }] });
    expect(err.message).toMatch(/duplicate tool id "t.one" \(also in provider "p"\)/);
  });

  it("rejects unknown keys, so a typo such as requried is caught", () => {
    const err = errorOf(manifestWith({ params: [{ name: "x", type: "string", requried: true }] }));
    expect(err.message).toContain("providers[0].tools[0].params[0]");
    expect(err.message).toContain("requried");
  });

  it("rejects enum values of the wrong type and samples breaking the schema", () => {
    const err = errorOf(
      manifestWith({
        params: [{ name: "n", type: "integer", required: true, enum: ["a"] }],
        examples: { sample_parameters: { m: 1 } },
      }),
    );
    expect(err.message).toContain('enum value "a" is not an integer');
    expect(err.message).toContain('unknown parameter "m"');
    expect(err.message).toContain('missing required parameter "n"');
  });

  it("rejects billing rules whose quantity cannot be measured", () => {
    expect(errorOf(manifestWith({ billing_rule: { unit: "per_unit", amount_credits: 1, quantity_from: "result_items" } })).message).toContain("max_units");
    expect(errorOf(manifestWith({ billing_rule: { unit: "free", amount_credits: 2 } })).message).toContain("free rule costs 0");
    expect(errorOf(manifestWith({ billing_rule: { unit: "call", amount_credits: 0.0000001 } })).message).toContain("6 decimal places");
    const wrongParam = manifestWith({
      params: [{ name: "flag", type: "boolean" }],
      billing_rule: { unit: "per_unit", amount_credits: 1, quantity_from: "param_length", quantity_param: "flag" },
    });
    expect(errorOf(wrongParam).message).toContain("param_length needs a string or array parameter");
  });

  it("lists at most five issues and says how many more there are", () => {
    const tools = Array.from({ length: 8 }, (_, i) => ({ id: `bad ${i}`, name: "x", description: "" }));
    const err = errorOf({ providers: [{ id: "p", name: "P", transport: "none", tools }] });
    expect(err.issues).toHaveLength(8);
    expect(err.message).toMatch(/^Invalid manifest \(8 issues\):/);
    expect(err.message).toContain("… and 3 more");
  });

  it("keeps catalog-only (none) providers free of execution settings", () => {
    expect(errorOf(manifestWith({}, { transport: "none" })).message).toContain("catalog-only");
  });

  it("reads schemas from the snapshot by default and allows a live schema for mcp providers only", () => {
    expect(parseManifest(manifestWith({})).providers[0].schema).toBe("snapshot");
    const mcp = { transport: "mcp", base_url: "https://mcp.example.com/mcp", schema: "live" };
    expect(parseManifest(manifestWith({ execution: { mcp_tool: "t" } }, mcp)).providers[0].schema).toBe("live");
    expect(errorOf(manifestWith({}, { schema: "live" })).message).toContain("providers[0].schema: only mcp providers can have a live schema");
  });
});

describe("parameters named like object members", () => {
  const members: ToolParam[] = ["constructor", "toString", "hasOwnProperty", "valueOf"].map((name) => ({ name, type: "string", required: true, description: "" }));

  it("are missing when not given, and checked as given: never read from Object.prototype", () => {
    expect(parameterIssues(members, [["toString", "valueOf"]], {}).map((i) => [i.type, i.path])).toEqual([...members.map((p) => ["missing", [p.name]]), ["one_of_required", []]]);
    expect(parameterIssues(members, undefined, { constructor: "c", toString: "t", hasOwnProperty: "h", valueOf: 1 }).map((i) => i.message)).toEqual(['"valueOf" must be a string']);
  });

  it("are searchable by their own texts, a translation missing for them", () => {
    const m = parseManifest(manifestWith({ params: [{ name: "constructor", type: "string", description: "Who builds it" }], i18n: { zh: { name: "构造", description: "", params: {} } } }));
    expect(searchText(m.providers[0], m.providers[0].tools[0]).split("\n")).toEqual(["T", "构造", "d", "constructor", "Who builds it", "P"]);
  });

  it('refuse "__proto__" as a parameter name: JSON readers drop that key, so no Call could give it', () => {
    expect(errorOf(manifestWith({ params: [{ name: "__proto__", type: "string" }] })).message).toContain('providers[0].tools[0].params[0].name: a parameter cannot be named "__proto__"');
  });
});

describe("http mappings, credentials and full parameter schemas", () => {
  const http = { transport: "http", base_url: "https://api.example" };

  it("checks that headers, wire names, styles and body_param name parameters of the tool", () => {
    const err = errorOf(manifestWith({ params: [{ name: "a", type: "string" }], execution: { method: "POST", path: "/x", headers: ["h"], wire_names: { w: "W" }, styles: { s: { style: "form", explode: true } }, body_param: "b", body: "none" } }, http));
    expect(err.message).toContain('headers names unknown parameter "h"');
    expect(err.message).toContain('wire_names names unknown parameter "w"');
    expect(err.message).toContain('styles names unknown parameter "s"');
    expect(err.message).toContain('body_param names unknown parameter "b"');
    expect(err.message).toContain("body_param needs a body (body is none)");
  });

  it("holds an operation's content-type parameter to an enum of exactly its body types", () => {
    const bodyTypes = [{ media_type: "application/json", kind: "json" }, { media_type: "text/plain", kind: "raw" }];
    const withChooser = (param: Record<string, unknown>) => manifestWith({ params: [{ name: "content_type", type: "string", ...param }], execution: { method: "POST", path: "/x", body_types: bodyTypes, content_type_param: "content_type" } }, http);
    expect(errorOf(withChooser({})).message).toContain('content_type_param "content_type" must be a string whose enum lists the body_types\' media types');
    expect(errorOf(withChooser({ enum: ["application/json"] })).message).toContain("must be a string whose enum lists");
    expect(() => parseManifest(withChooser({ enum: ["text/plain", "application/json"] }))).not.toThrow();
  });

  it("needs the name of an operation's header, query or cookie credential", () => {
    const security = (credential: Record<string, unknown>) => manifestWith({ execution: { method: "GET", path: "/x", security: [[credential]] } }, http);
    expect(errorOf(security({ scheme: "key", type: "cookie", env: "K" })).message).toContain("execution.security[0][0].name: http execution: a header, query or cookie credential needs name");
    expect(() => parseManifest(security({ scheme: "key", type: "cookie", name: "sid", env: "K" }))).not.toThrow();
    expect(() => parseManifest(security({ scheme: "token", type: "bearer", env: "K" }))).not.toThrow();
  });

  it("needs the parameter name of query auth, and an env for every credential", () => {
    expect(errorOf(manifestWith({ execution: { method: "GET", path: "/x" } }, { ...http, auth: { type: "query", env: "K" } })).message).toContain("query auth needs query");
    expect(errorOf(manifestWith({ execution: { method: "GET", path: "/x" } }, { ...http, auth: { type: "basic" } })).message).toContain("basic auth needs env");
    expect(parseManifest(manifestWith({ execution: { method: "GET", path: "/x" } }, { ...http, auth: { type: "query", query: "api_key", env: "K" } })).providers[0].auth).toEqual({ type: "query", query: "api_key", env: "K" });
  });

  it("rejects a json_schema that is not a JSON Schema, and validates values against a good one (it alone decides)", () => {
    expect(errorOf(manifestWith({ params: [{ name: "o", type: "object", json_schema: { type: "object", properties: { n: { type: "nope" } } } }] })).message).toContain("providers[0].tools[0].params[0].json_schema: json_schema is not a valid JSON Schema");
    const owner = { type: "object", required: ["name"], properties: { name: { type: "string" }, address: { type: "object", properties: { zip: { type: "string", pattern: "^[0-9]{5}$" } } } } };
    const [tool] = parseManifest(manifestWith({ params: [{ name: "owner", type: "object", required: true, json_schema: owner }] })).providers[0].tools;
    expect(parameterIssues(tool.params, undefined, { owner: { name: "Ann", address: { zip: "12345" } } })).toEqual([]);
    expect(parameterIssues(tool.params, undefined, { owner: { address: { zip: "1" } } })).toEqual([
      { message: '"owner.name" is required', path: ["owner", "name"], type: "value_error" },
      { message: '"owner.address.zip" must match pattern "^[0-9]{5}$"', path: ["owner", "address", "zip"], type: "value_error" },
    ]);
  });
});

describe("billing rule semantics", () => {
  const params: ToolParam[] = [
    { name: "text", type: "string", required: true, description: "" },
    { name: "count", type: "integer", required: false, description: "", default: 1 },
  ];

  it("prices free and per-call rules as one exact unit", () => {
    expect(quoteBillingUnits({ unit: "call", amount_credits: 0.5 }, params, {})).toEqual({ units: 1, exact: true });
    expect(describeBillingRule({ unit: "call", amount_credits: 0.5 })).toBe("0.5 credits per call");
    expect(describeBillingRule({ unit: "free", amount_credits: 0 })).toBe("Free");
  });

  it("measures param_length in code points and rounds up to whole units", () => {
    const rule: BillingRule = { unit: "per_unit", amount_credits: 0.1, quantity_from: "param_length", quantity_param: "text", unit_size: 1000 };
    expect(quoteBillingUnits(rule, params, { text: "abc" })).toEqual({ units: 1, exact: true });
    expect(quoteBillingUnits(rule, params, { text: "汉".repeat(2001) })).toEqual({ units: 3, exact: true });
    expect(quoteBillingUnits(rule, params, { text: "" })).toEqual({ units: 0, exact: true });
    expect(describeBillingRule(rule, params)).toBe('0.1 credits per 1000 characters of "text"');
  });

  it("uses a parameter's default value when it is omitted, capped at max_units", () => {
    const rule: BillingRule = { unit: "per_unit", amount_credits: 0.01, quantity_from: "param_value", quantity_param: "count", max_units: 100 };
    expect(quoteBillingUnits(rule, params, {}).units).toBe(1);
    expect(quoteBillingUnits(rule, params, { count: 500 }).units).toBe(100);
  });

  it("reserves max_units for result_items and settles on the items actually returned", () => {
    const rule: BillingRule = { unit: "per_unit", amount_credits: 0.001, quantity_from: "result_items", quantity_param: "items", max_units: 1000 };
    expect(quoteBillingUnits(rule, params, {})).toEqual({ units: 1000, exact: false });
    expect(settledBillingUnits(rule, params, {}, { count: 2, items: [1, 2] })).toBe(2);
    expect(settledBillingUnits(rule, params, {}, {})).toBe(0);
    expect(resultItemCount([1, 2, 3])).toBe(3);
    expect(resultItemCount({ items: [1] })).toBe(1);
  });
});

describe("catalog file detection", () => {
  it("reads a manifest JSON and filters it by source", () => {
    const text = JSON.stringify({ providers: [{ ...manifestWith({}).providers[0], source: "s1" }] });
    expect(parseCatalogText(text, "m.json").providers).toHaveLength(1);
    expect(() => parseCatalogText(text, "m.json", { source: "s2" })).toThrow(/no provider with source "s2"/);
  });

  it("reads JSONL tool lines", () => {
    const line = JSON.stringify({ id: "x:1", name: "n", description: "d", provider: null, category: null, source: "x", lang: "en", params: [] });
    expect(parseCatalogText(`${line}\n`, "t.jsonl").providers[0]).toMatchObject({ id: "x", transport: "none" });
  });

  it("names the file and the first issues of a bad manifest", () => {
    expect(() => parseCatalogText('{"providers": []}', "bad.json")).toThrow(/^Invalid manifest bad\.json \(1 issue\):\n {2}- providers: a manifest lists at least one provider$/);
    expect(() => parseCatalogText("not json", "x.txt")).toThrow(/Cannot read catalog x\.txt: it is not valid JSON/);
  });
});
