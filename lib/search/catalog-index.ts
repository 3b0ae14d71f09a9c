// The in-memory catalog behind Discover and Inspect: the active tools with everything a result
// shows, and the ranking indexes built from them. One snapshot per database handle, replaced when
// `catalog_state.version` (bumped by triggers on every write to tools or providers, in the
// writing transaction) differs from the version it was built from. Callers read the version on
// each request (`readCatalogVersionAndCredits`), so a change committed by any instance is seen by
// the next search on every instance.
//
// A new version costs what changed, not the whole catalog: the snapshot reads again only the tools
// whose row (or provider's row) was written since the previous one was read (their `xmin` not
// visible in its database snapshot), and tokenises them when an index needs them; the others keep
// their records and analysed documents. An index
// whose tools are all unchanged is reused as it is. One that changed is rebuilt: on the request path
// when it is small, else in the background while the last built index answers, its results mapped
// to the new snapshot's records (a tool no longer active is never returned; a new tool is found by
// its id or name at once, by its words once the new index is built).
import { eq, sql } from "drizzle-orm";
import { accounts, catalogState, creditBalances, providers, tools } from "../db/schema";
import type { Db } from "../db/types";
import { own } from "../own";
import { statementName } from "../db/statement";
import type { BillingRule, HttpCredential, ProviderAuth, ProviderConnection, ToolLang, ToolParam } from "../catalog/manifest";
import { takesConnection } from "../providers/http-credentials";
import { releaseReplacedIndexSoon } from "./release-replaced";
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
  /** An http tool's method (`GET`, `POST`, …): what the operation does to what its path names. */
  httpMethod: string | null;
  /** The caller's own connection a Call needs (docs/connections.md); null: none. */
  connection: { kind: "oauth2" | "secret"; scopes: string[] } | null;
  /** Regions where the tool may be called (its own, else its provider's); null: everywhere. */
  regions: string[] | null;
}

/**
 * A ranking index and the tools at its positions. `tools[i]` is this snapshot's record of the tool
 * the index holds at position i, or undefined where that tool is no longer active (or no longer of
 * the source): an earlier index answering while this snapshot's own one is built.
 */
export interface RankingPool {
  index: SearchIndex;
  tools: readonly (CatalogTool | undefined)[];
  /** Built from exactly this snapshot's tools. */
  current: boolean;
}

export interface CatalogSnapshot {
  version: number;
  tools: readonly CatalogTool[];
  byId: ReadonlyMap<string, CatalogTool>;
  /** Lower-cased tool names, for an exact-name match ahead of ranking. */
  byName: ReadonlyMap<string, readonly CatalogTool[]>;
  /** The `source` values of the active tools. */
  sources: ReadonlySet<string>;
  /**
   * The index of every active tool, or with `source` of that source's alone (its own catalog: its
   * own term statistics); null for a source no active tool has. Built on first use.
   */
  pool(source?: string): Promise<RankingPool | null>;
  /** Settles when the indexes this snapshot is building in the background are built (benches, tests). */
  settled(): Promise<void>;
}

/**
 * An index this large or smaller is rebuilt on the request that needs it (about 0.1-0.2 ms a tool:
 * well within a search's budget); a larger one in the background while the last one answers.
 */
const SYNC_BUILD_MAX_TOOLS = 1_000;
const BACKGROUND_START_DELAY_MS = 50;
/** The key of the whole catalog's index among the per-source ones. */
const WHOLE = "\u0000all";

interface Entry {
  tool: CatalogTool;
  /** Tokenised when an index first needs it (off the request path when that index builds in the background). */
  analyzed?: AnalyzedDocument;
}

/** An index as built, with the documents and tool ids at its positions. */
interface BuiltIndex {
  version: number;
  entries: readonly Entry[];
  ids: readonly string[];
  index: SearchIndex;
}

interface PoolState {
  entries: Entry[];
  tools: CatalogTool[];
  index?: SearchIndex;
  build?: Promise<SearchIndex | null>;
  /** The last built index mapped to this snapshot's records, while `index` is being built. */
  stale?: { of: BuiltIndex; tools: (CatalogTool | undefined)[] };
}

