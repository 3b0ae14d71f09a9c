// Tokenisation shared by the index and the queries: one function turns any text (English,
// Chinese or both mixed, identifiers included) into the terms the ranker counts.
import { stemmer } from "stemmer";

/** English function words: they carry no capability meaning, and long queries are full of them. */
const ENGLISH_STOP_WORDS = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between both but by " +
    "can could did do does doing down during each few for from further had has have having he her here hers herself him " +
    "himself his how i if in into is it its itself just let me more most my myself no nor not now of off on once only or " +
    "other our ours ourselves out over own same she should so some such than that the their theirs them themselves then " +
    "there these they this those through to too under until up very was we were what when where which while who whom why " +
    "will with would you your yours yourself yourselves also s t d ll m re ve please"
  ).split(" "),
);

/** Chinese function words and request phrasing that every query carries. */
const CHINESE_STOP_WORDS = new Set(
  (
    "的 了 和 与 及 或 在 是 我 我们 你 您 他 她 它 这 那 这个 那个 一个 一些 为 对 把 被 给 从 到 也 都 就 还 吗 呢 吧 啊 " +
    "请 帮 帮我 想 要 需要 能 能否 可以 可否 一下 如何 怎么 什么 哪些 有 没有 并 且 以 之 其 于 等 中 上 下 里"
  ).split(" "),
);

const CJK_RUN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
const HAS_CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
/** Latin words and numbers; identifiers are split further by `splitIdentifier`. */
const LATIN_WORD = /[\p{L}\p{N}]+/gu;

const segmenter = new Intl.Segmenter("zh", { granularity: "word" });

const PLAIN_LOWER = /^[a-z]+$/;
const ASCII_WORD = /^[A-Za-z0-9]+$/;

/**
 * Splits an identifier into lower-case words: snake_case, kebab-case, camelCase, PascalCase and
 * acronyms (`getHTTPResponse` -> get, http, response), digits apart from letters. Indexing a
 * catalog calls this for every word, so ASCII words take a hand-written scan.
 */
export function splitIdentifier(identifier: string): string[] {
  if (PLAIN_LOWER.test(identifier)) return [identifier];
  if (!ASCII_WORD.test(identifier)) {
    return identifier
      .split(/[^\p{L}\p{N}]+/u)
      .flatMap((part) => (part && ASCII_WORD.test(part) ? splitIdentifier(part) : part ? [part.toLowerCase()] : []));
  }
  const out: string[] = [];
  let start = 0;
  const kind = (c: number) => (c >= 97 && c <= 122 ? 1 : c >= 65 && c <= 90 ? 2 : 3); // lower, upper, digit
  for (let i = 1; i < identifier.length; i++) {
    const prev = kind(identifier.charCodeAt(i - 1));
    const cur = kind(identifier.charCodeAt(i));
    const next = i + 1 < identifier.length ? kind(identifier.charCodeAt(i + 1)) : 0;
    const boundary =
      (prev === 1 && cur === 2) || // camelCase
      (prev === 2 && cur === 2 && next === 1) || // acronym end: HTTPResponse
      (prev === 3) !== (cur === 3); // letters | digits
    if (boundary) {
      out.push(identifier.slice(start, i).toLowerCase());
      start = i;
    }
  }
  out.push(identifier.slice(start).toLowerCase());
  return out;
}

const stemCache = new Map<string, string>();

/**
 * Porter stem of a lower-case English word. Numbers and very short words are kept as they are;
 * the cache matters because the same few thousand words are stemmed on every query.
 */
export function stem(word: string): string {
  if (word.length < 3 || /\d/.test(word)) return word;
  let s = stemCache.get(word);
  if (s === undefined) {
    s = stemmer(word);
    if (stemCache.size < 200_000) stemCache.set(word, s);
  }
  return s;
}

export function isEnglishStopWord(word: string): boolean {
  return ENGLISH_STOP_WORDS.has(word);
}

/** Lower-case English words of a text before stemming (stop words and numbers left out): the typo index works on these. */
export function latinWords(text: string, out: Set<string> = new Set()): Set<string> {
  for (const raw of text.match(LATIN_WORD) ?? []) {
    if (HAS_CJK.test(raw)) continue;
    for (const word of splitIdentifier(raw)) if (!ENGLISH_STOP_WORDS.has(word) && !/\d/.test(word)) out.add(word);
  }
  return out;
}

/** An English word with only its plural folded ("cities" -> "city"): the form a stem-blind match compares. */
export function foldPlural(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(s|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

const exactCache = new Map<string, string>();

/** `=` and the folded word, one string per word however many tools use it (a large catalog holds millions of tokens). */
function exactForm(word: string): string {
  let form = exactCache.get(word);
  if (form === undefined) {
    form = `=${foldPlural(word)}`;
    if (exactCache.size < 200_000) exactCache.set(word, form);
  }
  return form;
}

/**
 * The exact forms of a text's English words (plural folded, not stemmed), marked `=` so they never
 * meet a stem: "playing" and "play" share a stem, and a request to play is not one for what is playing.
 */
export function exactTerms(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.match(LATIN_WORD) ?? []) {
    if (HAS_CJK.test(raw)) continue;
    for (const word of splitIdentifier(raw)) if (!ENGLISH_STOP_WORDS.has(word) && !/\d/.test(word)) out.push(exactForm(word));
  }
  return out;
}

/** English terms of a Latin-script text: identifier-aware words, stop words dropped, stemmed. */
export function latinTerms(text: string, out: string[] = [], words?: Set<string>): string[] {
  for (const raw of text.match(LATIN_WORD) ?? []) {
    for (const word of splitIdentifier(raw)) {
      if (ENGLISH_STOP_WORDS.has(word)) continue;
      out.push(stem(word));
      if (words && !/\d/.test(word)) words.add(word);
    }
  }
  return out;
}

/**
 * Chinese terms of a run of Han characters: the segmenter's words (stop words dropped), every
 * character bigram and every character. Bigrams keep recall when the segmenter cuts a compound
 * differently in the query and in the tool's text; words add weight where both agree; single
 * characters (weighted down at query time) catch what a two-character window misses (茶 in 泡茶).
 */
export function chineseTerms(run: string, out: string[] = []): string[] {
  for (const { segment, isWordLike } of segmenter.segment(run)) {
    if (isWordLike && segment.length > 1 && !CHINESE_STOP_WORDS.has(segment)) out.push(segment);
  }
  const chars = [...run];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
  for (const c of chars) if (!CHINESE_STOP_WORDS.has(c)) out.push(c);
  return out;
}

/**
 * All terms of a text in any mix of English, Chinese and identifiers. `words`, when given,
 * collects the English words before stemming (what the typo index is built from).
 */
export function tokenize(text: string, words?: Set<string>): string[] {
  const out: string[] = [];
  if (!text) return out;
  if (!HAS_CJK.test(text)) return latinTerms(text, out, words);
  let last = 0;
  for (const m of text.matchAll(CJK_RUN)) {
    if (m.index > last) latinTerms(text.slice(last, m.index), out, words);
    chineseTerms(m[0], out);
    last = m.index + m[0].length;
  }
  if (last < text.length) latinTerms(text.slice(last), out, words);
  return out;
}

export function containsChinese(text: string): boolean {
  return HAS_CJK.test(text);
}

