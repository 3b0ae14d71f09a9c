import { SQL, getTableColumns, is, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";

/**
 * Column list and value list of one row for hand-written `INSERT ... SELECT` statements (used
 * where several writes must share one statement). A value may be SQL (e.g. `led.id` from a CTE);
 * json/jsonb values are serialised explicitly so arrays are not mistaken for PostgreSQL arrays.
 */
export function rowSql(table: PgTable, row: Record<string, unknown>): { columns: SQL; values: SQL } {
  const columns = getTableColumns(table);
  const names: SQL[] = [];
  const values: SQL[] = [];
  for (const [key, value] of Object.entries(row)) {
    if (value === undefined) continue;
    const column = columns[key];
    if (!column) throw new Error(`rowSql: ${key} is not a column`);
    names.push(sql`${sql.identifier(column.name)}`);
    if (is(value, SQL)) values.push(value);
    else if (column.dataType === "json") values.push(value === null ? sql`null` : sql`${JSON.stringify(value)}::jsonb`);
    else if (value instanceof Date) values.push(sql`${value.toISOString()}::timestamptz`);
    else if (column.columnType === "PgNumeric") values.push(sql`${value}::numeric`);
    else values.push(sql`${value}`);
  }
  return { columns: sql.join(names, sql`, `), values: sql.join(values, sql`, `) };
}

export function rows<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}