interface Snapshot extends CatalogSnapshot {
  entries: ReadonlyMap<string, Entry>;
  /** The database snapshot (`pg_current_snapshot()`) the tools were read in: a later read takes the rows written since. */
  seen: string;
}

interface State {
  snapshot?: Snapshot;
  pending?: { version: number; promise: Promise<Snapshot> };
  /** Per index (whole catalog or a source), the newest one built: it answers while a newer one builds. */
  built: Map<string, BuiltIndex>;
  /** Per index, the build in progress: one at a time, so two quick changes never build in parallel. */
  building: Map<string, Promise<unknown>>;
}

const states = new WeakMap<Db, State>();

function versionAndCreditsQuery(db: Db) {
  const accountId = sql.placeholder("accountId");
  const available = sql<string | null>`(select ${creditBalances.paidCredits} + ${creditBalances.bonusCredits} + ${creditBalances.rewardCredits} - ${creditBalances.reservedCredits}
      from ${creditBalances} where ${creditBalances.accountId} = ${accountId})`;
  const region = sql<string | null>`(select ${accounts.region} from ${accounts} where ${accounts.id} = ${accountId})`;
  return db.select({ version: catalogState.version, available, region }).from(catalogState).where(eq(catalogState.id, 1)).prepare(statementName("tg_catalog_version_credits_region"));
}

// Prepared once per handle: this runs on every Discover and Inspect, and building the query is
// a measurable share of a search's CPU time.
const preparedReads = new WeakMap<Db, ReturnType<typeof versionAndCreditsQuery>>();

/**
 * The catalog version and the account's available credits (null without a balance row) in one
 * round trip: every Discover and Inspect needs both.
 */
export async function readCatalogVersionAndCredits(db: Db, accountId: string): Promise<{ version: number; available: string | null; region: string | null }> {
  let query = preparedReads.get(db);
  if (!query) preparedReads.set(db, (query = versionAndCreditsQuery(db)));
  const rows = await query.execute({ accountId });
  return { version: Number(rows[0]?.version ?? 0), available: rows[0]?.available ?? null, region: rows[0]?.region ?? null };
}

/**
 * The snapshot for `version`: the cached one when current, else one load shared by every
 * concurrent caller (single flight). A load waits for the new data rather than serving the old
 * snapshot, so a retired tool disappears from the very next search.
 */
export async function catalogSnapshot(db: Db, version: number): Promise<CatalogSnapshot> {
  let state = states.get(db);
  if (!state) states.set(db, (state = { built: new Map(), building: new Map() }));
  if (state.snapshot && state.snapshot.version >= version) return state.snapshot;
  if (state.pending && state.pending.version >= version) return state.pending.promise;
  const s = state;
  const promise = loadSnapshot(db, s).then(
    (snapshot) => {
      if (!s.snapshot || snapshot.version >= s.snapshot.version) s.snapshot = snapshot;
      if (s.pending?.promise === promise) s.pending = undefined;
      // An index of a source that has no active tool left answers nothing any more.
      for (const key of s.built.keys()) if (key !== WHOLE && !s.snapshot.sources.has(key)) s.built.delete(key);
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

/** Only what results show and the index reads (not execution settings or search_text). */
function selectTools(tx: Db) {
  return tx
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
        httpMethod: sql<string | null>`${tools.execution}->>'method'`,
        security: sql<unknown>`${tools.execution}->'security'`,
        regions: sql<string[] | null>`coalesce(${tools.regions}, ${providers.regions})`,
      },
      providerAuth: providers.auth,
      providerConnection: providers.connection,
      active: sql<boolean>`${tools.status} = 'active'`,
      providerName: providers.name,
      providerI18n: providers.i18n,
    })
    .from(tools)
    .innerJoin(providers, eq(providers.id, tools.providerId));
}

type ToolRow = Awaited<ReturnType<typeof selectTools>>[number];

