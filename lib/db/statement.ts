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

type ColumnInfo = { name: string; numeric: boolean };
const tableColumns = new WeakMap<PgTable, Map<string, ColumnInfo>>();

function columnsOf(table: PgTable): Map<string, ColumnInfo> {
  let map = tableColumns.get(table);
  if (!map) {
    map = new Map();
    for (const [key, column] of Object.entries(getTableColumns(table))) {
      map.set(key, { name: column.name, numeric: column.columnType === "PgNumeric" });
    }
    tableColumns.set(table, map);
  }
  return map;
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
    json[column.name] = value instanceof Date ? value.toISOString() : column.numeric && typeof value === "number" ? String(value) : value;
    columns.push(column.name);
  }
  columns.sort();
  return { json, columns };
}

/** `"a", "b"` — a column list for statement text (names come from the schema, never from input). */
export function columnList(columns: readonly string[], prefix = ""): string {
  return columns.map((c) => `${prefix}"${c}"`).join(", ");
}
