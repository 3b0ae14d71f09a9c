// importCatalog: stores a validated manifest. Idempotent: the incoming rows are compared with the
// stored ones first and only those that differ are written (updated in place, updated_at bumped),
// so a re-import that changes nothing writes nothing, and the catalog version (bumped by a
// statement trigger on every write, even one of zero rows) stays as it was. Everything happens in
// one transaction so a failed import leaves the previous catalog untouched. Tools missing from a
// re-import are left as they are, unless the import retires them (`retireMissing`).
import { type SQL, and, eq, getTableColumns, getTableName, inArray, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { providers, tools } from "../db/schema";
import type { Db } from "../db/types";
import { own } from "../own";
import { rows as rowsOf } from "../db/row-sql";
import { type Manifest, type ProviderManifest, type ToolManifest, describeBillingRule } from "./manifest";

/** Rows per INSERT: ~25 columns × 500 stays far below PostgreSQL's 65,535 bind parameters. */
const BATCH_SIZE = 500;

export interface ImportOptions {
  /** Called after each batch with tools stored so far and the manifest's tool count. */
  onProgress?: (done: number, total: number) => void;
  /**
   * The manifest describes its providers whole (one API document): their active tools it no
   * longer lists are retired (kept, never searched, a Call answers tool_unavailable).
   */
  retireMissing?: boolean;
}

/** What an import did: tools new to the catalog, rewritten because something differed, left as they were, retired. */
export interface ImportResult {
  providers: number;
  tools: number;
  added: number;
  changed: number;
  unchanged: number;
  retired: number;
}

type ProviderRow = typeof providers.$inferInsert;
type ToolRow = typeof tools.$inferInsert;

export async function importCatalog(db: Db, manifest: Manifest, opts: ImportOptions = {}): Promise<ImportResult> {
  const providerRows = manifest.providers.map(providerRow);
  const toolRows = manifest.providers.flatMap((p) => p.tools.map((t) => toolRow(p, t)));
  let added = 0;
  let changed = 0;
  let retired = 0;
  await db.transaction(async (tx) => {
    for (const batch of chunks(providerRows)) {
      const differing = await differingRows(tx, providers, batch);
      if (differing.length === 0) continue;
      await tx.insert(providers).values(differing).onConflictDoUpdate({ target: providers.id, set: excludedSet(providers), setWhere: differs(providers) });
    }
    let done = 0;
    for (const batch of chunks(toolRows)) {
      const differing = await differingRows(tx, tools, batch);
      if (differing.length > 0) {
        // `setWhere` still guards a row another transaction wrote meanwhile; `xmax = 0` tells an insert from an update.
        const written = await tx
          .insert(tools)
          .values(differing)
          .onConflictDoUpdate({ target: tools.id, set: excludedSet(tools), setWhere: differs(tools) })
          .returning({ inserted: sql<boolean>`(xmax = 0)` });
        for (const row of written) {
          if (row.inserted) added++;
          else changed++;
        }
      }
      done += batch.length;
      opts.onProgress?.(done, toolRows.length);
    }
    if (opts.retireMissing) {
      const listed = JSON.stringify(toolRows.map((t) => t.id));
      const missing = and(
        inArray(
          tools.providerId,
          providerRows.map((p) => p.id),
        ),
        eq(tools.status, "active"),
        sql`${tools.id} NOT IN (SELECT jsonb_array_elements_text(${listed}::jsonb))`,
      );
      // Read first: an UPDATE of no rows would still bump the catalog version.
      const gone = await tx.select({ id: tools.id }).from(tools).where(missing);
      if (gone.length > 0) {
        await tx
          .update(tools)
          .set({ status: "retired", updatedAt: sql`now()` })
          .where(
            and(
              missing,
              inArray(
                tools.id,
                gone.map((t) => t.id),
              ),
            ),
          );
      }
      retired = gone.length;
    }
  });
  return { providers: providerRows.length, tools: toolRows.length, added, changed, unchanged: toolRows.length - added - changed, retired };
}

function providerRow(p: ProviderManifest): ProviderRow {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    i18n: p.i18n ?? {},
    categories: p.categories,
    transport: p.transport,
    baseUrl: p.base_url ?? null,
    auth: p.auth ?? null,
    connection: p.connection ?? null,
    regions: p.regions ?? null,
    allowPrivateNetwork: p.allow_private_network,
    source: p.source ?? null,
  };
}

