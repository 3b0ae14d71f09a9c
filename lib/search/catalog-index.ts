// The in-memory catalog behind Discover and Inspect: the active tools with everything a result
// shows, and the ranking index built from them. One snapshot per database handle; it is rebuilt
// when `catalog_state.version` (bumped by triggers on every write to tools or providers, in the
// writing transaction) differs from the version it was built from. Callers read the version on
// each request (`readCatalogVersionAndCredits`), so a change committed
// by any instance is seen by the next search on every instance.
import { eq, sql } from "drizzle-orm";
import { catalogState, creditBalances, providers, tools } from "../db/schema";
import type { Db } from "../db/types";
import { statementName } from "../db/statement";
import type { BillingRule, ToolLang, ToolParam } from "../catalog/manifest";
import { SearchIndex, analyzeDocument, type AnalyzedDocument, type IndexDocument } from "./ranker";

interface LocalizedTexts {
  name?: string;
  description?: string;
  params?: Record<string, string>;
}

/** An active tool with its provider's display texts: all a Discover or Inspect result needs. */
export interface CatalogTool {
  id: string;
  name: string;
  description: string;
  lang: ToolLang;
  i18n: Partial<Record<ToolLang, LocalizedTexts>>;
  category: string | null;
  params: ToolParam[];
  oneOfRequired: string[][] | null;
  examples: { sample_parameters: Record<string, unknown> } | null;
  expectedCost: string | null;
  billingRule: BillingRule | null;
  successRate: number | null;
  avgExecutionTimeMs: number | null;
  source: string | null;
  updatedAt: Date;
  providerId: string;
  providerName: string;
  providerI18n: Partial<Record<ToolLang, { name?: string }>>;
  /** An http tool's path template (`/movie/{movie_id}/credits`): its words say what the operation is about. */
  httpPath: string | null;
}

export interface CatalogSnapshot {
  version: number;
  tools: readonly CatalogTool[];
  byId: ReadonlyMap<string, CatalogTool>;
  /** Lower-cased tool names, for an exact-name match ahead of ranking. */
  byName: ReadonlyMap<string, readonly CatalogTool[]>;
  /** Index of every active tool, built on first use (in slices: other requests run meanwhile). */
  index(): Promise<SearchIndex>;
  /** Index of one `source` alone (its own catalog: its own term statistics), built on first use. */
  sourceIndex(source: string): Promise<{ index: SearchIndex; tools: readonly CatalogTool[] } | null>;
}

interface State {
  snapshot?: CatalogSnapshot;
  pending?: { version: number; promise: Promise<CatalogSnapshot> };
}

const states = new WeakMap<Db, State>();

function versionAndCreditsQuery(db: Db) {
  const accountId = sql.placeholder("accountId");
  const available = sql<string | null>`(select ${creditBalances.paidCredits} + ${creditBalances.bonusCredits} + ${creditBalances.rewardCredits} - ${creditBalances.reservedCredits}
      from ${creditBalances} where ${creditBalances.accountId} = ${accountId})`;
  return db.select({ version: catalogState.version, available }).from(catalogState).where(eq(catalogState.id, 1)).prepare(statementName("tg_catalog_version_credits"));
}

// Prepared once per handle: this runs on every Discover and Inspect, and building the query is
// a measurable share of a search's CPU time.
const preparedReads = new WeakMap<Db, ReturnType<typeof versionAndCreditsQuery>>();

/**
 * The catalog version and the account's available credits (null without a balance row) in one
 * round trip: every Discover and Inspect needs both.
 */
export async function readCatalogVersionAndCredits(db: Db, accountId: string): Promise<{ version: number; available: string | null }> {
  let query = preparedReads.get(db);
  if (!query) preparedReads.set(db, (query = versionAndCreditsQuery(db)));
  const rows = await query.execute({ accountId });
  return { version: Number(rows[0]?.version ?? 0), available: rows[0]?.available ?? null };
}

/**
 * The snapshot for `version`: the cached one when current, else one rebuild shared by every
 * concurrent caller (single flight). A rebuild waits for the new data rather than serving the old
 * snapshot, so a retired tool disappears from the very next search.
 */
export async function catalogSnapshot(db: Db, version: number): Promise<CatalogSnapshot> {
  let state = states.get(db);
  if (!state) states.set(db, (state = {}));
  if (state.snapshot && state.snapshot.version >= version) return state.snapshot;
  if (state.pending && state.pending.version >= version) return state.pending.promise;
  const s = state;
  const promise = loadSnapshot(db).then(
    (snapshot) => {
      if (!s.snapshot || snapshot.version >= s.snapshot.version) s.snapshot = snapshot;
      if (s.pending?.promise === promise) s.pending = undefined;
      return snapshot;
    },
    (err: unknown) => {
      if (s.pending?.promise === promise) s.pending = undefined;
      throw err;
    },
  );
  s.pending = { version, promise };
  return promise;
}

