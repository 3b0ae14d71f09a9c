// JSON and CSV tools.
import { BuiltinToolError } from "./errors";
import { type BuiltinHandler, type Params, bool, int, limitLength, oneOf, str } from "./params";

const MAX_TEXT = 1_000_000;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function jsonType(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

/** JSON.parse with the error position turned into line and column. */
function parseJson(text: string): { ok: true; value: Json } | { ok: false; error: string; line?: number; column?: number } {
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch (err) {
    const message = (err as Error).message;
    const pos = /position (\d+)/.exec(message);
    if (!pos) return { ok: false, error: message };
    const before = text.slice(0, Number(pos[1]));
    const lines = before.split("\n");
    return { ok: false, error: message, line: lines.length, column: lines[lines.length - 1].length + 1 };
  }
}

function parseJsonOrThrow(text: string, name: string): Json {
  const r = parseJson(text);
  if (r.ok) return r.value;
  throw new BuiltinToolError(`${name} is not valid JSON: ${r.error}${r.line ? ` (line ${r.line}, column ${r.column})` : ""}`);
}

const jsonValidate: BuiltinHandler = (p) => {
  const text = str(p, "text");
  limitLength("text", text, MAX_TEXT);
  const r = parseJson(text);
  if (!r.ok) return { valid: false, error: r.error, ...(r.line && { line: r.line, column: r.column }) };
  const v = r.value;
  return {
    valid: true,
    type: jsonType(v),
    ...(Array.isArray(v) && { length: v.length }),
    ...(jsonType(v) === "object" && { keys: Object.keys(v as object).slice(0, 100) }),
  };
};

function sortKeys(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  }
  return v;
}

const jsonFormat: BuiltinHandler = (p) => {
  const text = str(p, "text");
  limitLength("text", text, MAX_TEXT);
  const indent = int(p, "indent", 2);
  if (indent < 0 || indent > 8) throw new BuiltinToolError("indent must be between 0 and 8");
  const value = parseJsonOrThrow(text, "text");
  const out = bool(p, "sort_keys", false) ? sortKeys(value) : value;
  return { result: JSON.stringify(out, null, indent) };
};

const jsonMinify: BuiltinHandler = (p) => {
  const text = str(p, "text");
  limitLength("text", text, MAX_TEXT);
  const result = JSON.stringify(parseJsonOrThrow(text, "text"));
  return { result, original_length: text.length, minified_length: result.length };
};

/** Splits `$.a.b[0]["c d"]` (the `$` and leading dot optional) into keys and indexes. */
export function parseJsonPath(path: string): (string | number)[] {
  let s = path.trim();
  if (s.startsWith("$")) s = s.slice(1);
  const out: (string | number)[] = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] === ".") {
      i++;
      continue;
    }
    if (s[i] === "[") {
      const rest = s.slice(i);
      const quoted = /^\[\s*(["'])((?:\\.|(?!\1).)*)\1\s*\]/.exec(rest);
      if (quoted) {
        out.push(quoted[2].replace(/\\(.)/g, "$1"));
        i += quoted[0].length;
        continue;
      }
      const index = /^\[\s*(-?\d+)\s*\]/.exec(rest);
      if (!index) throw new BuiltinToolError(`path "${path}": expected [number] or ["key"] at position ${i + 1}`);
      out.push(Number(index[1]));
      i += index[0].length;
      continue;
    }
    const key = /^[^.[\]]+/.exec(s.slice(i));
    if (!key) throw new BuiltinToolError(`path "${path}": unexpected "${s[i]}" at position ${i + 1}`);
    out.push(key[0]);
    i += key[0].length;
  }
  return out;
}

function inputJson(p: Params): Json {
  if (p.json !== undefined) return p.json as Json;
  const text = str(p, "text");
  limitLength("text", text, MAX_TEXT);
  return parseJsonOrThrow(text, "text");
}

const jsonPath: BuiltinHandler = (p) => {
  const path = str(p, "path");
  const segments = parseJsonPath(path);
  let cur: Json | undefined = inputJson(p);
  for (const seg of segments) {
    if (Array.isArray(cur)) {
      // A numeric key written as .0 addresses an array element too.
      const n = typeof seg === "number" ? seg : /^-?\d+$/.test(seg) ? Number(seg) : NaN;
      cur = Number.isInteger(n) ? cur[n < 0 ? cur.length + n : n] : undefined;
    } else if (cur && typeof cur === "object" && Object.hasOwn(cur, String(seg))) {
      cur = cur[String(seg)];
    } else {
      cur = undefined;
    }
    if (cur === undefined) return {};
  }
  return { path, value: cur, type: jsonType(cur) };
};

type Change = { path: string; op: "added" | "removed" | "changed"; before?: Json; after?: Json };
const MAX_CHANGES = 1000;

function keyPath(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

function diffJson(a: Json, b: Json, path: string, out: Change[]): void {
  if (out.length >= MAX_CHANGES) return;
  const ta = jsonType(a);
  if (ta !== jsonType(b)) {
    out.push({ path, op: "changed", before: a, after: b });
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= b.length) out.push({ path: keyPath(path, i), op: "removed", before: a[i] });
      else if (i >= a.length) out.push({ path: keyPath(path, i), op: "added", after: b[i] });
      else diffJson(a[i], b[i], keyPath(path, i), out);
    }
    return;
  }
  if (ta === "object") {
    const oa = a as Record<string, Json>;
    const ob = b as Record<string, Json>;
    for (const k of [...new Set([...Object.keys(oa), ...Object.keys(ob)])].sort()) {
      if (!Object.hasOwn(ob, k)) out.push({ path: keyPath(path, k), op: "removed", before: oa[k] });
      else if (!Object.hasOwn(oa, k)) out.push({ path: keyPath(path, k), op: "added", after: ob[k] });
      else diffJson(oa[k], ob[k], keyPath(path, k), out);
    }
    return;
  }
  if (a !== b) out.push({ path, op: "changed", before: a, after: b });
}

