import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { importManifest } from "../testing/catalog";
import { catalogState, tools } from "../db/schema";
import type { Database, Db } from "../db/types";
import { importCatalog } from "../catalog/import";
import { parseManifest, type ManifestInput } from "../catalog/manifest";
import { catalogSnapshot, indexDocument, readCatalogVersionAndCredits } from "./catalog-index";
import { rankTools } from "./search-tools";
import { SearchIndex, analyzeDocument } from "./ranker";

let database: Database;

beforeAll(async () => {
  database = await createTestDatabase();
});

const version = async (db: Db) => Number((await db.select({ v: catalogState.version }).from(catalogState))[0].v);
const snapshot = async (db: Db) => catalogSnapshot(db, (await readCatalogVersionAndCredits(db, "acct_none")).version);
const rankedIds = async (db: Db, query: string, source?: string, limit = 10) => (await rankTools(await snapshot(db), query, limit, source)).map((r) => r.tool.id);

const WORDS = ["weather", "invoice", "calendar", "translate", "currency", "stock", "flight", "hotel", "recipe", "music", "movie", "email", "sms", "map", "route"];

/** A provider of `count` catalog-only tools with varied texts, plus `extra` ones. */
function catalog(id: string, source: string, count: number, extra: NonNullable<ManifestInput["providers"]>[number]["tools"] = []): ManifestInput {
  const generated = Array.from({ length: count }, (_, i) => ({
    id: `${id}.t${String(i).padStart(4, "0")}`,
    name: `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} ${i}`,
    description: `Looks up ${WORDS[(i * 3) % WORDS.length]} data and reports ${WORDS[(i * 5 + 1) % WORDS.length]} details for item ${i}.`,
    params: [{ name: `${WORDS[(i * 11) % WORDS.length]}_id`, type: "string", required: i % 2 === 0, description: "An identifier" }],
  }));
  return { providers: [{ id, name: `Provider ${id}`, transport: "none", source, tools: [...generated, ...extra] }] } as ManifestInput;
}

describe("importCatalog: a re-import that changes nothing writes nothing", () => {
  it("leaves catalog_state.version unchanged and reports 0 added, 0 changed, 0 retired", async () => {
    const manifest = catalog("noop", "noop-src", 30);
    expect(await importManifest(database.db, manifest)).toMatchObject({ added: 30, changed: 0 });
    const before = await version(database.db);
    expect(await importManifest(database.db, manifest)).toMatchObject({ tools: 30, added: 0, changed: 0, unchanged: 30, retired: 0 });
    expect(await version(database.db)).toBe(before);
  });

  it("a real change is written once and bumps the version", async () => {
    const manifest = catalog("noop", "noop-src", 30);
    const changed = structuredClone(manifest);
    changed.providers![0].tools![3].description = "Checks the tide tables of a harbour.";
    const before = await version(database.db);
    expect(await importManifest(database.db, changed)).toMatchObject({ added: 0, changed: 1, unchanged: 29 });
    expect(await version(database.db)).toBeGreaterThan(before);
    const [row] = await database.db.select({ description: tools.description }).from(tools).where(eq(tools.id, "noop.t0003"));
    expect(row.description).toBe("Checks the tide tables of a harbour.");
  });
});

