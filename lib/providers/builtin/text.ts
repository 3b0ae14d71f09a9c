// Text utilities. Counting is CJK-aware: Chinese, Japanese and Korean text has no spaces, so each
// CJK character counts as a word, as word processors do.
import { randomInt } from "node:crypto";
import { BuiltinToolError } from "./errors";
import { type BuiltinHandler, bool, int, limitLength, oneOf, str } from "./params";

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_GLOBAL = new RegExp(CJK.source, "gu");
const LATIN_WORD = /[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu;
const MAX_TEXT = 1_000_000;

const textStatistics: BuiltinHandler = (p) => {
  const text = str(p, "text");
  limitLength("text", text, MAX_TEXT);
  const chars = [...text];
  const cjk = text.match(CJK_GLOBAL)?.length ?? 0;
  const latinWords = (text.replace(CJK_GLOBAL, " ").match(LATIN_WORD) ?? []).length;
  const sentences = text.split(/(?<=[.!?。！？])\s*|\n+/u).filter((s) => /[\p{L}\p{N}]/u.test(s)).length;
  const paragraphs = text.split(/\n\s*\n/).filter((s) => s.trim().length > 0).length;
  // Reading speed: ~200 English words or ~300 Chinese characters per minute.
  const minutes = latinWords / 200 + cjk / 300;
  return {
    characters: chars.length,
    characters_no_spaces: chars.filter((c) => !/\s/u.test(c)).length,
    bytes_utf8: Buffer.byteLength(text, "utf8"),
    words: latinWords + cjk,
    latin_words: latinWords,
    cjk_characters: cjk,
    lines: text.length === 0 ? 0 : text.split(/\r\n|\r|\n/).length,
    sentences,
    paragraphs,
    reading_time_minutes: Math.round(minutes * 10) / 10,
  };
};

const slugify: BuiltinHandler = (p) => {
  const text = str(p, "text");
  limitLength("text", text, 10_000);
  const separator = oneOf(p, "separator", ["-", "_", "."] as const, "-");
  const lowercase = bool(p, "lowercase", true);
  const asciiOnly = bool(p, "ascii_only", false);
  const maxLength = int(p, "max_length", 80);
  // NFKD splits accents off their letters (é → e + ◌́) so they can be dropped.
  let s = text.normalize("NFKD").replace(/\p{M}+/gu, "").replace(/ß/g, "ss").replace(/[æÆ]/g, "ae").replace(/[øØ]/g, "o");
  if (lowercase) s = s.toLowerCase();
  s = s.replace(asciiOnly ? /[^A-Za-z0-9]+/g : /[^\p{L}\p{N}]+/gu, separator);
  const escaped = separator === "." ? "\\." : separator;
  s = s.replace(new RegExp(`^${escaped}+|${escaped}+$`, "g"), "");
  if (s.length > maxLength) s = s.slice(0, maxLength).replace(new RegExp(`${escaped}+$`), "");
  return { text, slug: s };
};

/** Splits identifiers and prose into words: spaces, punctuation, camelCase and digit boundaries. */
export function splitWords(text: string): string[] {
  return text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

const CASES = ["upper", "lower", "title", "sentence", "camel", "pascal", "snake", "kebab", "constant", "dot"] as const;
const SMALL_WORDS = new Set(["a", "an", "and", "as", "at", "but", "by", "for", "in", "nor", "of", "on", "or", "the", "to", "via", "vs"]);

const capitalize = (w: string) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase();

const caseConvert: BuiltinHandler = (p) => {
  const text = str(p, "text");
  limitLength("text", text, 100_000);
  const to = oneOf(p, "to", CASES);
  const words = () => splitWords(text);
  let result: string;
  switch (to) {
    case "upper": result = text.toUpperCase(); break;
    case "lower": result = text.toLowerCase(); break;
    case "title":
      result = text.toLowerCase().replace(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu, (w, offset: number) => (offset > 0 && SMALL_WORDS.has(w) ? w : capitalize(w)));
      break;
    case "sentence":
      result = text.toLowerCase().replace(/(^\s*|[.!?。！？]\s+)(\p{L})/gu, (_m, pre: string, c: string) => pre + c.toUpperCase());
      break;
    case "camel": result = words().map((w, i) => (i === 0 ? w.toLowerCase() : capitalize(w))).join(""); break;
    case "pascal": result = words().map(capitalize).join(""); break;
    case "snake": result = words().map((w) => w.toLowerCase()).join("_"); break;
    case "kebab": result = words().map((w) => w.toLowerCase()).join("-"); break;
    case "constant": result = words().map((w) => w.toUpperCase()).join("_"); break;
    case "dot": result = words().map((w) => w.toLowerCase()).join("."); break;
  }
  return { text, to, result };
};

const STOP_WORDS = new Set(
  ("a an and are as at be been but by can did do does for from had has have he her his i if in into is it its me my no not of on or our she so " +
    "than that the their them then there these they this to was we were what when which who will with would you your " +
    "的 了 和 是 在 我 有 就 不 人 都 一 也 很 到 说 要 去 你 会 着 没有 看 好 这 那 他 她 它 们 与 及 或 而 之 于 被")
    .split(" "),
);

// ICU's word segmenter knows Chinese and Japanese dictionaries, so 中文分词 works without a library.
const segmenter = new Intl.Segmenter(undefined, { granularity: "word" });

const wordFrequency: BuiltinHandler = (p) => {
  const text = str(p, "text");
  limitLength("text", text, MAX_TEXT);
  const top = int(p, "top", 10);
  const minLength = int(p, "min_length", 1);
  const ignoreCase = bool(p, "ignore_case", true);
  const skipStopWords = bool(p, "exclude_stop_words", false);
  const counts = new Map<string, number>();
  let total = 0;
  for (const seg of segmenter.segment(text)) {
    if (!seg.isWordLike) continue;
    const word = ignoreCase ? seg.segment.toLowerCase() : seg.segment;
    if ([...word].length < minLength) continue;
    if (skipStopWords && STOP_WORDS.has(word.toLowerCase())) continue;
    total++;
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  if (total === 0) return {};
  const items = [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, top)
    .map(([word, count]) => ({ word, count, share: Math.round((count / total) * 10000) / 10000 }));
  return { total_words: total, unique_words: counts.size, items };
};

const MAX_DIFF_LINES = 2000;

type DiffOp = { op: "equal" | "add" | "remove"; text: string; a_line?: number; b_line?: number };

/** Line diff by longest common subsequence; inputs are capped so the table stays small (≤ 4M cells). */
export function diffLines(a: string[], b: string[]): DiffOp[] {
  const n = a.length;
  const m = b.length;
  const width = m + 1;
  const table = new Uint16Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j] ? table[(i + 1) * width + j + 1] + 1 : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
    }
  }
  const ops: DiffOp[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ op: "equal", text: a[i], a_line: i + 1, b_line: j + 1 });
      i++;
      j++;
    } else if (i < n && (j === m || table[(i + 1) * width + j] >= table[i * width + j + 1])) {
      // Removals before additions, as diff(1) prints them.
      ops.push({ op: "remove", text: a[i], a_line: i + 1 });
      i++;
    } else {
      ops.push({ op: "add", text: b[j], b_line: j + 1 });
      j++;
    }
  }
  return ops;
}

