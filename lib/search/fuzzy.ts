// Typo tolerance: a symmetric-delete index (SymSpell) over the catalog's English terms finds,
// for a query term the catalog does not contain, the catalog terms within a small edit distance
// without scanning the whole vocabulary on every query.

/** Edit distance allowed for a term of this length: none for short terms, where typos and real words collide. */
export function allowedDistance(length: number): number {
  if (length < 5) return 0;
  return length < 9 ? 1 : 2;
}

function deletes(term: string, depth: number, out: Set<string>) {
  if (depth === 0) return;
  for (let i = 0; i < term.length; i++) {
    const d = term.slice(0, i) + term.slice(i + 1);
    if (!out.has(d)) {
      out.add(d);
      deletes(d, depth - 1, out);
    }
  }
}

/** Optimal-string-alignment distance (Damerau-Levenshtein with adjacent transpositions), capped at max + 1. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    let best = Number.POSITIVE_INFINITY;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, rows[i - 2][j - 2] + 1);
      rows[i][j] = v;
      best = Math.min(best, v);
    }
    if (best > max) return max + 1;
  }
  return rows[a.length][b.length];
}

export class FuzzyIndex {
  private readonly byDelete = new Map<string, string[]>();

  constructor(terms: Iterable<string>) {
    for (const term of terms) {
      const d = allowedDistance(term.length);
      if (d === 0) continue;
      const keys = new Set<string>([term]);
      deletes(term, d, keys);
      for (const key of keys) {
        const list = this.byDelete.get(key);
        if (list) list.push(term);
        else this.byDelete.set(key, [term]);
      }
    }
  }

  /** Catalog terms closest to `term` within its allowed distance (all at the smallest distance found). */
  nearest(term: string): { terms: string[]; distance: number } {
    const max = allowedDistance(term.length);
    if (max === 0) return { terms: [], distance: 0 };
    const keys = new Set<string>([term]);
    deletes(term, max, keys);
    let best = max + 1;
    let found: string[] = [];
    const seen = new Set<string>();
    for (const key of keys) {
      for (const candidate of this.byDelete.get(key) ?? []) {
        if (seen.has(candidate)) continue;
        seen.add(candidate);
        const limit = Math.min(max, allowedDistance(candidate.length));
        const d = editDistance(term, candidate, limit);
        if (d > limit) continue;
        if (d < best) {
          best = d;
          found = [candidate];
        } else if (d === best) {
          found.push(candidate);
        }
      }
    }
    return best > max ? { terms: [], distance: 0 } : { terms: found, distance: best };
  }
}
