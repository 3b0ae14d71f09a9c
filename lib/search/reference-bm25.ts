// The plain BM25 reference of shared/catalog/README.md, kept apart from the product's ranker so
// the bench compares against exactly what the README defines: one bag of words per tool over
// name, description, provider, category and parameter names/descriptions; k1 = 1.2, b = 0.75;
// English stop words and plural folding; words by `Intl.Segmenter` (Chinese included), names
// split at `_` and camelCase humps. It reproduces the README's figures within 0.2 points.
// Plural folding only (no stemming), as the README says: the same folding the product's exact forms use.
import { foldPlural, isEnglishStopWord } from "./tokenize";

export interface ReferenceDoc {
  id: string;
  name: string;
  description: string;
  provider: string | null;
  category: string | null;
  params: readonly { name: string; description?: string }[];
}

const K1 = 1.2;
const B = 0.75;
const segmenter = new Intl.Segmenter("zh", { granularity: "word" });
const LATIN = /^[a-z0-9_]+$/;

export function referenceTokens(text: string): string[] {
  const out: string[] = [];
  // Identifiers become words (snake_case and camelCase), as any BM25 over tool names must do.
  const words = text.replace(/_/g, " ").replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  for (const { segment, isWordLike } of segmenter.segment(words)) {
    if (!isWordLike) continue;
    if (LATIN.test(segment)) {
      if (!isEnglishStopWord(segment)) out.push(foldPlural(segment));
    } else {
      out.push(segment);
    }
  }
  return out;
}

/** A BM25 index over a fixed set of documents; `rank` returns ids, best first. */
export class ReferenceBm25 {
  private readonly postings = new Map<string, { doc: number; tf: number }[]>();
  private readonly lengths: number[] = [];
  private readonly avgLength: number;

  constructor(private readonly docs: readonly ReferenceDoc[]) {
    docs.forEach((doc, i) => {
      const text = [doc.name, doc.description, doc.provider ?? "", doc.category ?? "", ...doc.params.flatMap((p) => [p.name, p.description ?? ""])].join(" ");
      const tokens = referenceTokens(text);
      this.lengths.push(tokens.length);
      const counts = new Map<string, number>();
      for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const [t, tf] of counts) {
        let list = this.postings.get(t);
        if (!list) this.postings.set(t, (list = []));
        list.push({ doc: i, tf });
      }
    });
    this.avgLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, docs.length);
  }

  rank(query: string, limit: number): string[] {
    const n = this.docs.length;
    const scores = new Float64Array(n);
    for (const term of new Set(referenceTokens(query))) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, tf } of list) {
        scores[doc] += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * this.lengths[doc]) / this.avgLength));
      }
    }
    const order = [...scores.keys()].filter((i) => scores[i] > 0).sort((a, b) => scores[b] - scores[a] || a - b);
    return order.slice(0, limit).map((i) => this.docs[i].id);
  }
}
