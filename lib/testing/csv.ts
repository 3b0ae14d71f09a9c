/**
 * A strict RFC 4180 reader for tests of the CSV exports (no CSV parser is a dependency). Strict on
 * purpose: a quote inside an unquoted field, text after a closing quote, an unterminated quoted
 * field or records of different widths throw, so a quoting bug in an export fails the test instead
 * of being read leniently.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  const endRecord = () => {
    if (records.length > 0 && record.length !== records[0].length) {
      throw new Error(`CSV record ${records.length + 1} has ${record.length} fields, the header ${records[0].length}`);
    }
    records.push(record);
    record = [];
  };
  while (i < text.length) {
    let field = "";
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error("CSV: unterminated quoted field");
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += text[i++];
      }
      if (i < text.length && text[i] !== "," && text[i] !== "\n" && !(text[i] === "\r" && text[i + 1] === "\n")) {
        throw new Error(`CSV: text after a closing quote at offset ${i}`);
      }
    } else {
      while (i < text.length && text[i] !== "," && text[i] !== "\n" && !(text[i] === "\r" && text[i + 1] === "\n")) {
        if (text[i] === '"') throw new Error(`CSV: quote inside an unquoted field at offset ${i}`);
        field += text[i++];
      }
    }
    record.push(field);
    if (text[i] === ",") {
      i++;
      // A separator at the very end still opens one last (empty) field.
      if (i === text.length) record.push("");
    } else {
      i += text[i] === "\r" ? 2 : 1;
      endRecord();
    }
  }
  if (record.length > 0) endRecord();
  return records;
}

/** Cells a CSV writer can get wrong: formula starts, plain numbers, quotes, separators, line breaks, empty and non-ASCII text. */
export const TRICKY: (string | number | boolean | null | undefined)[] = [
  "plain", "", null, undefined, true, false, 0, 12, -3, 1.5, -0.25, 1e21, -1e21, Number.NaN, Number.NEGATIVE_INFINITY,
  "-5", "-0.25", "-1.", "-.5", "--5", "- 5", "+5", "=1+1", "+cmd", "-2+3", "@SUM(A1)", "\tx", "\rx", "\nx", "x\r", "x\n", "a\r\nb",
  '=HYPERLINK("http://x","y")', 'say "hi"', '"', '""', ",", "a,b", ",lead", "trail,", " spaced ", "'quoted already",
  "a=b", "ünïcödé", "日本語,テキスト", "emoji 🎉", "＝fullwidth", '{"a":1,"b":[1,2]}', '"json string"', "[]", "null",
];

/** The text cells of `TRICKY` (what a text column can hold). */
export const TRICKY_TEXT = TRICKY.filter((c): c is string => typeof c === "string");
