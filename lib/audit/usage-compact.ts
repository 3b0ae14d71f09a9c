import { type SQL, sql } from "drizzle-orm";

/**
 * A usage event's JSON columns repeat several of its own columns (`pre_settlement_bill.execution_id`
 * is `execution_id`, `execution_outcome.reason_code` is `reason_code`, ...). The copies are stored
 * once, in the column: a writer strips a key whose value equals its column (`compactUsageRow`), a
 * reader puts it back (`usageJsonSql`). Stored and read forms differ only by these keys, so the API
 * and the CSV export return exactly what was written, and a row written before compaction (keys
 * still present) reads the same. docs/audit.md, "Storage".
 *
 * A key is put back whenever its column is not null and the JSON is not null: every writer of the
 * product includes these keys (the contract's `settlement_result` always "contains
 * settled_amount_credits"), so the read form is the written one.
 */
type Kind = "text" | "credits" | "bool";
interface Repeat {
  key: string;
  column: string;
  kind: Kind;
  /** Only events of this type carry the key (another type's JSON has other keys). */
  eventType?: string;
}

const JSON_REPEATS = {
  pre_settlement_bill: [
    { key: "execution_id", column: "execution_id", kind: "text" },
    { key: "summary", column: "billing_summary", kind: "text" },
    { key: "list_amount_credits", column: "pre_settlement_amount_credits", kind: "credits" },
  ],
  settlement_result: [{ key: "settled_amount_credits", column: "settled_amount_credits", kind: "credits" }],
  execution_outcome: [
    { key: "outcome", column: "outcome", kind: "text" },
    { key: "reason_code", column: "reason_code", kind: "text" },
    { key: "charge_outcome", column: "charge_outcome", kind: "text" },
    { key: "cache_hit", column: "cache_hit", kind: "bool" },
  ],
  request_payload: [{ key: "tool_id", column: "tool_id", kind: "text", eventType: "tool_execute" }],
} satisfies Record<string, Repeat[]>;

export type CompactJsonColumn = keyof typeof JSON_REPEATS;

/** `source_ref_id` repeats the id its `source_ref_type` names; stored null when it does. */
const SOURCE_REF_COLUMN: Record<string, string> = { execution: "execution_id", search: "search_id" };

/** The row's fields as a writer builds them (drizzle's camelCase keys). */
type Row = Record<string, unknown>;
const camel = (column: string) => column.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

/** The rules with the row's field names worked out once (this runs for every event written). */
const FIELD_RULES = (Object.entries(JSON_REPEATS) as [CompactJsonColumn, Repeat[]][]).map(([column, repeats]) => ({
  field: camel(column),
  repeats: repeats.map((r) => ({ ...r, field: camel(r.column) })),
}));
const SOURCE_REF_FIELD: Record<string, string> = Object.fromEntries(Object.entries(SOURCE_REF_COLUMN).map(([type, column]) => [type, camel(column)]));

function sameValue(kind: Kind, jsonValue: unknown, columnValue: unknown): boolean {
  if (jsonValue === null || jsonValue === undefined || columnValue === null || columnValue === undefined) return false;
  if (kind === "credits") {
    // The read puts back trim_scale(column) as a JSON number: strip only when that prints the same.
    // Writers hold amounts as canonical decimal text (`creditsToSql`: no trailing zeros), which is
    // what trim_scale prints; any other text is simply kept.
    return typeof jsonValue === "number" && String(jsonValue) === columnValue;
  }
  return jsonValue === columnValue;
}

/** Makes a freshly built usage event row its stored form, in place: the keys that repeat a column are left out. */
export function compactUsageRow<T extends Row>(row: T): T {
  const out: Row = row;
  for (const { field, repeats } of FIELD_RULES) {
    const value = out[field];
    if (!value || typeof value !== "object" || Array.isArray(value)) continue;
    let kept: Row | null = null;
    for (const r of repeats) {
      if (r.eventType && out.eventType !== r.eventType) continue;
      if (!(r.key in value) || !sameValue(r.kind, (value as Row)[r.key], out[r.field])) continue;
      kept ??= { ...(value as Row) };
      delete kept[r.key];
    }
    if (kept) out[field] = kept;
  }
  const refField = typeof out.sourceRefType === "string" ? SOURCE_REF_FIELD[out.sourceRefType] : undefined;
  if (refField && out.sourceRefId != null && out.sourceRefId === out[refField]) out.sourceRefId = null;
  return out as T;
}

