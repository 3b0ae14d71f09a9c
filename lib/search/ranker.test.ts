import { describe, expect, it } from "vitest";
import { SearchIndex, analyzeDocument, baseRankerSettings, defaultRankerSettings, withOverrides, type IndexDocument } from "./ranker";
import { costClass } from "./capability";

function doc(id: string, name: string, description: string, extra: Partial<IndexDocument["fields"]> = {}, successRate: number | null = null): IndexDocument {
  return { id, successRate, fields: { name: [name], description: [description], params: [], paramText: [], examples: [], category: [], provider: [], ...extra } };
}

const catalog = [
  doc("weather", "WeatherForecast_getDetailedForecast", "Provides a detailed weather forecast with temperature and humidity.", { params: ["city", "start_date"] }),
  doc("aqi", "CityAQI_retrieveData", "Retrieve air quality index data for cities.", { params: ["cities"] }),
  doc("convert", "unitConverter", "Converts lengths, masses and temperatures between units.", { paramText: ["Value to convert", "celsius", "fahrenheit"] }),
  doc("vuln", "Threat_Vulnerability_Assessment_Tool", "评估可能的安全威胁，并提供缓解措施的建议。", { params: ["asset_id", "vulnerability_id"] }),
  doc("translate", "document_translation", "翻译文档内容为目标语言。", {}),
  doc("wifi", "WiFi_Scanner", "Lists nearby wireless networks.", {}),
  doc("flaky", "weather_now", "Current weather conditions.", {}, 0.2),
  doc("steady", "weather_now", "Current weather conditions.", {}, 0.99),
];
const index = new SearchIndex(catalog.map(analyzeDocument));
const top = (query: string, limit = 3) => index.search(query, limit).map((r) => r.id);

describe("SearchIndex", () => {
  it("ranks by name, description and parameter text", () => {
    expect(top("What's the detailed forecast for Paris tomorrow?")[0]).toBe("weather");
    expect(top("check the air quality index in several cities")[0]).toBe("aqi");
    expect(top("turn 100 fahrenheit into celsius")[0]).toBe("convert");
  });

  it("reaches English names from a Chinese request through the glossary", () => {
    expect(top("帮我评估服务器的安全漏洞")[0]).toBe("vuln");
    expect(top("把这份文档翻译成法语")[0]).toBe("translate");
  });

  it("tolerates typos in words the catalog does not contain", () => {
    expect(top("air qualty indx")[0]).toBe("aqi");
    expect(top("detailed forcast")[0]).toBe("weather");
  });

  it("joins a compound the catalog writes in humps", () => {
    expect(top("scan for wifi")[0]).toBe("wifi");
  });

  it("leaves out documents that share nothing with the query", () => {
    expect(top("zzqx vvkk")).toEqual([]);
  });

  it("lets reliability order near-equal matches only", () => {
    expect(top("current weather conditions", 2)).toEqual(["steady", "flaky"]);
    const rates = new SearchIndex(
      [doc("exact", "soil_moisture_sensor", "Reads soil moisture.", {}, 0), doc("loose", "garden_helper", "Garden tips, including soil.", {}, 1)].map(analyzeDocument),
    );
    expect(rates.search("soil moisture sensor reading", 2).map((r) => r.id)).toEqual(["exact", "loose"]);
  });

  it("bounds the reliability boost to a small fraction of the score", () => {
    expect(defaultRankerSettings.reliability).toBeLessThanOrEqual(0.05);
    const [a, b] = index.search("current weather conditions", 2);
    expect(a.score / b.score).toBeLessThan(1 + 2.2 * defaultRankerSettings.reliability);
  });

  it("filters candidates and honours the limit", () => {
    expect(index.search("weather", 10, (i) => catalog[i].id !== "weather").map((r) => r.id)).not.toContain("weather");
    expect(index.search("weather", 1)).toHaveLength(1);
  });
});

