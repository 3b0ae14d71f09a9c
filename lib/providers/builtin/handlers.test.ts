import { describe, expect, it } from "vitest";
import demoCatalog from "../../catalog/demo-catalog.json";
import { parseManifest } from "../../catalog/manifest";
import { BuiltinToolError, builtinHandlers } from "./handlers";
import { rmbUppercase } from "./math";

const tools = parseManifest(demoCatalog).providers[0].tools;

type Data = Record<string, unknown>;

async function run(handler: string, params: Record<string, unknown>): Promise<Data> {
  const fn = builtinHandlers[handler];
  if (!fn) throw new Error(`no handler ${handler}`);
  return (await fn(params)) as Data;
}

async function failure(handler: string, params: Record<string, unknown>): Promise<BuiltinToolError> {
  try {
    await run(handler, params);
  } catch (err) {
    if (err instanceof BuiltinToolError) return err;
    throw err;
  }
  throw new Error(`${handler} did not throw`);
}

describe("every demo tool", () => {
  for (const tool of tools.filter((t) => t.status === "active")) {
    it(`${tool.id} answers its sample parameters with JSON data`, async () => {
      const handler = (tool.execution as { handler: string }).handler;
      const data = await run(handler, tool.examples?.sample_parameters ?? {});
      expect(data).toBeTypeOf("object");
      expect(JSON.parse(JSON.stringify(data))).toEqual(data);
      // Samples are meant to show a useful answer, not an empty result.
      expect(Object.keys(data).length, tool.id).toBeGreaterThan(0);
    });
  }
});

describe("math", () => {
  it("evaluates with operator precedence, powers and functions", async () => {
    expect((await run("math.evaluate", { expression: "2+3*4" })).result).toBe(14);
    expect((await run("math.evaluate", { expression: "-2^2 + 2^3^2" })).result).toBe(508);
    expect((await run("math.evaluate", { expression: "0.1 + 0.2" })).result).toBe(0.3);
    expect((await run("math.evaluate", { expression: "sin(90) + 5!", angle_unit: "degrees" })).result).toBe(121);
    expect((await run("math.evaluate", { expression: "max(1, 7, 3) % 4 + sqrt(16)" })).result).toBe(7);
  });

  it("refuses division by zero, unknown names and prototype keys", async () => {
    expect((await failure("math.evaluate", { expression: "1/0" })).message).toBe("division by zero");
    expect((await failure("math.evaluate", { expression: "process.exit(1)" })).message).toMatch(/unknown name "process"|unexpected/);
    expect((await failure("math.evaluate", { expression: "constructor(1)" })).message).toMatch(/unknown function/);
    expect((await failure("math.evaluate", { expression: "2 +" })).message).toMatch(/end of expression/);
  });

  it("computes statistics", async () => {
    const s = await run("math.statistics", { numbers: [2, 4, 4, 4, 5, 5, 7, 9] });
    expect(s).toMatchObject({ count: 8, mean: 5, median: 4.5, mode: [4], stddev: 2, min: 2, max: 9 });
    await expect(run("math.statistics", { numbers: [] })).rejects.toBeInstanceOf(BuiltinToolError);
  });

  it("converts bases exactly beyond 2^53", async () => {
    const r = await run("math.base_convert", { value: "18446744073709551615", to_base: 16 });
    expect(r.result).toBe("ffffffffffffffff");
    expect((await run("math.base_convert", { value: "0b1010", from_base: 2, to_base: 10 })).result).toBe("10");
    expect((await failure("math.base_convert", { value: "129", from_base: 2, to_base: 10 })).message).toMatch(/not a digit in base 2/);
  });

  it("writes and reads roman numerals strictly", async () => {
    expect((await run("math.roman", { number: 1994 })).roman).toBe("MCMXCIV");
    expect((await run("math.roman", { roman: "mmxxiv" })).number).toBe(2024);
    await expect(run("math.roman", { roman: "IIII" })).rejects.toBeInstanceOf(BuiltinToolError);
    await expect(run("math.roman", { number: 4000 })).rejects.toBeInstanceOf(BuiltinToolError);
  });

  it("computes percentages, gcd/lcm and primes", async () => {
    expect((await run("math.percentage", { mode: "percent_of", a: 15, b: 200 })).result).toBe(30);
    expect((await run("math.percentage", { mode: "change", a: 80, b: 100 })).result).toBe(25);
    await expect(run("math.percentage", { mode: "what_percent", a: 1, b: 0 })).rejects.toBeInstanceOf(BuiltinToolError);
    expect(await run("math.gcd_lcm", { numbers: [12, 18, 30] })).toMatchObject({ gcd: 6, lcm: "180" });
    expect((await run("math.prime", { n: 999_999_999_989 })).is_prime).toBe(true);
    expect((await run("math.prime", { n: 1 })).is_prime).toBe(false);
  });

  it("computes loans, compound interest, BMI and RMB capitals", async () => {
    expect((await run("finance.loan_payment", { principal: 12000, annual_rate_percent: 0, months: 12 })).monthly_payment).toBe(1000);
    expect((await run("finance.compound_interest", { principal: 1000, annual_rate_percent: 10, years: 2, compounds_per_year: 1 })).final_amount).toBe(1210);
    expect(await run("health.bmi", { weight_kg: 70, height_cm: 175 })).toMatchObject({ bmi: 22.9, category: "normal" });
    expect((await run("health.bmi", { weight_kg: 75, height_cm: 175, standard: "china" })).category).toBe("overweight");
    expect(rmbUppercase("1234.50")).toBe("壹仟贰佰叁拾肆元伍角整");
    expect(rmbUppercase("10010")).toBe("壹万零壹拾元整");
    expect(rmbUppercase("100000001.05")).toBe("壹亿零壹元零伍分");
    expect(rmbUppercase("0.3")).toBe("叁角整");
  });
});

