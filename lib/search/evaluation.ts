// Ranking quality in process, by the protocol of shared/catalog/README.md: each source is ranked
// as a catalog of its own, exactly as `POST /search` with `source` ranks it (same conversion of
// the JSONL, same documents, same index), so settings can be compared, fitted and held out
// without a server. `npm run bench:search` checks that its in-process figures equal the HTTP ones.
import fs from "node:fs";
import path from "node:path";
import { manifestFromToolsJsonl } from "../catalog/acebench";
import type { Manifest } from "../catalog/manifest";
import { indexDocument, type CatalogTool } from "./catalog-index";
import { qualityFigures, recallAt, type QualityFigures } from "./metrics";
import { SearchIndex, analyzeDocument, type AnalyzedDocument, type RankerSettings } from "./ranker";

export interface BenchQuery {
  qid: string;
  dataset: string;
  lang: "en" | "zh";
  query: string;
  gold: string[];
}

export interface BenchSource {
  name: string;
  tools: CatalogTool[];
  /** Tokenised once; every settings trial builds its index from these. */
  analyzed: AnalyzedDocument[];
  queries: BenchQuery[];
}

/** One JSON value a line; blank lines skipped. */
export function readJsonl<T>(file: string): T[] {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as T);
}

/** The tools of a converted manifest as the catalog snapshot holds them after an import. */
export function catalogToolsFromManifest(manifest: Manifest): CatalogTool[] {
  const updatedAt = new Date(0);
  return manifest.providers.flatMap((p) =>
    p.tools.map(
      (t): CatalogTool => ({
        id: t.id,
        name: t.name,
        description: t.description,
        lang: t.lang === "zh" ? "zh" : "en",
        i18n: t.i18n ?? {},
        category: t.category ?? null,
        params: t.params,
        oneOfRequired: t.one_of_required ?? null,
        examples: t.examples ?? null,
        expectedCost: t.expected_cost ?? null,
        billingRule: t.billing_rule ?? null,
        successRate: t.stats?.success_rate ?? null,
        avgExecutionTimeMs: t.stats?.avg_execution_time_ms ?? null,
        source: t.source ?? p.source ?? null,
        updatedAt,
        providerId: p.id,
        providerName: p.name,
        providerI18n: p.i18n ?? {},
      }),
    ),
  );
}

/** Every source of a catalog directory (`tools.jsonl`, `queries.jsonl`), tools in id order as the snapshot keeps them. */
export function loadBenchSources(catalogDir: string): BenchSource[] {
  const tools = catalogToolsFromManifest(manifestFromToolsJsonl(fs.readFileSync(path.join(catalogDir, "tools.jsonl"), "utf8")));
  const queries = readJsonl<BenchQuery>(path.join(catalogDir, "queries.jsonl"));
  const names = [...new Set(queries.map((q) => q.dataset))].sort();
  return names.map((name) => {
    // The snapshot orders tools by id (text order), and ties break by that order.
    const own = tools.filter((t) => t.source === name).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { name, tools: own, analyzed: own.map((t) => analyzeDocument(indexDocument(t))), queries: queries.filter((q) => q.dataset === name) };
  });
}

export interface SourceFigures extends QualityFigures {
  /** Recall@10 (share of gold tools in the top 10). */
  recall10: number;
  /** Share of queries with every gold tool in the top 10. */
  allGold10: number;
}

export interface Ranking {
  qid: string;
  ranked: string[];
  gold: string[];
}

/** Top-10 ids of every query of a source under `settings`. */
export function rankSource(source: BenchSource, settings: RankerSettings, queries: readonly BenchQuery[] = source.queries): Ranking[] {
  const index = new SearchIndex(source.analyzed, settings);
  return queries.map((q) => ({ qid: q.qid, ranked: index.search(q.query, 10).map((r) => r.id), gold: q.gold }));
}

export function sourceFigures(runs: readonly { ranked: readonly string[]; gold: readonly string[] }[]): SourceFigures {
  const count = runs.length || 1;
  let r10 = 0;
  let all = 0;
  for (const run of runs) {
    const r = recallAt(run.ranked, run.gold, 10);
    r10 += r;
    if (r === 1) all += 1;
  }
  return { ...qualityFigures(runs), recall10: (100 * r10) / count, allGold10: (100 * all) / count };
}
