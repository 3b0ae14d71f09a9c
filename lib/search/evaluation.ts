// Ranking quality in process, by the protocol of shared/catalog/README.md: each source is ranked
// as a catalog of its own, exactly as `POST /search` with `source` ranks it (same conversion of
// the JSONL, same documents, same index), so settings can be compared, fitted and held out
// without a server. `npm run bench:search` checks that its in-process figures equal the HTTP ones.
import fs from "node:fs";
import path from "node:path";
import { manifestFromToolsJsonl } from "../catalog/acebench";
import { manifestFromOpenApi } from "../catalog/openapi/convert";
import { restPathId, toolAlpacaFunctionName } from "../catalog/openapi/ids";
import type { Manifest } from "../catalog/manifest";
import { indexDocument, type CatalogTool } from "./catalog-index";
import { qualityFigures, recallAt, type QualityFigures } from "./metrics";
import { SearchIndex, analyzeDocument, indexShape, type AnalyzedDocument, type RankerSettings } from "./ranker";
import { ReferenceBm25, type ReferenceDoc } from "./reference-bm25";

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
  /**
   * What plain BM25 scores on this source, the bar to beat: the higher of the catalog README's
   * stated figures and the README's BM25 computed here (`reference-bm25.ts`), which differ by
   * ties and tokenising on the small sources.
   */
  reference: {
    ndcg10: number;
    mrr: number;
    /** The computed BM25's top 10 of each query, in `queries` order (a fit compares on its sample). */
    ranked: string[][];
  };
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
        httpPath: t.execution && "path" in t.execution && typeof t.execution.path === "string" ? t.execution.path : null,
        httpMethod: t.execution && "method" in t.execution && typeof t.execution.method === "string" ? t.execution.method : null,
        connection: null,
        regions: t.regions ?? p.regions ?? null,
      }),
    ),
  );
}

/**
 * The plain-BM25 figures a catalog's README states, by source: "`toolalpaca` 81.3 / 87.8 / 78.9"
 * (NDCG@10 / Recall@5 / MRR), or "`acebench-zh` 81.1 (segmenter) or 83.4 (bigrams)" (NDCG@10 only,
 * the higher kept).
 */
export function readmeReferences(readme: string): Map<string, { ndcg10: number; mrr?: number }> {
  const out = new Map<string, { ndcg10: number; mrr?: number }>();
  const section = /Reference figures of plain BM25[^\n]*/.exec(readme)?.[0] ?? "";
  const n = String.raw`(\d+(?:\.\d+)?)`;
  for (const m of section.matchAll(new RegExp(String.raw`\x60([\w.-]+)\x60 ${n}(?: / ${n} / ${n}| \([^)]*\) or ${n})`, "g"))) {
    out.set(m[1], { ndcg10: Math.max(Number(m[2]), Number(m[5] ?? 0)), ...(m[4] !== undefined && { mrr: Number(m[4]) }) });
  }
  return out;
}

