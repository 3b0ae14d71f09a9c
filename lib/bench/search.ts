// npm run bench:search — Discover's ranking quality and latency, by the protocol of
// shared/catalog/README.md: the public catalog is imported into a fresh production server
// (`dist/server.mjs`, embedded database), every query goes through the real POST /api/v1/search
// (limit 10, the query's lang, `source` = its dataset so each source is ranked as a catalog of
// its own), and Recall@5 / Recall@10 / all-gold@10 / NDCG@10 / MRR are printed beside the README's
// plain BM25 reference computed here on the same data, and beside leave-one-source-out figures
// (each source ranked in process with settings fitted without it). Then p50/p95 of /search over
// HTTP on the larger source, the whole catalog and a synthetic catalog of 100,000 tools.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sendAdminCommand } from "../server/admin-channel";
import { openDatabase } from "../db/open";
import { runCommand } from "../cli/commands";
import { loadBenchSources, loadOpenApiSources, rankSource, readJsonl, sourceFigures, type BenchQuery, type SourceFigures } from "../search/evaluation";
import type { RankerSettings } from "../search/ranker";
import { fitSettings } from "../search/fit";
import { baseRankerSettings, defaultRankerSettings, withOverrides } from "../search/ranker";
import { ReferenceBm25, type ReferenceDoc } from "../search/reference-bm25";
import { median, percentile, startProductServer, statusField } from "./harness";
import { benchSearchImport } from "./search-import";

const CATALOG_DIR = path.resolve(process.env.CATALOG_DIR ?? path.join(process.cwd(), "../shared/catalog"));
/** The contract's 120 searches per minute are per account: the bench spreads its requests over accounts. */
const REQUESTS_PER_KEY = 110;
/**
 * Held-out goals (issue #47), against each source's plain-BM25 bar (the higher of the README's
 * figure and the one computed here): NDCG@10 and MRR never below it on any source, and the sources
 * but ACEBench at least bar + 4 NDCG@10 on their average; ACEBench kept at its issue-#14 figures.
 */
const KEPT: Record<string, number> = { "acebench-en": 92.1, "acebench-zh": 87.4 };
const MEAN_MARGIN = 4;
/** Tools in the synthetic catalog that measures /search at scale. */
const SYNTHETIC_TOOLS = Number(process.env.BENCH_SYNTHETIC_TOOLS ?? 100_000);
const SYNTHETIC_SOURCE = "synthetic-scale";
const ROUNDS = 3;

interface CatalogLine extends ReferenceDoc {
  source: string;
}

/** Runs an admin CLI command in the server: over its admin channel (embedded db) or on PostgreSQL directly. */
async function admin(dataDir: string, argv: string[]): Promise<unknown> {
  const url = process.env.DATABASE_URL;
  if (!url) return sendAdminCommand(dataDir, argv);
  const database = await openDatabase({ kind: "postgres", url, poolSize: 1 });
  try {
    return await runCommand(database.db, argv);
  } finally {
    await database.close();
  }
}

class KeyRing {
  private used = 0;
  private readonly keys: string[] = [];
  constructor(private readonly dataDir: string) {}

  async next(): Promise<string> {
    const i = Math.floor(this.used++ / REQUESTS_PER_KEY);
    while (this.keys.length <= i) {
      const account = (await admin(this.dataDir, ["accounts", "create", "--name", `bench-${this.keys.length + 1}`])) as { account_id: string };
      const key = (await admin(this.dataDir, ["keys", "create", "--account", account.account_id, "--name", "bench"])) as { api_key: string };
      this.keys.push(key.api_key);
    }
    return this.keys[i];
  }
}