describe("conversions", () => {
  it("converts temperature, length and data sizes", async () => {
    expect((await run("convert.temperature", { value: 100, from: "C", to: "F" })).result).toBe(212);
    expect((await run("convert.temperature", { values: [32, 212], from: "F", to: "C" })).results).toEqual([0, 100]);
    expect((await run("convert.length", { value: 1, from: "mi", to: "km" })).result).toBe(1.609344);
    expect((await run("convert.mass", { value: 1, from: "jin", to: "g" })).result).toBe(500);
    expect((await run("convert.data_size", { value: 1, from: "GiB", to: "MiB" })).result).toBe(1024);
    expect((await failure("convert.temperature", { value: -500, from: "C", to: "K" })).message).toMatch(/absolute zero/);
  });

  it("converts colours between hex, rgb and hsl", async () => {
    expect(await run("color.convert", { hex: "#ff0000" })).toMatchObject({ rgb: { r: 255, g: 0, b: 0 }, hsl: { h: 0, s: 100, l: 50 } });
    expect((await run("color.convert", { hsl: [120, 100, 25] })).hex).toBe("#008000");
    expect((await run("color.convert", { rgb: [255, 255, 255] })).contrast_with_black).toBe(21);
  });
});

describe("time", () => {
  it("counts days, calendar parts and business days between dates", async () => {
    const d = await run("time.date_diff", { start: "2024-01-01", end: "2024-03-01" });
    expect(d).toMatchObject({ days: 60, calendar: { sign: 1, years: 0, months: 2, days: 0 } });
    expect((await run("time.date_diff", { start: "2024-06-03", end: "2024-06-10" })).business_days).toBe(5);
    expect((await run("time.date_diff", { start: "2024-03-01", end: "2024-01-01" })).days).toBe(-60);
  });

  it("adds months with end-of-month clamping and keeps offsets", async () => {
    expect((await run("time.date_add", { date: "2023-01-31", amount: 1, unit: "months" })).result).toBe("2023-02-28");
    expect((await run("time.date_add", { date: "2024-03-10T23:30:00+08:00", amount: 90, unit: "minutes" })).result).toBe("2024-03-11T01:00:00+08:00");
    expect((await run("time.weekday", { date: "2000-01-01" })).weekday).toBe("Saturday");
    await expect(run("time.weekday", { date: "2023-02-29" })).rejects.toBeInstanceOf(BuiltinToolError);
  });

  it("converts between time zones across daylight saving time", async () => {
    const summer = await run("time.convert_timezone", { datetime: "2024-07-01T09:00", from_tz: "America/New_York", to_tz: "Asia/Shanghai" });
    expect(summer).toMatchObject({ result: "2024-07-01T21:00:00+08:00", utc: "2024-07-01T13:00:00.000Z", hours_difference: 12 });
    const winter = await run("time.convert_timezone", { datetime: "2024-01-15T09:00", from_tz: "America/New_York", to_tz: "Europe/London" });
    expect(winter.result).toBe("2024-01-15T14:00:00+00:00");
    expect((await failure("time.convert_timezone", { datetime: "2024-01-01T00:00", to_tz: "Mars/Olympus" })).message).toMatch(/unknown time zone "Mars\/Olympus"/);
  });

  it("converts Unix timestamps both ways", async () => {
    expect((await run("time.unix_timestamp", { timestamp: 0 })).utc).toBe("1970-01-01T00:00:00.000Z");
    expect((await run("time.unix_timestamp", { datetime: "2024-01-01T08:00", timezone: "Asia/Shanghai" })).timestamp_s).toBe(1704067200);
  });
});