function repeatValue(r: Repeat, alias: string): string {
  const c = `${alias}.${r.column}`;
  const v = r.kind === "credits" ? `to_jsonb(trim_scale(${c}))` : `to_jsonb(${c})`;
  return r.eventType ? `CASE WHEN ${alias}.event_type = '${r.eventType}' THEN ${v} END` : v;
}

/** SQL text: the JSON column as written (its repeated keys put back), for a row aliased `alias`. */
export function usageJsonText(column: CompactJsonColumn, alias = "e"): string {
  const pairs = JSON_REPEATS[column].map((r: Repeat) => `'${r.key}', ${repeatValue(r, alias)}`).join(", ");
  // jsonb_strip_nulls drops the keys whose column is null (never stripped); the stored keys win.
  return `(jsonb_strip_nulls(jsonb_build_object(${pairs})) || ${alias}.${column})`;
}

/** jsonb prints an object's keys shortest first, then bytewise. */
const jsonbKeyOrder = (a: Repeat, b: Repeat) => a.key.length - b.key.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * SQL text: `usageJsonText(...)::text`, byte for byte, for the CSV export. Most stored values hold
 * no key but the repeatable ones (`{}` when every key repeated its column, or a key kept because it
 * differed); their text is put together directly, in jsonb's key order and formatting, each key's
 * value from the stored JSON when it is there, else from its column — skipping a jsonb object built,
 * merged and printed per row. Values with other keys take the jsonb path.
 */
export function usageJsonCsvText(column: CompactJsonColumn, alias = "e"): string {
  const col = `${alias}.${column}`;
  const rules = [...JSON_REPEATS[column]].sort(jsonbKeyOrder);
  const pieces = rules.map((r: Repeat) => {
    const c = `${alias}.${r.column}`;
    // NULL when the column is NULL, so concat_ws leaves the key out (as jsonb_strip_nulls does).
    const value = r.kind === "credits" ? `trim_scale(${c})::text` : r.kind === "bool" ? `${c}::text` : `to_json(${c})::text`;
    const derived = r.eventType ? `CASE WHEN ${alias}.event_type = '${r.eventType}' THEN ${value} END` : value;
    return `'"${r.key}": ' || CASE WHEN ${col} ? '${r.key}' THEN (${col}->'${r.key}')::text ELSE ${derived} END`;
  });
  const keys = rules.map((r) => `'${r.key}'`).join(", ");
  const jsonb = `${usageJsonText(column, alias)}::text`;
  // A value that is not an object (no writer stores one) takes the jsonb path before `-`, which fails on a scalar.
  return `CASE WHEN ${col} IS NULL THEN NULL WHEN jsonb_typeof(${col}) <> 'object' THEN ${jsonb} WHEN (${col} - ARRAY[${keys}]) = '{}'::jsonb THEN '{' || concat_ws(', ', ${pieces.join(", ")}) || '}' ELSE ${jsonb} END`;
}

/**
 * SQL text: the stored form of a JSON column of a row aliased `alias` that holds the full form —
 * for writers that build the row in SQL (the reservation sweeper, the benchmark's bulk load).
 * Compares JSON text, so a key is left out only when the read puts back the same text.
 */
export function compactJsonText(column: CompactJsonColumn, alias: string): string {
  const keys = JSON_REPEATS[column].map((r: Repeat) => `CASE WHEN (${alias}.${column}->'${r.key}')::text = (${repeatValue(r, alias)})::text THEN '${r.key}' END`);
  return `(${alias}.${column} - array_remove(ARRAY[${keys.join(", ")}], NULL))`;
}

/** SQL text: the stored `source_ref_id` of a row aliased `alias` that holds the full form. */
export function compactSourceRefIdText(alias: string): string {
  return `CASE WHEN ${alias}.source_ref_id = ${sourceRefIdText(alias, true)} THEN NULL ELSE ${alias}.source_ref_id END`;
}

/** SQL text: `source_ref_id` as written. */
export function sourceRefIdText(alias = "e", derivedOnly = false): string {
  const cases = Object.entries(SOURCE_REF_COLUMN)
    .map(([type, column]) => `WHEN '${type}' THEN ${alias}.${column}`)
    .join(" ");
  const derived = `CASE ${alias}.source_ref_type ${cases} END`;
  return derivedOnly ? `(${derived})` : `coalesce(${alias}.source_ref_id, ${derived})`;
}

/** The same, as drizzle fragments. */
export const usageJson = (column: CompactJsonColumn, alias = "e"): SQL => sql.raw(usageJsonText(column, alias));
export const usageJsonCsv = (column: CompactJsonColumn, alias = "e"): SQL => sql.raw(usageJsonCsvText(column, alias));
export const sourceRefId = (alias = "e"): SQL => sql.raw(sourceRefIdText(alias));
