// The in-process ranking index: BM25F over the fields of a tool, a coverage re-rank of the best
// candidates, query expansion (glossary, typo tolerance) and a bounded reliability boost. Pure
// and synchronous: it knows nothing about the database (`catalog-index.ts` feeds it).
import { analyzeQuery, defaultExpansionWeights, termPairs, type ExpansionWeights } from "./expand";
import { FuzzyIndex } from "./fuzzy";
import { latinWords, stem, tokenize } from "./tokenize";

export const searchFields = ["name", "description", "params", "paramText", "examples", "category", "provider"] as const;
export type SearchField = (typeof searchFields)[number];

/** One tool as the ranker sees it: the texts of each field (every language it has), its reliability. */
export interface IndexDocument {
  id: string;
  fields: Record<SearchField, readonly string[]>;
  /** Historical success rate 0..1, or null when unknown (treated as neutral). */
  successRate: number | null;
}

export interface RankerSettings {
  /** BM25 term-frequency saturation. */
  k1: number;
  fieldWeights: Record<SearchField, number>;
  /** Length normalisation per field (BM25's b). */
  fieldB: Record<SearchField, number>;
  /**
   * Coverage re-rank: a candidate's score is multiplied by 1 + Σ weight × (idf-weighted share of
   * that part of the tool found in the query). Queries are long requests and tools are short:
   * a tool whose own words the request mostly uses is a better answer than one that shares a
   * single rare word with it.
   */
  coverage: { name: number; description: number; params: number };
  /** How many BM25F candidates the coverage re-rank looks at. */
  rerankDepth: number;
  expansion: ExpansionWeights;
  /** Weight of a catalog term reached through a typo correction (edit distance 1; 2 counts 70%). */
  fuzzy: number;
  /**
   * Reliability boost: ± this fraction of the score, from success_rate 0 (−) to 1 (+), neutral
   * when unknown. It reorders only candidates whose relevance differs by less than about twice
   * this fraction; relevance always decides otherwise.
   */
  reliability: number;
}

export const defaultRankerSettings: RankerSettings = {
  k1: 1.2,
  fieldWeights: { name: 3, description: 1.5, params: 1, paramText: 0.8, examples: 0.5, category: 1, provider: 1 },
  fieldB: { name: 0.5, description: 0.75, params: 0.75, paramText: 0.75, examples: 0.5, category: 0.5, provider: 0.5 },
  coverage: { name: 0.25, description: 1, params: 1.5 },
  rerankDepth: 50,
  expansion: defaultExpansionWeights,
  fuzzy: 0.6,
  reliability: 0.02,
};

/** A document tokenised once: reused by every index that contains it (whole catalog, per source). */
export interface AnalyzedDocument {
  id: string;
  successRate: number | null;
  /** Terms per field, in `searchFields` order. */
  fields: string[][];
  /** English words before stemming, for the typo index. */
  words: Set<string>;
}

export function analyzeDocument(doc: IndexDocument): AnalyzedDocument {
  const words = new Set<string>();
  return { id: doc.id, successRate: doc.successRate, fields: searchFields.map((f) => doc.fields[f].flatMap((text) => tokenize(text, words))), words };
}

interface Part {
  terms: string[];
  idfs: Float64Array;
  total: number;
}

interface Posting {
  docs: Int32Array;
  tfs: Float32Array;
  idf: number;
}

export interface RankedDocument {
  index: number;
  id: string;
  score: number;
}

export class SearchIndex {
  readonly size: number;
  private readonly postings = new Map<string, Posting>();
  /** Distinct terms (with their idf) of each document's name, description and parameters, for the coverage re-rank. */
  private readonly parts: { name: Part; description: Part; params: Part }[];
  private readonly words = new Set<string>();
  private fuzzyIndex: FuzzyIndex | undefined;
  /** Corrections already looked up: the same unknown words (names, places) recur across queries. */
  private readonly corrections = new Map<string, { terms: string[]; distance: number }>();

  constructor(
    readonly documents: readonly AnalyzedDocument[],
    readonly settings: RankerSettings = defaultRankerSettings,
  ) {
    this.size = documents.length;
    for (const doc of documents) for (const w of doc.words) this.words.add(w);

    const avgLength = searchFields.map((_, f) => documents.reduce((sum, doc) => sum + doc.fields[f].length, 0) / Math.max(1, documents.length) || 1);
    const lists = new Map<string, { docs: number[]; tfs: number[] }>();
    documents.forEach(({ fields }, d) => {
      // BM25F: each field's counts are length-normalised and weighted, then saturated together.
      const pseudoTf = new Map<string, number>();
      searchFields.forEach((field, f) => {
        const tokens = fields[f];
        if (tokens.length === 0) return;
        const b = settings.fieldB[field];
        const w = settings.fieldWeights[field] / (1 - b + (b * tokens.length) / avgLength[f]);
        for (const t of tokens) pseudoTf.set(t, (pseudoTf.get(t) ?? 0) + w);
        for (const t of termPairs(tokens)) pseudoTf.set(t, (pseudoTf.get(t) ?? 0) + w);
      });
      for (const [t, tf] of pseudoTf) {
        let list = lists.get(t);
        if (!list) lists.set(t, (list = { docs: [], tfs: [] }));
        list.docs.push(d);
        list.tfs.push(tf);
      }
    });
    const n = documents.length;
    for (const [t, { docs, tfs }] of lists) {
      this.postings.set(t, { docs: Int32Array.from(docs), tfs: Float32Array.from(tfs), idf: Math.log(1 + (n - docs.length + 0.5) / (docs.length + 0.5)) });
    }
    const at = (field: SearchField) => searchFields.indexOf(field);
    const part = (terms: string[]): Part => {
      const distinct = [...new Set(terms)];
      const idfs = Float64Array.from(distinct, (t) => this.postings.get(t)?.idf ?? 0);
      return { terms: distinct, idfs, total: idfs.reduce((a, b) => a + b, 0) };
    };
    this.parts = documents.map(({ fields }) => ({
      name: part(fields[at("name")]),
      description: part(fields[at("description")]),
      params: part([...fields[at("params")], ...fields[at("paramText")], ...fields[at("examples")]]),
    }));
  }