describe("text and regex", () => {
  it("counts CJK characters as words", async () => {
    const s = await run("text.statistics", { text: "Hello world\n你好世界" });
    expect(s).toMatchObject({ words: 6, latin_words: 2, cjk_characters: 4, lines: 2, characters: 16 });
  });

  it("slugifies, converts case and counts word frequency", async () => {
    expect((await run("text.slugify", { text: "  Héllo, Wörld!  " })).slug).toBe("hello-world");
    expect((await run("text.case_convert", { text: "parseHTTPResponse code", to: "snake" })).result).toBe("parse_http_response_code");
    expect((await run("text.case_convert", { text: "the lord of the rings", to: "title" })).result).toBe("The Lord of the Rings");
    const wf = await run("text.word_frequency", { text: "b a b c b a", top: 2 });
    expect(wf.items).toEqual([{ word: "b", count: 3, share: 0.5 }, { word: "a", count: 2, share: 0.3333 }]);
    expect(await run("text.word_frequency", { text: "  ...  " })).toEqual({});
  });

  it("diffs lines", async () => {
    const d = await run("text.diff", { before: "a\nb\nc", after: "a\nc\nd" });
    expect(d).toMatchObject({ added: 1, removed: 1, unchanged: 2, unified: " a\n-b\n c\n+d" });
    expect((await run("text.diff", { before: "x", after: "x" })).identical).toBe(true);
  });

  it("extracts, tests and replaces with regular expressions", async () => {
    const e = await run("regex.extract", { pattern: "\\d+", text: "a1b22c333" });
    expect(e).toMatchObject({ count: 3, items: [{ match: "1", index: 1 }, { match: "22" }, { match: "333" }] });
    expect(await run("regex.extract", { pattern: "z", text: "abc" })).toEqual({});
    expect(await run("regex.test", { pattern: "(?<y>\\d{4})", text: "in 2024" })).toMatchObject({ matched: true, groups: { y: "2024" } });
    expect(await run("regex.replace", { pattern: "(\\w+)@(\\w+)", text: "a@b c@d", replacement: "$2.$1" })).toEqual({ result: "b.a d.c", replacements: 2 });
  });

  it("stops catastrophic backtracking instead of hanging", async () => {
    const started = Date.now();
    const err = await failure("regex.test", { pattern: "^(a+)+$", text: `${"a".repeat(40)}b` });
    expect(err.message).toMatch(/took longer than/);
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(run("regex.test", { pattern: "(", text: "x" })).rejects.toBeInstanceOf(BuiltinToolError);
  });
});