const textDiff: BuiltinHandler = (p) => {
  const before = str(p, "before");
  const after = str(p, "after");
  const ignoreWhitespace = bool(p, "ignore_whitespace", false);
  const split = (t: string) => (t === "" ? [] : t.split(/\r\n|\r|\n/));
  const a = split(before);
  const b = split(after);
  if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) throw new BuiltinToolError(`each text may have at most ${MAX_DIFF_LINES} lines`);
  const norm = (l: string) => (ignoreWhitespace ? l.trim().replace(/\s+/g, " ") : l);
  const ops = diffLines(a.map(norm), b.map(norm)).map((o) => ({
    ...o,
    text: o.a_line !== undefined ? a[o.a_line - 1] : b[(o.b_line ?? 1) - 1],
  }));
  const added = ops.filter((o) => o.op === "add").length;
  const removed = ops.filter((o) => o.op === "remove").length;
  return {
    identical: added === 0 && removed === 0,
    added,
    removed,
    unchanged: ops.length - added - removed,
    changes: ops.filter((o) => o.op !== "equal"),
    unified: ops.map((o) => `${o.op === "add" ? "+" : o.op === "remove" ? "-" : " "}${o.text}`).join("\n"),
  };
};

const LOREM_WORDS = (
  "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua " +
  "enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure in " +
  "reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non proident sunt culpa " +
  "qui officia deserunt mollit anim id est laborum"
).split(" ");
const ZH_WORDS = (
  "我们 今天 时间 生活 工作 学习 世界 发展 问题 方法 城市 自然 文化 技术 社会 朋友 故事 春天 阳光 河流 山谷 " +
  "清晨 思考 简单 美好 安静 温暖 远方 梦想 道路 希望 记忆 声音 颜色 设计 数据 系统 用户 体验 未来"
).split(" ");

const loremIpsum: BuiltinHandler = (p) => {
  const unit = oneOf(p, "unit", ["words", "sentences", "paragraphs"] as const, "paragraphs");
  const count = int(p, "count", 1);
  const lang = oneOf(p, "lang", ["la", "zh"] as const, "la");
  if (count < 1 || count > 100) throw new BuiltinToolError("count must be between 1 and 100");
  const words = lang === "zh" ? ZH_WORDS : LOREM_WORDS;
  const joiner = lang === "zh" ? "" : " ";
  let first = bool(p, "start_with_lorem", true) && lang === "la";
  const pickWords = (n: number) => {
    const out = first ? ["lorem", "ipsum", "dolor", "sit", "amet"].slice(0, n) : [];
    first = false;
    while (out.length < n) out.push(words[randomInt(words.length)]);
    return out;
  };
  const sentence = () => {
    const w = pickWords(6 + randomInt(10));
    if (lang === "zh") return `${w.join(joiner)}。`;
    // Latin-style filler reads better with an occasional comma.
    if (w.length > 8) w[3 + randomInt(w.length - 6)] += ",";
    const s = w.join(" ");
    return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
  };
  const paragraph = () => Array.from({ length: 3 + randomInt(4) }, sentence).join(joiner);
  if (unit === "words") return { unit, count, text: pickWords(count).join(joiner) };
  const pieces = Array.from({ length: count }, unit === "sentences" ? sentence : paragraph);
  return { unit, count, text: pieces.join(unit === "sentences" ? joiner : "\n\n"), ...(unit === "paragraphs" && { paragraphs: pieces }) };
};

const rot13: BuiltinHandler = (p) => {
  const text = str(p, "text");
  limitLength("text", text, MAX_TEXT);
  const result = text.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
  return { result };
};

export const textHandlers: Record<string, BuiltinHandler> = {
  "text.statistics": textStatistics,
  "text.slugify": slugify,
  "text.case_convert": caseConvert,
  "text.word_frequency": wordFrequency,
  "text.diff": textDiff,
  "text.lorem_ipsum": loremIpsum,
  "text.rot13": rot13,
};
