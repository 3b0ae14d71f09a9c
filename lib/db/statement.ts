import crypto from "node:crypto";
import { getTableColumns } from "drizzle-orm";
import type { PgDialect, PgSession, PgTable } from "drizzle-orm/pg-core";
import type { Db } from "./types";
import { env } from "../env";

/**
 * The hand-written statements of the money path (a Call's reserve / record / settle, a priced
 * search's debit) have constant text and take their rows as one JSON document
 * (`jsonb_populate_record`), so a Call's statement is built by one `JSON.stringify`, and
 * PostgreSQL parses and plans it once per connection.
 */

const statementNames = new Map<string, string>();

/**
 * A statement's name, or "" (unnamed: parsed per execution) when DATABASE_PREPARED_STATEMENTS is
 * false — behind a transaction-mode pooler such as PgBouncer before 1.21, where consecutive
 * transactions of one client may run on different server connections (docs/deployment.md).
 */
export function statementName(name: string): string {
  return env().DATABASE_PREPARED_STATEMENTS === "true" ? name : "";
}

/**
 * Runs constant SQL text with parameters as a named prepared statement (the name is a hash of the
 * text, so two texts never share a name). Works on a db or a transaction.
 */
export function runQuery(db: Db, text: string, params: unknown[]): Promise<{ rows: unknown[] }> {
  const { session } = db as unknown as { dialect: PgDialect; session: PgSession };
  let name = statementNames.get(text);
  if (!name) {
    name = `tg_${crypto.createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    if (statementNames.size > 1_000) statementNames.clear();
    statementNames.set(text, name);
  }
  return session.prepareQuery({ sql: text, params }, undefined, statementName(name), false).execute() as Promise<{ rows: unknown[] }>;
}

type ColumnInfo = { key: string; name: string; numeric: boolean; /** `"name":`, this column's key in JSON text. */ prefix: string };
const tableColumns = new WeakMap<PgTable, Map<string, ColumnInfo>>();
/** A table's columns ordered by column name, as `columns.sort()` orders them. */
const sortedColumns = new WeakMap<PgTable, ColumnInfo[]>();

function columnsOf(table: PgTable): Map<string, ColumnInfo> {
  let map = tableColumns.get(table);
  if (!map) {
    map = new Map();
    for (const [key, column] of Object.entries(getTableColumns(table))) {
      map.set(key, { key, name: column.name, numeric: column.columnType === "PgNumeric", prefix: `${JSON.stringify(column.name)}:` });
    }
    tableColumns.set(table, map);
    const byName = [...map.values()];
    const names = byName.map((c) => c.name).sort();
    sortedColumns.set(table, names.map((name) => byName.find((c) => c.name === name)!));
  }
  return map;
}

/** A row value as `columnJson` puts it into JSON. */
function columnValue(column: ColumnInfo, value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : column.numeric && typeof value === "number" ? String(value) : value;
}

/**
 * A row (keyed by the table's property names) as JSON keyed by column names, for
 * `jsonb_populate_record(NULL::table, json)`: dates as ISO text, numerics as exact decimal text,
 * json columns as nested JSON. Undefined values are left out (the column keeps its default), so the
 * sorted key list (`columns`) is what a statement's column list must name.
 */
export function columnJson(table: PgTable, row: Record<string, unknown>): { json: Record<string, unknown>; columns: string[] } {
  const info = columnsOf(table);
  const json: Record<string, unknown> = {};
  const columns: string[] = [];
  for (const key in row) {
    const value = row[key];
    if (value === undefined) continue;
    const column = info.get(key);
    if (!column) throw new Error(`columnJson: ${key} is not a column`);
    json[column.name] = columnValue(column, value);
    columns.push(column.name);
  }
  columns.sort();
  return { json, columns };
}

/** Characters JSON.stringify escapes in a string (and lone surrogates, which it writes as \u escapes). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(value)`, without its call for the common scalars. */
function valueJson(value: unknown): string | undefined {
  if (value === null) return "null";
  if (typeof value === "string") return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
  if (typeof value === "boolean") return value ? "true" : "false";
  return JSON.stringify(value) as string | undefined;
}

/**
 * JSON text that `jobsJson` copies as it is: a row already serialised by `columnJsonText`.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * `columnJson`, with the row serialised at once: the same columns, and JSON text that parses to
 * the same object (`JSON.parse(json.text)` equals `columnJson(...).json`; keys in column-name
 * order). `columnsKey` names the column list with one character per column of this table: equal
 * keys, equal lists. Writing the text directly skips an object of 20-40 keys added one by one
 * (V8 keeps it as a slow dictionary) and its serialisation later: measured in a CPU profile of
 * `npm run bench:call`, this halves what a Call spends on building its statements' JSON.
 */
export function columnJsonText(table: PgTable, row: Record<string, unknown>): { json: JsonText; columns: string[]; columnsKey: string } {
  const info = columnsOf(table);
  let defined = 0;
  for (const key in row) if (row[key] !== undefined) defined++;
  const columns: string[] = [];
  let columnsKey = "";
  let text = "";
  const sorted = sortedColumns.get(table)!;
  for (let i = 0; i < sorted.length; i++) {
    const column = sorted[i];
    const value = row[column.key];
    if (value === undefined) continue;
    columns.push(column.name);
    columnsKey += String.fromCharCode(256 + i);
    // JSON.stringify leaves out of an object a property it cannot serialise (a function, a symbol).
    const valueText = valueJson(columnValue(column, value));
    if (valueText === undefined) continue;
    text += (text === "" ? "{" : ",") + column.prefix + valueText;
  }
  if (columns.length !== defined) {
    for (const key in row) {
      if (row[key] !== undefined && !info.has(key)) throw new Error(`columnJson: ${key} is not a column`);
    }
  }
  return { json: new JsonText(text === "" ? "{}" : `${text}}`), columns, columnsKey };
}

/**
 * `JSON.stringify(value)` for a plain object whose properties may hold `JsonText` (copied as it is).
 */
export function jobJson(value: object): string {
  const record = value as Record<string, unknown>;
  let text = "";
  for (const key in record) {
    const v = record[key];
    const valueText = v instanceof JsonText ? v.text : valueJson(v);
    if (valueText === undefined) continue;
    text += (text === "" ? "{" : ",") + JSON.stringify(key) + ":" + valueText;
  }
  return text === "" ? "{}" : `${text}}`;
}

/** `JSON.stringify(values)` for an array of such objects (`jobJson`): one JSON document for a statement's parameter. */
export function jobsJson(values: readonly object[]): string {
  let out = "[";
  for (let i = 0; i < values.length; i++) out += (i > 0 ? "," : "") + jobJson(values[i]);
  return `${out}]`;
}

/** `"a", "b"` — a column list for statement text (names come from the schema, never from input). */
export function columnList(columns: readonly string[], prefix = ""): string {
  return columns.map((c) => `${prefix}"${c}"`).join(", ");
}
