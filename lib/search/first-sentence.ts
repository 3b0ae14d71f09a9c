// The first sentence of a tool's description: the one-line summaries of Discover's `capability`
// and Inspect's lean view. Sentences are found by the Unicode rules (Intl.Segmenter), which
// already keep decimals, versions and "e.g. this" together.
const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });
const MAX_CHARS = 200;

const CLOSER_OF: Record<string, string> = { "(": ")", "[": "]", "{": "}", "（": "）", "【": "】" };
const CLOSERS = new Set(Object.values(CLOSER_OF));

// The Unicode rules break after these before a capital ("(e.g. Europe/Berlin)"), and Intl offers
// no ICU abbreviation list; no sentence ends with them. "etc." and "et al." often do, so not here.
const NEVER_LAST = String.raw`(?:[Ee]\.g|[Ii]\.e|cf|vs|viz|approx|incl|esp|Mr|Mrs|Ms|Dr|Prof|Fig)\.`;
const ENDS_WITH_ABBREVIATION = new RegExp(String.raw`(?:^|[\s([{（【])${NEVER_LAST}$`);
// What must not be left at the end of a shortened sentence, before its ellipsis.
const DANGLING = new RegExp(String.raw`(?:[\s,;:([{（【]|(?<![\p{L}\p{N}])${NEVER_LAST})+$`, "u");

/**
 * The brackets `text` leaves open, as the closers that would close them (innermost first). Any
 * closer closes the innermost bracket: half-open intervals ("[start, end)") mix their kinds.
 */
function closers(text: string): string {
  const open: string[] = [];
  for (const ch of text) {
    if (ch in CLOSER_OF) open.push(CLOSER_OF[ch]);
    else if (CLOSERS.has(ch)) open.pop();
  }
  return open.reverse().join("");
}

/** The first sentence, never ending inside a bracket or after "e.g.", at most 200 characters. */
export function firstSentence(text: string): string {
  // Line breaks inside descriptions are mostly hard wraps, not sentence ends.
  const flat = text.replace(/\s+/g, " ").trim();
  let sentence = "";
  for (const { segment } of segmenter.segment(flat)) {
    sentence += segment;
    const candidate = sentence.trimEnd();
    if ([...candidate].length > MAX_CHARS) break;
    if (!closers(candidate) && !ENDS_WITH_ABBREVIATION.test(candidate)) return candidate;
  }
  return shorten(sentence.trimEnd());
}

/** Cut to whole words (characters in Chinese) before an ellipsis, closing what the cut left open. */
function shorten(text: string): string {
  const chars = [...text];
  if (chars.length <= MAX_CHARS) return text + closers(text);
  for (let end = MAX_CHARS - 1; ; end--) {
    let cut = chars.slice(0, end).join("");
    const space = cut.lastIndexOf(" ");
    if (chars[end] !== " " && space > end / 2) cut = cut.slice(0, space);
    cut = cut.replace(DANGLING, "");
    const shortened = `${cut}…${closers(cut)}`;
    if ([...shortened].length <= MAX_CHARS) return shortened;
  }
}