function toolRow(p: ProviderManifest, t: ToolManifest): ToolRow {
  return {
    id: t.id,
    providerId: p.id,
    name: t.name,
    description: t.description,
    lang: t.lang,
    i18n: t.i18n ?? {},
    category: t.category ?? null,
    params: t.params,
    oneOfRequired: t.one_of_required ?? null,
    examples: t.examples ?? null,
    // A price hint derived from the rule keeps expected_cost and billing_rule from disagreeing.
    expectedCost: t.expected_cost ?? (t.billing_rule ? describeBillingRule(t.billing_rule, t.params) : null),
    billingRule: t.billing_rule ?? null,
    successRate: t.stats?.success_rate ?? null,
    avgExecutionTimeMs: t.stats?.avg_execution_time_ms ?? null,
    status: t.status,
    // No column for the provider's schema source: it travels with each tool's execution settings.
    execution: p.schema === "live" ? { ...t.execution, schema: "live" } : (t.execution ?? {}),
    timeoutMs: t.timeout_ms,
    regions: t.regions ?? null,
    cacheable: t.cacheable,
    cacheTtlSeconds: t.cache_ttl_seconds,
    source: t.source ?? p.source ?? null,
    searchText: searchText(p, t),
  };
}

/**
 * The text the search index is built from: names and descriptions in every language, parameter
 * names, descriptions and field names, the provider's name and the category. One piece a line,
 * duplicates removed (zh tools repeat their base text in i18n.zh).
 */
export function searchText(p: Pick<ProviderManifest, "name" | "i18n">, t: ToolManifest): string {
  const zh = t.i18n?.zh;
  const en = t.i18n?.en;
  const pieces = [
    t.name,
    zh?.name,
    en?.name,
    t.description,
    zh?.description,
    en?.description,
    ...t.params.flatMap((param) => [
      param.name,
      param.description,
      own(zh?.params, param.name),
      own(en?.params, param.name),
      param.properties?.join(" "),
    ]),
    p.name,
    p.i18n?.zh?.name,
    t.category,
  ];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const piece of pieces) {
    const s = piece?.replace(/\s+/g, " ").trim();
    if (s && !seen.has(s)) {
      seen.add(s);
      out.push(s);
    }
  }
  return out.join("\n");
}

function* chunks<T>(rows: T[]): Generator<T[]> {
  for (let i = 0; i < rows.length; i += BATCH_SIZE) yield rows.slice(i, i + BATCH_SIZE);
}

/** Columns an import writes: every one but the key and the timestamps. */
function contentColumns(table: PgTable): [string, string][] {
  return Object.entries(getTableColumns(table))
    .filter(([key]) => key !== "id" && key !== "createdAt" && key !== "updatedAt")
    .map(([key, column]) => [key, column.name]);
}

/** `SET col = excluded.col` for every content column; updated_at = now(). */
function excludedSet(table: PgTable): Record<string, SQL> {
  const set: Record<string, SQL> = { updatedAt: sql`now()` };
  for (const [key, name] of contentColumns(table)) set[key] = sql.raw(`excluded."${name}"`);
  return set;
}

/**
 * The incoming rows that are new or differ from the stored ones in some content column, found by
 * one read: the rows travel as JSON, typed by the table's own row type (`jsonb_populate_recordset`),
 * and are compared as `differs` compares them. A column left undefined (the database's default)
 * reads as NULL there: such a row counts as differing and is written, as before.
 */
async function differingRows<R extends { id: string }>(tx: Db, table: PgTable, rows: R[]): Promise<R[]> {
  const columns = Object.entries(getTableColumns(table)).filter(([key]) => key !== "createdAt" && key !== "updatedAt");
  const json = JSON.stringify(rows.map((row) => Object.fromEntries(columns.map(([key, column]) => [column.name, (row as Record<string, unknown>)[key]]))));
  const name = getTableName(table);
  const names = contentColumns(table).map(([, n]) => n);
  const result = await tx.execute(
    sql`SELECT i.id FROM jsonb_populate_recordset(NULL::${sql.raw(`"${name}"`)}, ${json}::jsonb) AS i LEFT JOIN ${sql.raw(`"${name}"`)} s ON s.id = i.id
        WHERE s.id IS NULL OR ${sql.raw(`(${names.map((n) => `s."${n}"`).join(", ")}) IS DISTINCT FROM (${names.map((n) => `i."${n}"`).join(", ")})`)}`,
  );
  const differing = new Set(rowsOf<{ id: string }>(result).map((r) => r.id));
  return rows.filter((row) => differing.has(row.id));
}

/** True when the stored row and the incoming one differ in some content column (jsonb compares by value). */
function differs(table: PgTable): SQL {
  const names = contentColumns(table).map(([, name]) => name);
  return sql.raw(`(${names.map((n) => `"${getTableName(table)}"."${n}"`).join(", ")}) IS DISTINCT FROM (${names.map((n) => `excluded."${n}"`).join(", ")})`);
}