  /** Built on the first query with a word the catalog lacks. */
  private get fuzzy(): FuzzyIndex {
    return (this.fuzzyIndex ??= new FuzzyIndex(this.words));
  }

  /** Weighted terms of a query: its own, glossary expansions, and typo corrections of unknown English words. */
  queryTerms(query: string): Map<string, number> {
    const terms = analyzeQuery(query, this.settings.expansion);
    if (this.settings.fuzzy > 0) {
      const add = (term: string, w: number) => {
        if (w > (terms.get(term) ?? 0)) terms.set(term, w);
      };
      for (const word of latinWords(query)) {
        if (this.words.has(word) || this.postings.has(stem(word))) continue;
        // A compound the catalog spells in two humps ("wifi" for WiFi, "youtube" for YouTube).
        const split = this.compoundSplit(word);
        if (split) {
          for (const part of split) add(stem(part), this.settings.fuzzy);
          add(`${stem(split[0])}~${stem(split[1])}`, this.settings.fuzzy);
          continue;
        }
        let correction = this.corrections.get(word);
        if (!correction) {
          correction = this.fuzzy.nearest(word);
          if (this.corrections.size >= 50_000) this.corrections.clear();
          this.corrections.set(word, correction);
        }
        const { terms: near, distance } = correction;
        for (const candidate of near) add(stem(candidate), this.settings.fuzzy * (distance === 1 ? 1 : 0.7));
      }
    }
    return terms;
  }

  /** Two catalog words that make up `word`, longest first half first; null when none do. */
  private compoundSplit(word: string): [string, string] | null {
    for (let i = word.length - 2; i >= 2; i--) {
      const head = word.slice(0, i);
      const tail = word.slice(i);
      if (this.words.has(head) && this.words.has(tail)) return [head, tail];
    }
    return null;
  }

  /** Documents ranked for a query, best first; documents sharing nothing with it are left out. */
  search(query: string, limit: number, accept?: (index: number) => boolean): RankedDocument[] {
    return this.rank(this.queryTerms(query), limit, accept);
  }

  private rank(terms: Map<string, number>, limit: number, accept?: (index: number) => boolean): RankedDocument[] {
    const { k1 } = this.settings;
    const scores = new Float64Array(this.size);
    for (const [term, qw] of terms) {
      const p = this.postings.get(term);
      if (!p) continue;
      const weight = qw * p.idf * (k1 + 1);
      for (let i = 0; i < p.docs.length; i++) {
        const tf = p.tfs[i];
        scores[p.docs[i]] += (weight * tf) / (tf + k1);
      }
    }
    const candidates = this.top(scores, Math.max(limit, this.settings.rerankDepth), accept);
    const { coverage, reliability } = this.settings;
    for (const c of candidates) {
      const part = this.parts[c.index];
      c.score *=
        1 +
        coverage.name * this.coverage(part.name, terms) +
        coverage.description * this.coverage(part.description, terms) +
        coverage.params * this.coverage(part.params, terms);
      const rate = this.documents[c.index].successRate;
      if (rate !== null) c.score *= 1 + reliability * (2 * Math.min(1, Math.max(0, rate)) - 1);
    }
    candidates.sort((a, b) => b.score - a.score || a.index - b.index);
    return candidates.slice(0, limit);
  }

  /** Idf-weighted share of a tool's terms that the query holds (expansions count at their weight). */
  private coverage(part: Part, query: Map<string, number>): number {
    if (part.total === 0) return 0;
    let hit = 0;
    for (let i = 0; i < part.terms.length; i++) {
      const w = query.get(part.terms[i]);
      if (w !== undefined) hit += part.idfs[i] * Math.min(1, w);
    }
    return hit / part.total;
  }

  /** The `limit` best positive scores (a bounded min-heap: long queries touch most of the catalog). */
  private top(scores: Float64Array, limit: number, accept?: (index: number) => boolean): RankedDocument[] {
    const heap: number[] = [];
    const worse = (a: number, b: number) => scores[a] < scores[b] || (scores[a] === scores[b] && a > b);
    const siftDown = (i: number) => {
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && worse(heap[l], heap[m])) m = l;
        if (r < heap.length && worse(heap[r], heap[m])) m = r;
        if (m === i) return;
        [heap[i], heap[m]] = [heap[m], heap[i]];
        i = m;
      }
    };
    for (let d = 0; d < scores.length; d++) {
      if (scores[d] <= 0 || (accept && !accept(d))) continue;
      if (heap.length < limit) {
        heap.push(d);
        for (let i = heap.length - 1; i > 0; ) {
          const parent = (i - 1) >> 1;
          if (!worse(heap[i], heap[parent])) break;
          [heap[i], heap[parent]] = [heap[parent], heap[i]];
          i = parent;
        }
      } else if (limit > 0 && worse(heap[0], d)) {
        heap[0] = d;
        siftDown(0);
      }
    }
    return heap
      .map((d) => ({ index: d, id: this.documents[d].id, score: scores[d] }))
      .sort((a, b) => b.score - a.score || a.index - b.index);
  }
}