describe("tool chains, feedback and match explanations", () => {
  const withInputs = (d: IndexDocument, inputs: string[]): IndexDocument => ({ ...d, inputs });
  const chainCatalog = [
    withInputs(doc("meeting", "QueryMeeting", "Lists the meetings of a user on a date.", { params: ["token", "date"] }), ["token", "date"]),
    withInputs(doc("login", "GetUserToken", "Signs a user in with a username and password.", { params: ["username", "password"] }), ["username", "password"]),
    withInputs(doc("password", "ModifyPassword", "Changes a password; needs the token.", { params: ["token", "new_password"] }), ["token", "new_password"]),
    doc("weather", "weather_now", "Current weather conditions.", {}),
  ];

  it("ranks the producer of a well-ranked tool's required input, and says why", () => {
    const chained = new SearchIndex(chainCatalog.map(analyzeDocument), withOverrides(baseRankerSettings, { chain: 0.8 }));
    const ranked = chained.search("which meetings do I have on Friday", 3);
    expect(ranked[0].id).toBe("meeting");
    // GetUserToken shares no word with the request: it is there because QueryMeeting needs a token.
    expect(ranked.map((r) => r.id)).toContain("login");
    expect(ranked.find((r) => r.id === "login")?.neededBy).toBe("meeting");
    // A tool that itself needs the token does not produce it.
    expect(ranked.find((r) => r.id === "password")?.neededBy).toBeUndefined();
    const off = new SearchIndex(chainCatalog.map(analyzeDocument), withOverrides(baseRankerSettings, { chain: 0 }));
    expect(off.search("which meetings do I have on Friday", 3).map((r) => r.id)).not.toContain("login");
  });

  it("explains a match per field, with expansions apart", () => {
    const explained = index.explain("detailed forcast for paris", catalog.findIndex((d) => d.id === "weather"));
    expect(explained.fields.name).toEqual(expect.arrayContaining(["detailed"]));
    expect(explained.fields.description).toEqual(expect.arrayContaining(["detailed"]));
    // "forcast" is a typo: the catalog word it reached is listed as an expansion, spelled as the catalog does.
    expect(explained.expanded).toContain("forecast");
    expect(explained.needed_by).toBeUndefined();
    // A Chinese request shows its own words, not the character bigrams the index also keeps.
    // (全威 is a bigram of both the request and the description, across the words 安全 | 威胁.)
    const zh = index.explain("评估安全威胁和漏洞", catalog.findIndex((d) => d.id === "vuln"));
    const shown = Object.values(zh.fields).flat();
    expect(shown).toEqual(expect.arrayContaining(["评估", "安全", "威胁"]));
    expect(shown).not.toContain("全威");
    expect(zh.expanded).toContain("vulnerability");
  });

  it("adds feedback terms from the best first-pass tools", () => {
    const docs = [
      doc("a", "image_classifier", "Classifies images into labels with a vision transformer.", {}),
      doc("b", "vit_tagger", "Vision transformer tagger.", {}),
      doc("c", "text_summarizer", "Summarizes long text.", {}),
    ];
    const feedback = new SearchIndex(docs.map(analyzeDocument), withOverrides(baseRankerSettings, { "prf.weight": 0.5, "prf.docs": 1 }));
    const plain = new SearchIndex(docs.map(analyzeDocument), withOverrides(baseRankerSettings, { "prf.weight": 0 }));
    // "vit_tagger" shares no word with the request; feedback from the first hit brings it in.
    expect(plain.search("classify images", 3).map((r) => r.id)).toEqual(["a"]);
    expect(feedback.search("classify images", 3).map((r) => r.id)).toEqual(["a", "b"]);
  });

  it("counts a parameter for coverage only when the schema documents it", () => {
    const settings = withOverrides(baseRankerSettings, { "fieldWeights.params": 0, "coverage.params": 1.5, chain: 0, "prf.weight": 0 });
    const bare = doc("bare", "alpha_reader", "Reads input.", { params: ["text"] });
    const documented = { ...doc("documented", "alpha_reader", "Reads input.", { params: ["text"] }), documentedParams: ["text"] };
    const none = doc("none", "alpha_reader", "Reads input.", {});
    const scores = (docs: IndexDocument[]) => Object.fromEntries(new SearchIndex(docs.map(analyzeDocument), settings).search("alpha reader for text input", 3).map((r) => [r.id, r.score]));
    // A bare code argument (`text`) earns nothing over a tool without it...
    const a = scores([bare, none]);
    expect(a.bare).toBeCloseTo(a.none, 9);
    // ...a documented one does.
    const b = scores([documented, none]);
    expect(b.documented).toBeGreaterThan(b.none * 1.1);
  });

  it("reads a short identifier word as the abbreviation of a request word it begins", () => {
    const docs = [
      doc("div", "div", "Returns the integer value of a over b.", { params: ["a", "b"] }),
      doc("avg", "average_speed", "Average speed of a trip.", { params: ["distance", "hours"] }),
    ];
    const on = new SearchIndex(docs.map(analyzeDocument), withOverrides(baseRankerSettings, { abbreviation: 1 }));
    const off = new SearchIndex(docs.map(analyzeDocument), withOverrides(baseRankerSettings, { abbreviation: 0 }));
    expect(on.search("what is 90 divided by 9", 2).map((r) => r.id)).toEqual(["div"]);
    expect(off.search("what is 90 divided by 9", 2)).toEqual([]);
    // "average" is running text in the catalog: no prefix of it is taken for an abbreviation.
    expect(on.search("averaging", 2).map((r) => r.id)).not.toContain("div");
  });

  it("builds a large index in slices that let other work run, ranking exactly as a build at once", async () => {
    const words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "zeta", "lambda"];
    const docs = Array.from({ length: 6_000 }, (_, i) =>
      doc(`t${i}`, `${words[i % 10]}_${words[(i * 7) % 10]}_${i}`, `${words[(i * 3) % 10]} tool number ${i} for ${words[(i * 11) % 10]} work`),
    ).map(analyzeDocument);
    let ticks = 0;
    let building = true;
    const counter = (async () => {
      while (building) {
        ticks += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const sliced = await SearchIndex.build(docs);
    building = false;
    await counter;
    // Other work ran between the slices (a build at once would leave one tick at most).
    expect(ticks).toBeGreaterThan(3);
    const atOnce = new SearchIndex(docs);
    for (const q of ["alpha gamma work", "theta tool 42", "zeta_omega"]) expect(sliced.search(q, 10)).toEqual(atOnce.search(q, 10));
  });

  it("rejects an unknown setting path", () => {
    expect(() => withOverrides(defaultRankerSettings, { "coverage.nope": 1 })).toThrow(/Unknown ranker setting/);
  });
});

describe("capability helpers", () => {
  it("classes costs", () => {
    expect(costClass({ billingRule: null })).toBe("free");
    expect(costClass({ billingRule: { unit: "free", amount_credits: 0 } })).toBe("free");
    expect(costClass({ billingRule: { unit: "call", amount_credits: 0.5 } })).toBe("low");
    expect(costClass({ billingRule: { unit: "call", amount_credits: 5 } })).toBe("medium");
    expect(costClass({ billingRule: { unit: "call", amount_credits: 50 } })).toBe("high");
    expect(costClass({ billingRule: { unit: "per_unit", amount_credits: 0.01, quantity_from: "param_length", quantity_param: "text" } })).toBe("variable");
  });
});