async function timedSearch(url: string, key: string, body: Record<string, unknown>): Promise<{ ids: string[]; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${url}/api/v1/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { results?: { tool_id: string }[] };
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`POST /search answered ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
  return { ids: (json.results ?? []).map((r) => r.tool_id), ms };
}

function fmt(n: number, digits = 1): string {
  return n.toFixed(digits);
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** Resident memory of a process in MB (Linux). */
function rssMb(pid: number | undefined): number {
  return pid === undefined ? Number.NaN : statusField(pid, "VmRSS") / 1024;
}

/** A small seeded generator (mulberry32): the synthetic catalog is the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Writes and imports `count` tools made of the public catalog's English words (names of 2-4
 * words, descriptions of 12-30, 0-4 parameters), word frequencies as in the catalog: a catalog of
 * realistic term statistics at a size no public one has.
 */
async function importSyntheticCatalog(dataDir: string, catalog: CatalogLine[], count: number): Promise<{ importMs: number }> {
  const words = catalog
    .filter((t) => !/[\u3400-\u9fff]/.test(t.name + t.description))
    .flatMap((t) => `${t.name.replace(/[_.]/g, " ")} ${t.description}`.toLowerCase().match(/[a-z]{3,}/g) ?? []);
  const rand = random(14);
  const pick = () => words[Math.floor(rand() * words.length)];
  const phrase = (min: number, max: number) => Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, pick);
  const file = path.join(os.tmpdir(), `tollgate-synthetic-${process.pid}.jsonl`);
  const out = fs.createWriteStream(file);
  for (let i = 0; i < count; i++) {
    const line = {
      id: `${SYNTHETIC_SOURCE}:${i}`,
      name: phrase(2, 4).join("_"),
      description: `${phrase(12, 30).join(" ")}.`,
      provider: null,
      category: null,
      source: SYNTHETIC_SOURCE,
      lang: "en",
      params: Array.from({ length: Math.floor(rand() * 5) }, (_, j) => ({ name: `${phrase(1, 2).join("_")}_${j}`, type: "string", required: rand() < 0.5, description: phrase(4, 10).join(" ") })),
    };
    if (!out.write(`${JSON.stringify(line)}\n`)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((r) => out.end(() => r()));
  const started = performance.now();
  try {
    await admin(dataDir, ["providers", "import", "--file", file]);
  } finally {
    fs.rmSync(file, { force: true });
  }
  return { importMs: performance.now() - started };
}

async function main() {
  const toolsFile = path.join(CATALOG_DIR, "tools.jsonl");
  const catalog = readJsonl<CatalogLine>(toolsFile);
  const queries = readJsonl<BenchQuery>(path.join(CATALOG_DIR, "queries.jsonl"));
  const datasets = [...new Set(queries.map((q) => q.dataset))].sort();

  console.log(`bench:search — ${catalog.length} tools, ${queries.length} queries from ${CATALOG_DIR}`);
  // Held-out figures: each source scored with settings fitted on the other sources alone
  // (leave-one-source-out), in process; the goals are judged on these.
  const sources = loadBenchSources(CATALOG_DIR);
  const heldOut = new Map<string, SourceFigures>();
  const foldSettings = new Map<string, RankerSettings>();
  const fitStarted = performance.now();
  for (const held of sources) {
    const { settings } = fitSettings(
      sources.filter((s) => s !== held),
      baseRankerSettings,
    );
    foldSettings.set(held.name, settings);
    heldOut.set(held.name, sourceFigures(rankSource(held, settings)));
  }
  console.log(`leave-one-source-out fits took ${fmt((performance.now() - fitStarted) / 1000, 0)} s`);

  // The sources the catalog also ships as OpenAPI documents, imported as a user would: the same
  // queries and bar, in process, with the product's settings and with the fold's held-out ones.
  const imported = await loadOpenApiSources(CATALOG_DIR, sources);
  const importedRows = imported.flatMap((source) => {
    const base = sources.find((s) => source.name.startsWith(`${s.name} `))!;
    const line = (ranker: string, f: SourceFigures) => [`${source.name} (${source.tools.length} tools)`, ranker, String(f.queries), fmt(f.recall5), fmt(f.recall10), fmt(f.allGold10), fmt(f.ndcg10), fmt(f.mrr), `${f.ndcg10 >= source.reference.ndcg10 ? "+" : ""}${fmt(f.ndcg10 - source.reference.ndcg10)}`];
    return [
      line("JSONL, held out (LOSO)", heldOut.get(base.name)!),
      line("imported, in-sample", sourceFigures(rankSource(source, defaultRankerSettings))),
      line("imported, held out (LOSO)", sourceFigures(rankSource(source, foldSettings.get(base.name)!))),
      // What the operations' HTTP methods add (the JSONL tools have none).
      line("imported, held out, no method", sourceFigures(rankSource(source, withOverrides(foldSettings.get(base.name)!, { method: 0 })))),
    ];
  });
  console.log(`\nimported through providers import --openapi (ids mapped to the datasets' gold ids; BM25 bar as for the JSONL source)\n`);
  console.log(table(["source", "ranker", "queries", "Recall@5", "Recall@10", "all gold@10", "NDCG@10", "MRR", "vs bar"], importedRows));

  const server = await startProductServer({ SEED_DEMO: "false", ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}) });
  try {
    const importStarted = performance.now();
    await admin(server.dataDir, ["providers", "import", "--file", toolsFile]);
    console.log(`imported the catalog through the server's CLI in ${fmt((performance.now() - importStarted) / 1000)} s (database: ${process.env.DATABASE_URL ? "PostgreSQL" : "embedded PGlite"})`);
    const keys = new KeyRing(server.dataDir);
    // The first search builds the in-memory index: time it apart from the measured requests.
    const warmStarted = performance.now();
    for (const dataset of datasets) await timedSearch(server.url, await keys.next(), { query: "warm up", limit: 10, source: dataset });
    console.log(`first searches (index build) took ${fmt(performance.now() - warmStarted, 0)} ms\n`);

    const rows: string[][] = [];
    const verdicts: string[] = [];
    const heldMargins: number[] = [];
    let inProcessAgrees = true;
    for (const dataset of datasets) {
      const qs = queries.filter((q) => q.dataset === dataset);
      const docs = catalog.filter((t) => t.source === dataset);
      const reference = new ReferenceBm25(docs);
      const refFigures = sourceFigures(qs.map((q) => ({ ranked: reference.rank(q.query, 10), gold: q.gold })));
      const runs: { ranked: string[]; gold: string[] }[] = [];
      for (const q of qs) {
        const { ids } = await timedSearch(server.url, await keys.next(), { query: q.query, limit: 10, lang: q.lang, source: dataset });
        runs.push({ ranked: ids, gold: q.gold });
      }
      const ours = sourceFigures(runs);
      // The in-process evaluation must rank exactly as the server does, or its held-out figures mean nothing.
      const source = sources.find((s) => s.name === dataset);
      const local = source ? rankSource(source, defaultRankerSettings) : [];
      if (local.some((r, i) => r.ranked.join() !== runs[i]?.ranked.join())) inProcessAgrees = false;
      const held = heldOut.get(dataset);
      const row = (name: string, f: SourceFigures) => [
        `${dataset} (${docs.length} tools)`,
        name,
        String(f.queries),
        fmt(f.recall5),
        fmt(f.recall10),
        fmt(f.allGold10),
        fmt(f.ndcg10),
        fmt(f.mrr),
      ];
      rows.push(row("BM25 reference", refFigures), row("Tollgate /search (in-sample)", ours));
      if (held) rows.push(row("held out (LOSO)", held));
      if (held && source) {
        const bar = source.reference;
        const kept = KEPT[dataset];
        const margin = held.ndcg10 - bar.ndcg10;
        if (kept === undefined) heldMargins.push(margin);
        const goal = kept ?? bar.ndcg10;
        verdicts.push(
          `${dataset}: held-out NDCG@10 ${fmt(held.ndcg10, 2)} (BM25 bar ${fmt(bar.ndcg10)}, ${margin >= 0 ? "+" : ""}${fmt(margin)}) vs goal ${fmt(goal)} -> ${held.ndcg10 >= goal ? "met" : "NOT met"}; ` +
            `MRR ${fmt(held.mrr)} vs bar ${fmt(bar.mrr)} -> ${held.mrr >= bar.mrr && held.ndcg10 >= bar.ndcg10 ? "not below BM25" : "BELOW BM25"} (in-sample NDCG@10 ${fmt(ours.ndcg10, 2)})`,
        );
      }
    }
    console.log(table(["dataset", "ranker", "queries", "Recall@5", "Recall@10", "all gold@10", "NDCG@10", "MRR"], rows));
    console.log(`\nin-process ranking (used for the held-out rows) equals the server's: ${inProcessAgrees ? "yes" : "NO"}`);
    console.log(`${verdicts.join("\n")}`);
    const meanMargin = heldMargins.reduce((a, b) => a + b, 0) / Math.max(1, heldMargins.length);
    console.log(`mean held-out NDCG@10 margin over BM25 of the ${heldMargins.length} sources other than ACEBench: +${fmt(meanMargin, 2)} vs goal +${MEAN_MARGIN} -> ${meanMargin >= MEAN_MARGIN ? "met" : "NOT met"}`);

    // Latency: one request at a time over keep-alive, after a warm-up; the client's clock.
    const larger = datasets.map((d) => ({ d, n: catalog.filter((t) => t.source === d).length })).sort((a, b) => b.n - a.n)[0].d;
    const latencyQueries = queries.filter((q) => q.dataset === larger);
    for (const q of latencyQueries.slice(0, 50)) {
      await timedSearch(server.url, await keys.next(), { query: q.query, limit: 10, lang: q.lang, source: larger });
      await timedSearch(server.url, await keys.next(), { query: q.query, limit: 10, lang: q.lang });
    }
    // Three interleaved rounds, medians reported: this machine is shared, and one busy moment
    // should not decide the figure either way.
    // The scale catalog: imported after the quality run, so its words do not change their statistics.
    const rssBefore = rssMb(server.child.pid);
    const synthetic = await importSyntheticCatalog(server.dataDir, catalog, SYNTHETIC_TOOLS);
    const buildStarted = performance.now();
    await timedSearch(server.url, await keys.next(), { query: "warm up", limit: 10, source: SYNTHETIC_SOURCE });
    const buildMs = performance.now() - buildStarted;
    const rssAfter = rssMb(server.child.pid);
    console.log(
      `\nsynthetic catalog: ${SYNTHETIC_TOOLS} tools imported in ${fmt(synthetic.importMs / 1000)} s; first search (snapshot + index build) ${fmt(buildMs / 1000, 1)} s; ` +
        `server RSS ${fmt(rssBefore, 0)} MB before, ${fmt(rssAfter, 0)} MB after (+${fmt(rssAfter - rssBefore, 0)} MB for ${SYNTHETIC_TOOLS} more tools: snapshot, whole-catalog and per-source indexes)`,
    );
    for (const q of latencyQueries.slice(0, 50)) await timedSearch(server.url, await keys.next(), { query: q.query, limit: 10, lang: q.lang, source: SYNTHETIC_SOURCE });
    const scopes = [
      { label: `${larger} (source filter)`, source: larger as string | undefined, rounds: [] as number[][] },
      { label: "whole catalog (no filter)", source: undefined, rounds: [] as number[][] },
      { label: `synthetic ${SYNTHETIC_TOOLS} tools`, source: SYNTHETIC_SOURCE as string | undefined, rounds: [] as number[][] },
    ];
    for (let round = 0; round < ROUNDS; round++) {
      for (const scope of scopes) {
        const times: number[] = [];
        for (const q of latencyQueries) {
          const { ms } = await timedSearch(server.url, await keys.next(), { query: q.query, limit: 10, lang: q.lang, ...(scope.source && { source: scope.source }) });
          times.push(ms);
        }
        scope.rounds.push(times.sort((a, b) => a - b));
      }
    }
    const latencyRows = scopes.map((scope) => {
      const at = (p: number) => median(scope.rounds.map((times) => percentile(times, p)));
      return [
        scope.label,
        `${ROUNDS} x ${latencyQueries.length}`,
        fmt(at(50), 2),
        fmt(at(95), 2),
        fmt(at(99), 2),
        scope.rounds.map((times) => fmt(percentile(times, 95), 1)).join(" / "),
      ];
    });
    const p95Larger = median(scopes[0].rounds.map((times) => percentile(times, 95)));
    const p95Synthetic = median(scopes[2].rounds.map((times) => percentile(times, 95)));
    console.log(`\nPOST /api/v1/search latency over HTTP: sequential requests, limit 10, ${larger} queries; medians of ${ROUNDS} rounds\n`);
    console.log(table(["catalog", "requests", "p50 ms", "p95 ms", "p99 ms", "p95 per round"], latencyRows));
    console.log(`\np95 on ${larger}: ${fmt(p95Larger, 2)} ms vs goal <= 20 ms -> ${p95Larger <= 20 ? "met" : "NOT met"}`);
    console.log(`p95 on the synthetic ${SYNTHETIC_TOOLS}-tool catalog: ${fmt(p95Synthetic, 2)} ms vs goal <= 50 ms -> ${p95Synthetic <= 50 ? "met" : "NOT met"}`);
  } finally {
    await server.stop();
  }
  // Import at scale (issue 47): on a server of its own, so its RSS figures are the imports' alone.
  await benchSearchImport(CATALOG_DIR);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