async function loadSnapshot(db: Db): Promise<CatalogSnapshot> {
  // One repeatable-read transaction: the version read belongs to exactly these rows.
  const { version, rows } = await db.transaction(
    async (tx) => {
      const v = await tx.select({ version: catalogState.version }).from(catalogState).where(eq(catalogState.id, 1));
      // Only what results show and the index reads (not execution settings or search_text).
      const r = await tx
        .select({
          tool: {
            id: tools.id,
            name: tools.name,
            description: tools.description,
            lang: tools.lang,
            i18n: tools.i18n,
            category: tools.category,
            params: tools.params,
            oneOfRequired: tools.oneOfRequired,
            examples: tools.examples,
            expectedCost: tools.expectedCost,
            billingRule: tools.billingRule,
            successRate: tools.successRate,
            avgExecutionTimeMs: tools.avgExecutionTimeMs,
            source: tools.source,
            updatedAt: tools.updatedAt,
            providerId: tools.providerId,
            httpPath: sql<string | null>`${tools.execution}->>'path'`,
          },
          providerName: providers.name,
          providerI18n: providers.i18n,
        })
        .from(tools)
        .innerJoin(providers, eq(providers.id, tools.providerId))
        .where(eq(tools.status, "active"))
        .orderBy(sql`${tools.id}`);
      return { version: Number(v[0]?.version ?? 0), rows: r };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
  const list: CatalogTool[] = rows.map(({ tool, providerName, providerI18n }) => ({
    id: tool.id,
    name: tool.name,
    description: tool.description,
    lang: tool.lang === "zh" ? "zh" : "en",
    i18n: (tool.i18n ?? {}) as CatalogTool["i18n"],
    category: tool.category,
    params: (tool.params ?? []) as ToolParam[],
    oneOfRequired: (tool.oneOfRequired as string[][] | null) ?? null,
    examples: (tool.examples as CatalogTool["examples"]) ?? null,
    expectedCost: tool.expectedCost,
    billingRule: (tool.billingRule as BillingRule | null) ?? null,
    successRate: tool.successRate,
    avgExecutionTimeMs: tool.avgExecutionTimeMs,
    source: tool.source,
    updatedAt: tool.updatedAt,
    providerId: tool.providerId,
    providerName,
    providerI18n: (providerI18n ?? {}) as CatalogTool["providerI18n"],
    httpPath: tool.httpPath ?? null,
  }));
  return buildSnapshot(version, list);
}

async function buildSnapshot(version: number, list: CatalogTool[]): Promise<CatalogSnapshot> {
  const byId = new Map(list.map((t) => [t.id, t]));
  const byName = new Map<string, CatalogTool[]>();
  for (const t of list) {
    for (const name of new Set([t.name, t.i18n.en?.name, t.i18n.zh?.name])) {
      if (!name) continue;
      const key = normalizeName(name);
      const same = byName.get(key);
      if (same) same.push(t);
      else byName.set(key, [t]);
    }
  }
  // Tokenising is most of an index's cost: done once per tool, shared by every index, in slices
  // that let other requests run in between (a 4,000-tool catalog takes about half a second).
  const analyzed: AnalyzedDocument[] = [];
  for (const t of list) {
    analyzed.push(analyzeDocument(indexDocument(t)));
    if (analyzed.length % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  let whole: Promise<SearchIndex> | undefined;
  const perSource = new Map<string, Promise<{ index: SearchIndex; tools: CatalogTool[] } | null>>();
  return {
    version,
    tools: list,
    byId,
    byName,
    index: () => (whole ??= SearchIndex.build(analyzed)),
    sourceIndex(source) {
      let pending = perSource.get(source);
      if (!pending) {
        const positions = list.flatMap((t, i) => (t.source === source ? [i] : []));
        // Unknown sources are not remembered: a client could otherwise grow this map at will.
        if (positions.length === 0) return Promise.resolve(null);
        pending = SearchIndex.build(positions.map((i) => analyzed[i])).then((index) => ({ index, tools: positions.map((i) => list[i]) }));
        perSource.set(source, pending);
      }
      return pending;
    },
  };
}

export function normalizeName(name: string): string {
  return name.trim().toLowerCase();
}

function distinct(values: (string | null | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === "string" && v.trim() !== ""))];
}

/**
 * Example clauses of parameter descriptions ("e.g., 'Paris, France'", "例如：主菜"): sample values
 * are weaker evidence of what a tool does than the rest of the text, so they get a field of
 * their own with a lower weight.
 */
const EXAMPLE_CLAUSE = /(\be\.g\.|\bfor example\b|\bsuch as\b|例如|比如)[^.;)。；）]*/gi;

/** The ranker's view of a tool: every language's texts, per field. */
/** The literal segments of a path template, as words: `/movie/{movie_id}/credits` → "movie credits". */
function pathWords(path: string | null): string {
  return (path ?? "").split("/").filter((s) => s && !s.includes("{")).join(" ");
}

export function indexDocument(t: CatalogTool): IndexDocument {
  const localized = [t.i18n.en, t.i18n.zh];
  const paramTexts = distinct(t.params.flatMap((p) => [p.description, ...localized.map((l) => l?.params?.[p.name])]));
  return {
    id: t.id,
    successRate: t.successRate,
    inputs: t.params.filter((p) => p.required).map((p) => p.name),
    documentedParams: t.params
      .filter((p) => p.description.trim() !== "" || p.enum || p.properties?.length || p.items?.enum || p.items?.properties?.length)
      .flatMap((p) => [p.name, ...(p.properties ?? []), ...(p.items?.properties ?? [])]),
    fields: {
      // An operation's path names what it is about where its summary does not ("Get Details" of /movie/{movie_id}).
      name: distinct([t.name, ...localized.map((l) => l?.name), pathWords(t.httpPath)]),
      description: distinct([t.description, ...localized.map((l) => l?.description)]),
      params: distinct(t.params.flatMap((p) => [p.name, ...(p.properties ?? []), ...(p.items?.properties ?? [])])),
      paramText: [
        ...paramTexts.map((text) => text.replace(EXAMPLE_CLAUSE, " ")),
        ...distinct(t.params.flatMap((p) => [...(p.enum ?? []), ...(p.items?.enum ?? [])].filter((v): v is string => typeof v === "string"))),
      ],
      examples: paramTexts.flatMap((text) => text.match(EXAMPLE_CLAUSE) ?? []),
      category: distinct([t.category]),
      provider: distinct([t.providerName, t.providerI18n.en?.name, t.providerI18n.zh?.name]),
    },
  };
}
