import { describe, expect, it } from "vitest";
import { ndcgAt, qualityFigures, recallAt, reciprocalRank } from "./metrics";
import { ReferenceBm25, referenceTokens } from "./reference-bm25";

describe("bench metrics", () => {
  it("computes Recall@5, NDCG@10 and MRR with binary relevance", () => {
    expect(recallAt(["a", "x", "b", "y", "z", "c"], ["a", "b", "c"], 5)).toBeCloseTo(2 / 3);
    expect(ndcgAt(["a"], ["a"], 10)).toBe(1);
    expect(ndcgAt(["x", "a"], ["a"], 10)).toBeCloseTo(1 / Math.log2(3));
    // Ideal DCG over min(|gold|, 10) hits: two gold ids, one found at rank 1.
    expect(ndcgAt(["a", "x"], ["a", "b"], 10)).toBeCloseTo(1 / (1 + 1 / Math.log2(3)));
    expect(reciprocalRank(["x", "y", "a"], ["a"])).toBeCloseTo(1 / 3);
    expect(reciprocalRank(["x"], ["a"])).toBe(0);
    expect(qualityFigures([{ ranked: ["a"], gold: ["a"] }, { ranked: [], gold: ["a"] }])).toEqual({ queries: 2, recall5: 50, ndcg10: 50, mrr: 50 });
  });
});

describe("plain BM25 reference", () => {
  it("folds plurals, drops stop words and splits names, without stemming", () => {
    expect(referenceTokens("The cities of WeatherForecast_getData")).toEqual(["city", "weather", "forecast", "get", "data"]);
    expect(referenceTokens("forecasting")).toEqual(["forecasting"]);
  });

  it("ranks by BM25 and leaves out documents without a shared term", () => {
    const bm25 = new ReferenceBm25([
      { id: "w", name: "weather_forecast", description: "Daily weather forecast", provider: null, category: null, params: [{ name: "city" }] },
      { id: "t", name: "translate", description: "Translate text", provider: null, category: null, params: [] },
    ]);
    expect(bm25.rank("weather in my city", 10)).toEqual(["w"]);
  });
});
