import { describe, expect, it } from "vitest";
import { chineseTerms, splitIdentifier, stem, tokenize } from "./tokenize";
import { analyzeQuery } from "./expand";
import { negotiateLang } from "./lang";
import { editDistance, FuzzyIndex } from "./fuzzy";

describe("splitIdentifier", () => {
  it.each([
    ["vehicle_maintenance_checker", ["vehicle", "maintenance", "checker"]],
    ["NightSkyAnalysis", ["night", "sky", "analysis"]],
    ["getHTTPResponse", ["get", "http", "response"]],
    ["sha256", ["sha", "256"]],
    ["plain", ["plain"]],
    ["Café", ["café"]],
  ])("%s", (input, words) => expect(splitIdentifier(input)).toEqual(words));
});

describe("tokenize", () => {
  it("drops English stop words and stems what is left", () => {
    expect(tokenize("Converting the temperatures of cities")).toEqual(["convert", "temperatur", "citi"]);
    expect(stem("forecasting")).toBe(stem("forecasts"));
  });

  it("splits identifiers inside text", () => {
    expect(tokenize("call WeatherForecast_getDetailedForecast")).toEqual(["call", "weather", "forecast", "get", "detail", "forecast"]);
  });

  it("gives Chinese words, every bigram and every character, without stop words", () => {
    const terms = tokenize("汽车保养");
    expect(terms).toEqual(expect.arrayContaining(["汽车", "保养", "车保", "汽", "车", "保", "养"]));
    expect(chineseTerms("我的")).not.toContain("的");
  });

  it("handles mixed Chinese and English", () => {
    const terms = tokenize("查询WiFi信号强度");
    expect(terms).toEqual(expect.arrayContaining(["wi", "fi"]));
    expect(terms).toContain("信号");
    expect(terms).toContain("强度");
  });
});

describe("analyzeQuery", () => {
  it("weighs the query's own terms at 1, repeated terms a little more", () => {
    const terms = analyzeQuery("weather weather report");
    expect(terms.get("report")).toBe(1);
    expect(terms.get("weather")).toBeGreaterThan(1);
    expect(terms.get("weather")).toBeLessThan(1.5);
  });

  it("adds adjacent English pairs", () => {
    expect(analyzeQuery("solar eclipse").has("solar~eclips")).toBe(true);
  });

  it("translates Chinese words into English terms below full weight", () => {
    const terms = analyzeQuery("评估安全漏洞");
    expect(terms.get("vulner")).toBeGreaterThan(0);
    expect(terms.get("vulner")).toBeLessThan(1);
    expect(terms.get(stem("assessment"))).toBeGreaterThan(0);
  });

  it("does not read a one-character entry inside a longer word", () => {
    expect(analyzeQuery("火车时刻表").has("vehicl")).toBe(false);
    expect(analyzeQuery("火车时刻表").get("train")).toBeGreaterThan(0);
  });
});

describe("typo index", () => {
  it("measures edits with transpositions and stops past the cap", () => {
    expect(editDistance("forecast", "forcast", 2)).toBe(1);
    expect(editDistance("weather", "waether", 2)).toBe(1);
    expect(editDistance("abc", "xyz", 1)).toBe(2);
  });

  it("finds the nearest catalog words within a length-dependent distance", () => {
    const index = new FuzzyIndex(["temperature", "fahrenheit", "password", "passport", "cat"]);
    expect(index.nearest("temprature").terms).toEqual(["temperature"]);
    expect(index.nearest("farenheit").terms).toEqual(["fahrenheit"]);
    expect(index.nearest("pasword")).toEqual({ terms: ["password"], distance: 1 });
    expect(index.nearest("cta").terms).toEqual([]);
  });
});

describe("negotiateLang", () => {
  it.each([
    [undefined, "en"],
    ["zh-CN,zh;q=0.9,en;q=0.8", "zh"],
    ["en-US,en;q=0.9,zh;q=0.8", "en"],
    ["fr-FR,zh-TW;q=0.7,en;q=0.5", "zh"],
    ["fr-FR", "en"],
    ["zh;q=0, en", "en"],
    ["*", "en"],
  ])("%s -> %s", (header, lang) => expect(negotiateLang(header)).toBe(lang));
});
