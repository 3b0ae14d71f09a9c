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
