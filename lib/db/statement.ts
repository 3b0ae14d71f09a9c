import crypto from "node:crypto";
import { getTableColumns } from "drizzle-orm";
import type { PgDialect, PgSession, PgTable } from "drizzle-orm/pg-core";
import type { Db } from "./types";

/**
 * A minimal SQL builder for the hand-written, multi-CTE statements of the money path (a Call's
 * reserve / record / settle, a priced search's debit). Those statements carry ~80 parameters
 * and run on every Call: building them with drizzle's `sql` objects (an entity check on every
 * chunk) was about a fifth of a Call's CPU. A Stmt is a template: text pieces around values,
 * where a value is either a nested Stmt (inlined) or a parameter (sent as `$n`, never inlined).
 */
export class Stmt {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

/** Tagged template: `q\`SELECT ${param} FROM ${nestedStmt}\``. */
export function q(strings: TemplateStringsArray, ...values: unknown[]): Stmt {
  return new Stmt(strings, values);
}

/** Trusted SQL text (never user input). */
export function raw(text: string): Stmt {
  return new Stmt([text], []);
}

export function ident(name: string): Stmt {
  return raw(`"${name.replaceAll('"', '""')}"`);
}

export function joinStmts(list: readonly Stmt[], separator = ", "): Stmt {
  if (list.length === 0) return raw("");
  return new Stmt(["", ...Array<string>(list.length - 1).fill(separator), ""], list);
}

/** Statement text with `$1..$n` placeholders and its parameters (undefined is sent as NULL). */
export function toQuery(stmt: Stmt): { sql: string; params: unknown[] } {
  let text = "";
  const params: unknown[] = [];
  const walk = (s: Stmt) => {
    const n = s.values.length;
    for (let i = 0; i < n; i++) {
      text += s.strings[i];
      const value = s.values[i];
      if (value instanceof Stmt) walk(value);
      else {
        params.push(value === undefined ? null : value);
        text += `$${params.length}`;
      }
    }
    text += s.strings[n];
  };
  walk(stmt);
  return { sql: text, params };
}

type ColumnKind = "json" | "numeric" | "plain";
const tableColumns = new WeakMap<PgTable, Map<string, { name: string; kind: ColumnKind }>>();

function columnsOf(table: PgTable) {
  let map = tableColumns.get(table);
  if (!map) {
    map = new Map();
    for (const [key, column] of Object.entries(getTableColumns(table))) {
      const kind: ColumnKind = column.dataType === "json" ? "json" : column.columnType === "PgNumeric" ? "numeric" : "plain";
      map.set(key, { name: `"${column.name.replaceAll('"', '""')}"`, kind });
    }
    tableColumns.set(table, map);
  }
  return map;
}

/**
 * Column list and value list of one row (keyed by the table's property names; undefined values
 * are left out) for hand-written `INSERT ... SELECT` statements. A value may be a Stmt (e.g.
 * `led.id` from a CTE). json/jsonb values are serialised explicitly so arrays are not mistaken
 * for PostgreSQL arrays; dates are sent as ISO text, numerics as exact decimal text.
 */
export function rowStmt(table: PgTable, row: Record<string, unknown>): { columns: Stmt; values: Stmt; pairs: Stmt } {
  const columns = columnsOf(table);
  const names: string[] = [];
  const valueStrings: string[] = [""];
  const values: unknown[] = [];
  const pairStrings: string[] = [""];
  for (const key in row) {
    const value = row[key];
    if (value === undefined) continue;
    const column = columns.get(key);
    if (!column) throw new Error(`rowStmt: ${key} is not a column`);
    const separator = names.length === 0 ? "" : ", ";
    names.push(column.name);
    let suffix = "";
    let param: unknown = value;
    if (value instanceof Stmt) param = value;
    else if (column.kind === "json") {
      if (value === null) param = raw("null");
      else {
        param = JSON.stringify(value);
        suffix = "::jsonb";
      }
    } else if (value instanceof Date) {
      param = value.toISOString();
      suffix = "::timestamptz";
    } else if (column.kind === "numeric") suffix = "::numeric";
    valueStrings[valueStrings.length - 1] += separator;
    valueStrings.push(suffix);
    pairStrings[pairStrings.length - 1] += `${separator}${column.name} = `;
    pairStrings.push(suffix);
    values.push(param);
  }
  return { columns: raw(names.join(", ")), values: new Stmt(valueStrings, values), pairs: new Stmt(pairStrings, values) };
}

const statementNames = new Map<string, string>();

/**
 * Runs a Stmt as a named prepared statement: these statements' text (~4 KB) is the same from call
 * to call, so PostgreSQL parses and plans each once per connection instead of every time. The
 * name is a hash of the text, so two texts can never share a name. Works on a db or a transaction.
 */
export function runStatement(db: Db, stmt: Stmt): Promise<{ rows: unknown[] }> {
  const { session } = db as unknown as { dialect: PgDialect; session: PgSession };
  const built = toQuery(stmt);
  let name = statementNames.get(built.sql);
  if (!name) {
    name = `tg_${crypto.createHash("sha1").update(built.sql).digest("hex").slice(0, 20)}`;
    if (statementNames.size > 1_000) statementNames.clear();
    statementNames.set(built.sql, name);
  }
  return session.prepareQuery(built, undefined, name, false).execute() as Promise<{ rows: unknown[] }>;
}