/** Every source of a catalog directory (`tools.jsonl`, `queries.jsonl`), tools in id order as the snapshot keeps them. */
export function loadBenchSources(catalogDir: string): BenchSource[] {
  const lines = readJsonl<ReferenceDoc & { source: string }>(path.join(catalogDir, "tools.jsonl"));
  const tools = catalogToolsFromManifest(manifestFromToolsJsonl(fs.readFileSync(path.join(catalogDir, "tools.jsonl"), "utf8")));
  const queries = readJsonl<BenchQuery>(path.join(catalogDir, "queries.jsonl"));
  const readmeFile = path.join(catalogDir, "README.md");
  const stated = readmeReferences(fs.existsSync(readmeFile) ? fs.readFileSync(readmeFile, "utf8") : "");
  const names = [...new Set(queries.map((q) => q.dataset))].sort();
  return names.map((name) => {
    // The snapshot orders tools by id (text order), and ties break by that order.
    const own = tools.filter((t) => t.source === name).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const ownQueries = queries.filter((q) => q.dataset === name);
    // The reference ranks in the file's order, as the README's figures were computed.
    const bm25 = new ReferenceBm25(lines.filter((t) => t.source === name));
    const ranked = ownQueries.map((q) => bm25.rank(q.query, 10));
    const computed = sourceFigures(ownQueries.map((q, i) => ({ ranked: ranked[i], gold: q.gold })));
    const readme = stated.get(name);
    const reference = { ndcg10: Math.max(computed.ndcg10, readme?.ndcg10 ?? 0), mrr: Math.max(computed.mrr, readme?.mrr ?? 0), ranked };
    return { name, tools: own, analyzed: own.map((t) => analyzeDocument(indexDocument(t))), queries: ownQueries, reference };
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

/** Each source's indexes by shape: a fit tries many query-time values over the same postings. */
const builtIndexes = new WeakMap<BenchSource, Map<string, SearchIndex>>();

function indexFor(source: BenchSource, settings: RankerSettings): SearchIndex {
  let byShape = builtIndexes.get(source);
  if (!byShape) builtIndexes.set(source, (byShape = new Map()));
  const shape = indexShape(settings);
  let index = byShape.get(shape);
  if (!index) {
    // A handful of shapes at a time: a fit moves one setting at a time.
    if (byShape.size >= 8) byShape.delete(byShape.keys().next().value!);
    byShape.set(shape, (index = new SearchIndex(source.analyzed, settings)));
  }
  return index.withSettings(settings);
}

/** Top-10 ids of every query of a source under `settings`. */
export function rankSource(source: BenchSource, settings: RankerSettings, queries: readonly BenchQuery[] = source.queries): Ranking[] {
  const index = indexFor(source, settings);
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

/**
 * The sources the catalog also ships as OpenAPI documents (`openapi/<source>.json`, or one
 * document per API in `openapi/<source>/`), imported as a user would (`providers import
 * --openapi`) and ranked against the same queries and bar: the catalog's gold ids name operations
 * their own way (`<source>:get.movie.movie_id.credits`, `toolalpaca:<api>.<function>`), so each
 * imported tool takes the id its dataset gives the same operation.
 */
export async function loadOpenApiSources(catalogDir: string, jsonlSources: readonly BenchSource[]): Promise<BenchSource[]> {
  const dir = path.join(catalogDir, "openapi");
  const out: BenchSource[] = [];
  for (const source of jsonlSources) {
    const single = path.join(dir, `${source.name}.json`);
    const folder = path.join(dir, source.name);
    const documents = fs.existsSync(single)
      ? [{ file: single, api: undefined }]
      : fs.existsSync(folder)
        ? fs.readdirSync(folder).filter((f) => f.endsWith(".json")).sort().map((f) => ({ file: path.join(folder, f), api: f.replace(/\.json$/, "") }))
        : [];
    if (documents.length === 0) continue;
    const tools: CatalogTool[] = [];
    for (const { file, api } of documents) {
      const { manifest } = await manifestFromOpenApi(JSON.parse(fs.readFileSync(file, "utf8")), { origin: file, providerId: api ?? source.name, source: source.name });
      for (const tool of catalogToolsFromManifest(manifest)) {
        const execution = manifest.providers.flatMap((p) => p.tools).find((t) => t.id === tool.id)?.execution as { method: string; path: string; operation_id?: string };
        const id = api === undefined ? `${source.name}:${restPathId(execution.method, execution.path)}` : `${source.name}:${api}.${toolAlpacaFunctionName({ method: execution.method, path: execution.path, operation_id: execution.operation_id })}`;
        tools.push({ ...tool, id });
      }
    }
    tools.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    out.push({ ...source, name: `${source.name} (OpenAPI)`, tools, analyzed: tools.map((t) => analyzeDocument(indexDocument(t))) });
  }
  return out;
}
