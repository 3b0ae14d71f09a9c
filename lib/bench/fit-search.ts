// npm run fit:search — fits the ranker's tunable settings on every source of the public catalog
// (lib/search/fit.ts) and writes them to lib/search/fitted-settings.json, the product's defaults.
// The held-out figures of the same procedure (each source scored with settings fitted without
// it) are printed by `npm run bench:search`.
import fs from "node:fs";
import path from "node:path";
import { loadBenchSources } from "../search/evaluation";
import { fitSettings } from "../search/fit";
import { baseRankerSettings } from "../search/ranker";

const CATALOG_DIR = path.resolve(process.env.CATALOG_DIR ?? path.join(process.cwd(), "../shared/catalog"));
const OUT = path.join(import.meta.dirname, "../search/fitted-settings.json");

const sources = loadBenchSources(CATALOG_DIR);
console.log(`fit:search — ${sources.map((s) => `${s.name} (${s.queries.length} queries)`).join(", ")}`);
const { values, score } = fitSettings(sources, baseRankerSettings, { log: console.log });
fs.writeFileSync(OUT, `${JSON.stringify(values, null, 2)}\n`);
console.log(`objective (worst source's margin over BM25, the lower of NDCG@10's and MRR's, + the mean margin, fitting sample) ${score.toFixed(2)}; wrote ${path.relative(process.cwd(), OUT)}`);