const jsonDiff: BuiltinHandler = (p) => {
  if (p.before === undefined || p.after === undefined) throw new BuiltinToolError("give both before and after");
  const changes: Change[] = [];
  diffJson(p.before as Json, p.after as Json, "$", changes);
  const count = (op: Change["op"]) => changes.filter((c) => c.op === op).length;
  return {
    equal: changes.length === 0,
    added: count("added"),
    removed: count("removed"),
    changed: count("changed"),
    truncated: changes.length >= MAX_CHANGES,
    changes,
  };
};

/** RFC 4180 CSV: quoted fields may hold delimiters, newlines and doubled quotes. */
export function parseCsv(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  const src = text.replace(/^\uFEFF/, "");
  while (i < src.length) {
    const c = src[i];
    if (quoted) {
      if (c === '"') {
        if (src[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else field += c;
      i++;
      continue;
    }
    if (c === '"' && field === "") quoted = true;
    else if (c === delimiter) {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      if (c === "\r" && src[i + 1] === "\n") i++;
    } else field += c;
    i++;
  }
  if (quoted) throw new BuiltinToolError("the CSV has an unterminated quoted field");
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ""));
}

function inferValue(v: string): Json {
  if (v === "") return null;
  if (/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(v)) {
    const n = Number(v);
    if (Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n))) return n;
  }
  if (/^(true|false)$/i.test(v)) return v.toLowerCase() === "true";
  return v;
}

const DELIMITERS = { ",": ",", ";": ";", tab: "\t", "|": "|" } as const;

const csvToJson: BuiltinHandler = (p) => {
  const text = str(p, "csv");
  limitLength("csv", text, MAX_TEXT);
  const delimiter = DELIMITERS[oneOf(p, "delimiter", Object.keys(DELIMITERS) as (keyof typeof DELIMITERS)[], ",")];
  const header = bool(p, "header", true);
  const infer = bool(p, "infer_types", false);
  const table = parseCsv(text, delimiter);
  const cell = (v: string | undefined): Json => (v === undefined ? null : infer ? inferValue(v) : v);
  if (!header) {
    if (table.length === 0) return {};
    return { row_count: table.length, rows: table.map((r) => r.map(cell)) };
  }
  const [head = [], ...body] = table;
  if (body.length === 0) return {};
  // Duplicate or blank headers still need distinct keys.
  const seen = new Map<string, number>();
  const columns = head.map((h, i) => {
    const base = h.trim() || `column_${i + 1}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}_${n}`;
  });
  const width = Math.max(columns.length, ...body.map((r) => r.length));
  for (let i = columns.length; i < width; i++) columns.push(`column_${i + 1}`);
  const rows = body.map((r) => Object.fromEntries(columns.map((c, i) => [c, cell(r[i])])));
  return { columns, row_count: rows.length, rows };
};

export const dataHandlers: Record<string, BuiltinHandler> = {
  "data.json_validate": jsonValidate,
  "data.json_format": jsonFormat,
  "data.json_minify": jsonMinify,
  "data.json_path": jsonPath,
  "data.json_diff": jsonDiff,
  "data.csv_to_json": csvToJson,
};