describe("encoding, crypto and identifiers", () => {
  it("hashes and signs with known digests", async () => {
    expect((await run("crypto.hash", { text: "abc" })).digest).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect((await run("crypto.hash", { text: "abc", algorithm: "md5" })).digest).toBe("900150983cd24fb0d6963f7d28e17f72");
    const hmac = await run("crypto.hmac", { text: "The quick brown fox jumps over the lazy dog", key: "key" });
    expect(hmac.signature).toBe("f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
  });

  it("round-trips Base64 and URL encoding and rejects garbage", async () => {
    const encoded = (await run("encoding.base64", { text: "你好", mode: "encode" })).result;
    expect(encoded).toBe("5L2g5aW9");
    expect((await run("encoding.base64", { text: encoded, mode: "decode" })).result).toBe("你好");
    await expect(run("encoding.base64", { text: "@@@", mode: "decode" })).rejects.toBeInstanceOf(BuiltinToolError);
    expect((await run("encoding.url", { text: "a b&c", mode: "encode" })).result).toBe("a%20b%26c");
    await expect(run("encoding.url", { text: "%E4%", mode: "decode" })).rejects.toBeInstanceOf(BuiltinToolError);
  });

  it("parses a URL's query keys as given, those named like object members too", async () => {
    const { query } = await run("web.url_parse", { url: "https://a.example/?constructor=1&__proto__=2&toString=a&toString=b" });
    expect(JSON.parse(JSON.stringify(query))).toEqual(JSON.parse('{"constructor":"1","__proto__":"2","toString":["a","b"]}'));
  });

  it("generates well-formed UUIDs, ULIDs and passwords", async () => {
    const v4 = (await run("generate.uuid", { count: 2 })).uuids as string[];
    expect(v4).toHaveLength(2);
    for (const u of v4) expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const v7 = (await run("generate.uuid", { version: "v7" })).uuids as string[];
    expect(v7[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    const ulids = (await run("generate.ulid", { count: 3 })).ulids as string[];
    expect([...ulids].sort()).toEqual(ulids);
    const pw = (await run("generate.password", { length: 24, symbols: false })).passwords as string[];
    expect(pw[0]).toMatch(/^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)[A-Za-z\d]{24}$/);
  });
});

describe("data and validation", () => {
  it("reads JSON paths and reports absent ones as empty", async () => {
    const doc = { a: { b: [10, 20, { "c d": true }] } };
    expect((await run("data.json_path", { json: doc, path: "$.a.b[-1][\"c d\"]" })).value).toBe(true);
    expect((await run("data.json_path", { text: JSON.stringify(doc), path: "a.b.1" })).value).toBe(20);
    expect(await run("data.json_path", { json: doc, path: "$.a.x" })).toEqual({});
    await expect(run("data.json_path", { text: "{oops", path: "a" })).rejects.toBeInstanceOf(BuiltinToolError);
  });

  it("validates, formats and diffs JSON", async () => {
    expect(await run("data.json_validate", { text: '{"a":1,}' })).toMatchObject({ valid: false, line: 1 });
    expect((await run("data.json_format", { text: '{"b":1,"a":2}', indent: 0, sort_keys: true })).result).toBe('{"a":2,"b":1}');
    const diff = await run("data.json_diff", { before: { a: 1, list: [1] }, after: { a: 2, list: [1, 2] } });
    expect(diff.changes).toEqual([
      { path: "$.a", op: "changed", before: 1, after: 2 },
      { path: "$.list[1]", op: "added", after: 2 },
    ]);
  });

  it("parses quoted CSV fields", async () => {
    const r = await run("data.csv_to_json", { csv: 'a,b\n"x, y","he said ""hi"""\n1,\n', infer_types: true });
    expect(r.rows).toEqual([{ a: "x, y", b: 'he said "hi"' }, { a: 1, b: null }]);
    await expect(run("data.csv_to_json", { csv: 'a\n"open' })).rejects.toBeInstanceOf(BuiltinToolError);
    expect(await run("data.csv_to_json", { csv: "only,header" })).toEqual({});
  });

  it("checks Luhn, IBAN, email and URL formats", async () => {
    expect((await run("validate.luhn", { number: "4111 1111 1111 1111" })).valid).toBe(true);
    expect((await run("validate.luhn", { number: "4111 1111 1111 1112" })).valid).toBe(false);
    expect((await run("validate.iban", { iban: "DE89 3704 0044 0532 0130 00" })).valid).toBe(true);
    expect((await run("validate.iban", { iban: "DE89 3704 0044 0532 0130 01" })).valid).toBe(false);
    expect((await run("validate.email", { email: "a..b@example.com" })).valid).toBe(false);
    expect((await run("validate.email", { email: "张三@例子.公司" })).valid).toBe(true);
    expect((await run("validate.url", { url: "http://example.com", require_https: true })).valid).toBe(false);
  });
});
