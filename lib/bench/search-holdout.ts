// npm run bench:search:holdout — only the held-out step of `bench:search`: for each source of the
// public catalog, `fitSettings` on the other sources from `baseRankerSettings`, then that source
// ranked with the result; NDCG@10 and MRR against each source's plain-BM25 bar, and the mean
// NDCG@10 margin of the sources other than ACEBench (issue 47's goals). In process, no server.
// HOLDOUT_CACHE=<file> keeps the fits' rankings between runs, keyed by the ranker's code and the
// catalog: a run that changes only the fit re-uses what the last one ranked.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { loadBenchSources, loadOpenApiSources, rankSource, sourceFigures, type BenchSource } from "../search/evaluation";
import { fitCache, fitSettings, type SampleFigures } from "../search/fit";
import { baseRankerSettings, defaultRankerSettings, withOverrides, type RankerSettings } from "../search/ranker";

const CATALOG_DIR = path.resolve(process.env.CATALOG_DIR ?? path.join(process.cwd(), "../shared/catalog"));
const CACHE = process.env.HOLDOUT_CACHE;
const ONLY = process.env.HOLDOUT_ONLY?.split(",");

/** What decides a ranking: the search code (not the fit) and the catalog. */
function codeKey(): string {
  const hash = crypto.createHash("sha256");
  const dirs = [path.join(import.meta.dirname, "../search"), path.join(import.meta.dirname, "../catalog")];
  const walk = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  const files = dirs.flatMap(walk);
  for (const file of files.filter((f) => /\.(ts|json)$/.test(f) && !/\.test\.ts$|[/\\]fit\.ts$/.test(f)).sort()) hash.update(file).update(fs.readFileSync(file));
  for (const file of ["tools.jsonl", "queries.jsonl", "README.md"]) hash.update(fs.readFileSync(path.join(CATALOG_DIR, file)));
  return hash.digest("hex");
}

const sources = loadBenchSources(CATALOG_DIR);
const key = CACHE ? codeKey() : "";
interface HeldOut extends SampleFigures {
  recall5: number;
  recall10: number;
  allGold10: number;
}
const full = new Map<string, Map<string, HeldOut>>();
if (CACHE && fs.existsSync(CACHE)) {
  const stored = JSON.parse(fs.readFileSync(CACHE, "utf8")) as { key: string; sample: Record<string, [string, SampleFigures][]>; full: Record<string, [string, HeldOut][]> };
  if (stored.key === key) {
    for (const s of sources) for (const [k, v] of stored.sample[s.name] ?? []) fitCache(s).set(k, v);
    for (const [name, entries] of Object.entries(stored.full)) full.set(name, new Map(entries));
  }
}
function save() {
  if (!CACHE) return;
  const sample = Object.fromEntries(sources.map((s) => [s.name, [...fitCache(s)]]));
  fs.writeFileSync(CACHE, JSON.stringify({ key, sample, full: Object.fromEntries([...full].map(([n, m]) => [n, [...m]])) }));
}

function heldOutFigures(source: BenchSource, settings: typeof baseRankerSettings): HeldOut {
  let known = full.get(source.name);
  if (!known) full.set(source.name, (known = new Map()));
  const k = JSON.stringify(settings);
  let f = known.get(k);
  if (!f || f.allGold10 === undefined) {
    const { ndcg10, mrr, recall5, recall10, allGold10 } = sourceFigures(rankSource(source, settings));
    known.set(k, (f = { ndcg10, mrr, recall5, recall10, allGold10 }));
  }
  return f;
}

const sign = (n: number) => `${n >= 0 ? "+" : ""}${n.toFixed(2)}`;
console.log(`held out: ${sources.length} sources, each ranked with the settings fitted on the others from baseRankerSettings`);
const started = performance.now();
const rows: string[] = [];
const foldSettings = new Map<string, RankerSettings>();
const nonAce: number[] = [];
let worst = Infinity;
for (const held of sources) {
  if (ONLY && !ONLY.includes(held.name)) continue;
  const foldStarted = performance.now();
  const { values, settings } = fitSettings(
    sources.filter((s) => s !== held),
    baseRankerSettings,
  );
  foldSettings.set(held.name, settings);
  const f = heldOutFigures(held, settings);
  const dn = f.ndcg10 - held.reference.ndcg10;
  const dm = f.mrr - held.reference.mrr;
  if (!held.name.startsWith("acebench")) nonAce.push(dn);
  worst = Math.min(worst, dn, dm);
  const row = `${held.name.padEnd(28)} NDCG@10 ${f.ndcg10.toFixed(1)} (bar ${held.reference.ndcg10.toFixed(1)}) ${sign(dn).padStart(6)}   Recall@5 ${f.recall5.toFixed(1)} (BM25 ${sourceFigures(held.queries.map((q, i) => ({ ranked: held.reference.ranked[i], gold: q.gold }))).recall5.toFixed(1)})  Recall@10 ${f.recall10.toFixed(1)}  all gold@10 ${f.allGold10.toFixed(1)}   MRR ${f.mrr.toFixed(1)} (bar ${held.reference.mrr.toFixed(1)}) ${sign(dm).padStart(6)}`;
  rows.push(row);
  console.log(`${row}   [${((performance.now() - foldStarted) / 1000).toFixed(0)} s] ${JSON.stringify(values)}`);
  save();
}
console.log(`\n${rows.join("\n")}`);
console.log(`mean NDCG@10 margin of the ${nonAce.length} sources other than ACEBench ${sign(nonAce.reduce((a, b) => a + b, 0) / Math.max(1, nonAce.length))}; worst margin ${sign(worst)}; ${((performance.now() - started) / 1000).toFixed(0)} s`);

// The sources the catalog also ships as OpenAPI documents, imported as a user would, with the
// product's settings and with the fold's held-out ones (as `bench:search` prints them).
for (const source of await loadOpenApiSources(CATALOG_DIR, sources)) {
  const base = sources.find((s) => source.name.startsWith(`${s.name} `))!;
  const settings = foldSettings.get(base.name);
  if (!settings) continue;
  const line = (ranker: string, s: RankerSettings) => {
    const f = sourceFigures(rankSource(source, s));
    return `${source.name.padEnd(28)} ${ranker.padEnd(30)} NDCG@10 ${f.ndcg10.toFixed(1)} ${sign(f.ndcg10 - source.reference.ndcg10).padStart(6)}   Recall@5 ${f.recall5.toFixed(1)}  Recall@10 ${f.recall10.toFixed(1)}  all gold@10 ${f.allGold10.toFixed(1)}   MRR ${f.mrr.toFixed(1)} ${sign(f.mrr - source.reference.mrr).padStart(6)}`;
  };
  console.log(line("imported, in-sample", defaultRankerSettings));
  console.log(line("imported, held out", settings));
  console.log(line("imported, held out, no method", withOverrides(settings, { method: 0 })));
}