describe("the catalog snapshot after a change", () => {
  it("a small catalog: the next search finds the new tool by its words and never returns a retired one", async () => {
    await importManifest(database.db, catalog("small", "small-src", 20));
    expect(await rankedIds(database.db, "weather invoice", "small-src")).not.toHaveLength(0);
    const next = catalog("small", "small-src", 20, [{ id: "small.aurora", name: "aurora forecast", description: "Forecasts northern lights visibility." }]);
    next.providers![0].tools = next.providers![0].tools!.filter((t) => t.id !== "small.t0000");
    expect(await importCatalog(database.db, parseManifest(next, "test"), { retireMissing: true })).toMatchObject({ added: 1, retired: 1 });
    expect((await rankedIds(database.db, "will I see the northern lights", "small-src"))[0]).toBe("small.aurora");
    expect((await rankedIds(database.db, "northern lights"))[0]).toBe("small.aurora");
    expect(await rankedIds(database.db, "weather invoice 0", "small-src", 100)).not.toContain("small.t0000");
    expect(await rankedIds(database.db, "small.t0000", "small-src", 100)).not.toContain("small.t0000");
  });

  it("a large catalog: the previous index answers while the new one builds, never with a retired tool; the new tool is found by name at once and by its words once built, ranked as by a full rebuild", async () => {
    await importManifest(database.db, catalog("large", "large-src", 1_200));
    // The whole catalog's index and the source's are built (on the request: nothing answered before).
    expect(await rankedIds(database.db, "weather invoice", "large-src")).toHaveLength(10);
    expect(await rankedIds(database.db, "weather invoice")).toHaveLength(10);
    const retired = (await rankedIds(database.db, "flight hotel details", "large-src"))[0];
    const next = catalog("large", "large-src", 1_200, [{ id: "large.aurora", name: "aurora forecast", description: "Forecasts northern lights visibility." }]);
    next.providers![0].tools = next.providers![0].tools!.filter((t) => t.id !== retired);
    expect(await importCatalog(database.db, parseManifest(next, "test"), { retireMissing: true })).toMatchObject({ added: 1, retired: 1 });

    const changed = await snapshot(database.db);
    expect(changed.byId.has("large.aurora")).toBe(true);
    expect(changed.byId.has(retired)).toBe(false);
    const pool = await changed.pool("large-src");
    expect(pool?.current).toBe(false);
    for (const source of ["large-src", undefined]) {
      expect(await rankedIds(database.db, "flight hotel details", source, 100)).not.toContain(retired);
      expect(await rankedIds(database.db, retired, source, 100)).not.toContain(retired);
      expect((await rankedIds(database.db, "aurora forecast", source))[0]).toBe("large.aurora");
    }

    // V8's collector, as `node --expose-gc` provides it: called once the replaced indexes are garbage.
    const collections: number[] = [];
    const exposed = (globalThis as { gc?: () => void }).gc;
    (globalThis as { gc?: () => void }).gc = () => void collections.push(Date.now());
    try {
      await changed.settled();
      await new Promise((resolve) => setTimeout(resolve, 400));
    } finally {
      (globalThis as { gc?: () => void }).gc = exposed;
    }
    expect(collections.length).toBeGreaterThanOrEqual(1);
    expect((await changed.pool("large-src"))?.current).toBe(true);
    expect((await rankedIds(database.db, "will I see the northern lights", "large-src"))[0]).toBe("large.aurora");
    // The incrementally updated snapshot ranks exactly as an index built from scratch over the same tools.
    const own = changed.tools.filter((t) => t.source === "large-src");
    const scratch = new SearchIndex(own.map((t) => analyzeDocument(indexDocument(t))));
    for (const query of ["flight hotel details", "translate currency for item 17", "music movie email"]) {
      const expected = scratch.search(query, 10).map((r) => own[r.index].id);
      expect(await rankedIds(database.db, query, "large-src")).toEqual(expected);
    }
  });

  it("a change to the provider alone (its English name: not in its tools' rows) reaches its tools' records and index", async () => {
    const manifest = catalog("renamed", "renamed-src", 3);
    await importManifest(database.db, manifest);
    expect((await snapshot(database.db)).byId.get("renamed.t0001")?.providerI18n).toEqual({});
    (manifest.providers![0] as { i18n?: unknown }).i18n = { en: { name: "Borealis Labs" } };
    expect(await importManifest(database.db, manifest)).toMatchObject({ added: 0, changed: 0 });
    expect((await snapshot(database.db)).byId.get("renamed.t0001")?.providerI18n).toEqual({ en: { name: "Borealis Labs" } });
    expect((await rankedIds(database.db, "borealis labs", "renamed-src")).sort()).toEqual(["renamed.t0000", "renamed.t0001", "renamed.t0002"]);
  });
});
