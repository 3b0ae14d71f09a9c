// Retrieval metrics of the search bench (shared/catalog/README.md): binary relevance, per query.

/** |top-k ∩ gold| / |gold|. */
export function recallAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  if (gold.length === 0) return 0;
  const wanted = new Set(gold);
  let hits = 0;
  for (const id of ranked.slice(0, k)) if (wanted.has(id)) hits += 1;
  return hits / gold.length;
}

/** NDCG@k with the ideal DCG over min(|gold|, k) hits. */
export function ndcgAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  const wanted = new Set(gold);
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (wanted.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(gold.length, k); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** 1 / rank of the first gold id, 0 when none is returned. */
export function reciprocalRank(ranked: readonly string[], gold: readonly string[]): number {
  const wanted = new Set(gold);
  const i = ranked.findIndex((id) => wanted.has(id));
  return i < 0 ? 0 : 1 / (i + 1);
}

export interface QualityFigures {
  queries: number;
  recall5: number;
  ndcg10: number;
  mrr: number;
}

/** Averages the three metrics over queries, as percentages. */
export function qualityFigures(runs: readonly { ranked: readonly string[]; gold: readonly string[] }[]): QualityFigures {
  let r = 0;
  let n = 0;
  let m = 0;
  for (const run of runs) {
    r += recallAt(run.ranked, run.gold, 5);
    n += ndcgAt(run.ranked, run.gold, 10);
    m += reciprocalRank(run.ranked, run.gold);
  }
  const count = runs.length || 1;
  return { queries: runs.length, recall5: (100 * r) / count, ndcg10: (100 * n) / count, mrr: (100 * m) / count };
}
