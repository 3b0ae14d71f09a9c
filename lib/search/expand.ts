// Query analysis: the query's own terms (weight 1), adjacent English pairs, and expansions from
// the bilingual glossary (same-language synonyms and translations, at reduced weights).
import { GLOSSARY } from "./glossary";
import { containsChinese, latinTerms, tokenize } from "./tokenize";

export interface ExpansionWeights {
  /**
   * Saturation of repeated query terms (BM25's k3): a word said twice weighs (k3+1)·2/(k3+2),
   * 1.33 at k3 = 0.5, never more than 1 + k3. A request that repeats "feedback" is about feedback.
   */
  repeat: number;
  /** Weight of a single Chinese character of the query (words and bigrams weigh 1). */
  chineseChar: number;
  /** Weight of a number in the query: requests carry values ("97", "2023") far more often than capability words. */
  number: number;
  /** Weight of adjacent English term pairs ("solar~eclips"), which reward phrases kept intact. */
  pair: number;
  /** Weight of an English synonym of an English query word. */
  synonymEn: number;
  /** Weight of a Chinese synonym of a Chinese query word. */
  synonymZh: number;
  /** Weight of a Chinese translation of an English query word. */
  toChinese: number;
  /** Weight of an English translation of a Chinese query word. */
  toEnglish: number;
}

export const defaultExpansionWeights: ExpansionWeights = {
  repeat: 0.5,
  chineseChar: 0.6,
  number: 0.5,
  pair: 0.5,
  synonymEn: 0.3,
  synonymZh: 0.45,
  toChinese: 0.3,
  toEnglish: 0.7,
};

interface Concept {
  /** Stemmed English terms. */
  english: string[];
  chinese: string[];
  /** The Chinese words as index terms (words and bigrams), computed once. */
  chineseTerms: string[];
}

interface Thesaurus {
  byEnglishTerm: Map<string, Concept[]>;
  byChinese: Map<string, Concept[]>;
  /** Longest Chinese entry, in characters: bounds the substring scan. */
  maxChinese: number;
}

let thesaurus: Thesaurus | undefined;

function loadThesaurus(): Thesaurus {
  const byEnglishTerm = new Map<string, Concept[]>();
  const byChinese = new Map<string, Concept[]>();
  let maxChinese = 1;
  for (const line of GLOSSARY.split("\n")) {
    const [en, zh] = line.split("|");
    if (zh === undefined) continue;
    const chinese = zh.trim().split(/\s+/).filter(Boolean);
    const chineseTerms = [...new Set(chinese.flatMap((word) => tokenize(word).filter((term) => term.length > 1)))];
    const concept: Concept = { english: [...new Set(latinTerms(en))], chinese, chineseTerms };
    for (const term of concept.english) push(byEnglishTerm, term, concept);
    for (const word of concept.chinese) {
      push(byChinese, word, concept);
      maxChinese = Math.max(maxChinese, [...word].length);
    }
  }
  return { byEnglishTerm, byChinese, maxChinese };
}

/** Appends `value` to the list under `key`, creating it. */
export function push<K, V>(map: Map<K, V[]>, key: K, value: V) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const NUMBER = /^\d+$/;
const CJK_RUN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
const wordSegmenter = new Intl.Segmenter("zh", { granularity: "word" });

/**
 * Glossary entries present in the Chinese runs of a text: any entry of two or more characters
 * found as a substring (compounds are often segmented differently), and one-character entries
 * only where the segmenter sees a word of its own (so 车 does not fire inside 火车).
 */
function chineseConcepts(text: string, t: Thesaurus): Concept[] {
  const found = new Set<Concept>();
  for (const [run] of text.matchAll(CJK_RUN)) {
    const chars = [...run];
    for (let i = 0; i < chars.length; i++) {
      for (let len = 2; len <= t.maxChinese && i + len <= chars.length; len++) {
        for (const c of t.byChinese.get(chars.slice(i, i + len).join("")) ?? []) found.add(c);
      }
    }
    for (const { segment, isWordLike } of wordSegmenter.segment(run)) {
      if (isWordLike && [...segment].length === 1) for (const c of t.byChinese.get(segment) ?? []) found.add(c);
    }
  }
  return [...found];
}

/** Weighted terms of a query: its own terms about 1, expansions below; the highest weight wins. */
export function analyzeQuery(query: string, weights: ExpansionWeights = defaultExpansionWeights): Map<string, number> {
  const t = (thesaurus ??= loadThesaurus());
  const terms = new Map<string, number>();
  const add = (term: string, w: number) => {
    if (w > (terms.get(term) ?? 0)) terms.set(term, w);
  };
  const own = tokenize(query);
  const counts = new Map<string, number>();
  for (const term of own) counts.set(term, (counts.get(term) ?? 0) + 1);
  const k3 = weights.repeat;
  for (const [term, n] of counts) {
    const base = term.length === 1 && containsChinese(term) ? weights.chineseChar : NUMBER.test(term) ? weights.number : 1;
    add(term, (base * (k3 + 1) * n) / (k3 + n));
  }
  if (weights.pair > 0) for (const pair of termPairs(own)) add(pair, weights.pair);
  const expand = (concept: Concept, fromChinese: boolean) => {
    const en = fromChinese ? weights.toEnglish : weights.synonymEn;
    const zh = fromChinese ? weights.synonymZh : weights.toChinese;
    if (en > 0) for (const term of concept.english) add(term, en);
    if (zh > 0) for (const term of concept.chineseTerms) add(term, zh);
  };
  for (const term of counts.keys()) for (const concept of t.byEnglishTerm.get(term) ?? []) expand(concept, false);
  if (containsChinese(query)) for (const concept of chineseConcepts(query, t)) expand(concept, true);
  return terms;
}

/** Adjacent pairs of English terms ("solar~eclips"): the index stores them for every field, the query weighs them `pair`. */
export function termPairs(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < tokens.length; i++) {
    if (!containsChinese(tokens[i]) && !containsChinese(tokens[i + 1])) out.push(`${tokens[i]}~${tokens[i + 1]}`);
  }
  return out;
}