/**
 * Whether a row version (`xmin`) was written by a transaction the snapshot `seen` did not see:
 * committed after it was taken, or in progress then. `xmin` is 32 bits; the snapshot functions
 * take the 64-bit id, whose epoch is that of `top` (the reading snapshot's upper bound), or the
 * one before when the low bits are past it.
 */
function unseen(xmin: string, seen: string, top: string) {
  const id = sql`((${top}::bigint & ~4294967295::bigint) | ${sql.raw(xmin)}::text::bigint)`;
  return sql`NOT pg_visible_in_snapshot((CASE WHEN ${id} >= ${top}::bigint THEN ${id} - 4294967296 ELSE ${id} END)::text::xid8, ${seen}::pg_snapshot)`;
}

/**
 * The tools of a new snapshot. With a previous one, only the rows written since it was read (the
 * tool's or its provider's) are read and tokenised again; the rest keep their entries. Tools are
 * never deleted by Tollgate (retired instead): should the active count still disagree, the whole
 * catalog is read again.
 */
async function loadSnapshot(db: Db, state: State, previous = state.snapshot): Promise<Snapshot> {
  // One repeatable-read transaction: the version and the snapshot id belong to exactly these rows.
  const { version, seen, activeCount, rows } = await db.transaction(
    async (tx) => {
      const [head] = await tx
        .select({
          version: catalogState.version,
          seen: sql<string>`pg_current_snapshot()::text`,
          top: sql<string>`pg_snapshot_xmax(pg_current_snapshot())::text`,
          activeCount: sql<number>`(SELECT count(*) FROM ${tools} WHERE ${tools.status} = 'active')::int`,
        })
        .from(catalogState)
        .where(eq(catalogState.id, 1));
      const top = head?.top ?? "0";
      const changed = previous ? sql`${unseen(`"tools".xmin`, previous.seen, top)} OR ${unseen(`"providers".xmin`, previous.seen, top)}` : eq(tools.status, "active");
      return { version: Number(head?.version ?? 0), seen: head?.seen ?? "", activeCount: Number(head?.activeCount ?? 0), rows: await selectTools(tx).where(changed) };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
  const entries = new Map(previous?.entries);
  for (const row of rows) {
    if (row.active) entries.set(row.tool.id, { tool: catalogTool(row) });
    else entries.delete(row.tool.id);
  }
  if (previous && entries.size !== activeCount) return loadSnapshot(db, state, undefined);
  return buildSnapshot(version, seen, entries, state);
}

function catalogTool({ tool, providerName, providerI18n, providerAuth, providerConnection }: ToolRow): CatalogTool {
  return {
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
    httpMethod: tool.httpMethod ?? null,
    connection: connectionNeed(tool.security as HttpCredential[][] | null, providerAuth as ProviderAuth | null, providerConnection as ProviderConnection | null),
    regions: tool.regions ?? null,
  };
}

/** What a tool needs of the caller's connection: the kind, and the scopes of its first alternative that takes one. */
export function connectionNeed(security: HttpCredential[][] | null | undefined, auth: ProviderAuth | null, connection: ProviderConnection | null): CatalogTool["connection"] {
  if (!connection || !takesConnection(security ?? undefined, auth)) return null;
  const first = (security ?? []).find((alternative) => alternative.some((c) => c.connection));
  return { kind: connection.type, scopes: [...new Set((first ?? []).flatMap((c) => (c.connection ? (c.scopes ?? []) : [])))] };
}

function buildSnapshot(version: number, seen: string, entries: Map<string, Entry>, state: State): Snapshot {
  // Ordered by id as `ORDER BY id` orders them in a C collation: positions break ranking ties.
  const ordered = [...entries.values()].sort((a, b) => (a.tool.id < b.tool.id ? -1 : a.tool.id > b.tool.id ? 1 : 0));
  const list = ordered.map((e) => e.tool);
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
  const sources = new Set(list.flatMap((t) => (t.source === null ? [] : [t.source])));
  const pools = new Map<string, PoolState>();

  const poolState = (key: string, source: string | undefined): PoolState | null => {
    let pool = pools.get(key);
    if (pool) return pool;
    // Unknown sources are not remembered: a client could otherwise grow this map at will.
    if (source !== undefined && !sources.has(source)) return null;
    const positions = source === undefined ? list.map((_, i) => i) : list.flatMap((t, i) => (t.source === source ? [i] : []));
    pool = { entries: positions.map((i) => ordered[i]), tools: positions.map((i) => list[i]) };
    const last = state.built.get(key);
    if (last && sameEntries(last.entries, pool.entries)) pool.index = last.index;
    pools.set(key, pool);
    return pool;
  };

  const startBuild = (key: string, pool: PoolState, inBackground: boolean): Promise<SearchIndex | null> => {
    const before = state.building.get(key) ?? Promise.resolve();
    const build = before
      .catch(() => undefined)
      .then(async () => {
        if (inBackground) {
          // Begins after the request that found the change has answered: the build's first
          // slices would otherwise run inside that request's database round trips.
          await new Promise((resolve) => setTimeout(resolve, BACKGROUND_START_DELAY_MS));
          // A build a newer snapshot has superseded meanwhile is not worth its CPU.
          if (state.snapshot !== undefined && state.snapshot.version > version) return null;
        }
        const index = await SearchIndex.build(await analyzedDocuments(pool.entries));
        pool.index = index;
        pool.stale = undefined;
        if (inBackground) releaseReplacedIndexSoon();
        const newest = state.built.get(key);
        if (!newest || newest.version <= version) state.built.set(key, { version, entries: pool.entries, ids: pool.tools.map((t) => t.id), index });
        return index;
      });
    state.building.set(key, build);
    void build.finally(() => {
      if (state.building.get(key) === build) state.building.delete(key);
    });
    return build;
  };

  return {
    version,
    tools: list,
    byId,
    byName,
    sources,
    entries,
    seen,
    async pool(source) {
      const key = source ?? WHOLE;
      const pool = poolState(key, source);
      if (!pool) return null;
      if (pool.index) return { index: pool.index, tools: pool.tools, current: true };
      const last = state.built.get(key);
      const inBackground = last !== undefined && pool.entries.length > SYNC_BUILD_MAX_TOOLS;
      pool.build ??= startBuild(key, pool, inBackground);
      if (inBackground) {
        if (pool.stale?.of !== last) pool.stale = { of: last, tools: last.ids.map((id) => inScope(byId.get(id), source)) };
        return { index: last.index, tools: pool.stale.tools, current: false };
      }
      const index = (await pool.build) ?? (await startBuild(key, pool, false));
      return { index: index!, tools: pool.tools, current: true };
    },
    async settled() {
      await Promise.all([...pools.values()].map((p) => p.build));
    },
  };
}

function inScope(tool: CatalogTool | undefined, source: string | undefined): CatalogTool | undefined {
  return tool && (source === undefined || tool.source === source) ? tool : undefined;
}

/** The same entries (the very objects: a written tool gets a new one) in the same order. */
function sameEntries(a: readonly Entry[], b: readonly Entry[]): boolean {
  return a.length === b.length && a.every((entry, i) => entry === b[i]);
}

/**
 * The entries' analysed documents, each tokenised once however many indexes hold it. Tokenising
 * is most of a first build's cost: in slices that let other requests run in between.
 */
async function analyzedDocuments(entries: readonly Entry[]): Promise<AnalyzedDocument[]> {
  const out: AnalyzedDocument[] = [];
  let analyzedNow = 0;
  for (const entry of entries) {
    if (!entry.analyzed) {
      entry.analyzed = analyzeDocument(indexDocument(entry.tool));
      if (++analyzedNow % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    out.push(entry.analyzed);
  }
  return out;
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
  const paramTexts = distinct(t.params.flatMap((p) => [p.description, ...localized.map((l) => own(l?.params, p.name))]));
  return {
    id: t.id,
    successRate: t.successRate,
    inputs: t.params.filter((p) => p.required).map((p) => p.name),
    operation: t.httpMethod && t.httpPath ? { api: t.providerId, method: t.httpMethod, path: t.httpPath } : null,
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
