import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadBenchSources } from "./evaluation";
import { margins } from "./fit";
import { baseRankerSettings } from "./ranker";

// A catalog of one source: one request every ranker answers first, one no ranker can (its words
// are in no tool). Plain BM25 and the ranker then both score 50 on NDCG@10 and on MRR.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-fit-"));
const tool = (id: string, name: string, description: string) => JSON.stringify({ id: `tiny:${id}`, name, description, provider: null, category: null, source: "tiny", lang: "en", params: [] });
fs.writeFileSync(path.join(dir, "tools.jsonl"), [tool("weather", "get_weather", "Current weather for a city."), tool("stock", "get_stock_price", "Latest price of a stock ticker.")].join("\n"));
const query = (qid: string, text: string, gold: string) => JSON.stringify({ qid: `tiny:${qid}`, dataset: "tiny", lang: "en", query: text, gold: [`tiny:${gold}`] });
fs.writeFileSync(path.join(dir, "queries.jsonl"), [query("1", "what is the weather in Paris", "weather"), query("2", "zzyzx qwerty", "stock")].join("\n"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("fit margins", () => {
  it("is the lower of a source's NDCG@10 and MRR margins over its BM25 bar", () => {
    // The README states a higher MRR bar than the one computed here: MRR is 30 under it, NDCG@10 on its bar.
    fs.writeFileSync(path.join(dir, "README.md"), "Reference figures of plain BM25 (NDCG@10 / Recall@5 / MRR): `tiny` 10.0 / 10.0 / 80.0.\n");
    const [source] = loadBenchSources(dir);
    expect(source.reference.ndcg10).toBeCloseTo(50);
    expect(source.reference.mrr).toBeCloseTo(80);
    expect(margins([source], baseRankerSettings)[0]).toBeCloseTo(-30);
  });

  it("is the NDCG@10 margin when MRR is not the lower", () => {
    fs.writeFileSync(path.join(dir, "README.md"), "Reference figures of plain BM25 (NDCG@10 / Recall@5 / MRR): `tiny` 60.0 / 10.0 / 10.0.\n");
    const [source] = loadBenchSources(dir);
    expect(margins([source], baseRankerSettings)[0]).toBeCloseTo(-10);
  });
});
