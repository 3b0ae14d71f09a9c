import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { bearer, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog, importManifest } from "../../testing/catalog";
import type { Database } from "../../db/types";

let database: Database;
let server: TestServer;
let seed: Awaited<ReturnType<typeof seedAccount>>;

const tool = (id: string, status: "active" | "retired" = "active") => ({ id, name: id, description: `The ${id} tool`, status });

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  await importManifest(database.db, {
    providers: [
      {
        id: "acme-weather",
        name: "Acme Weather",
        description: "Forecasts and climate records",
        i18n: { zh: { name: "艾克米天气", description: "天气预报与气候记录" } },
        categories: ["weather", "data"],
        transport: "none",
        tools: [tool("acme.forecast"), tool("acme.history"), tool("acme.radar", "retired")],
      },
      {
        id: "zeta-maps",
        name: "zeta Maps",
        description: "Geocoding 100% of addresses",
        categories: ["maps"],
        transport: "none",
        tools: [tool("zeta.geocode")],
      },
    ],
  });
  server = await startTestServer(database);
  seed = await seedAccount(database.db);
});

interface Item {
  id: string;
  name: string;
  tool_count: number;
  categories: string[];
}

async function list(query = "", headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/api/v1/providers${query}`, { headers: { ...bearer(seed.apiKey), ...headers } });
  return { status: res.status, body: await res.json() };
}

const idsOf = (body: { data: { items: Item[] } }) => body.data.items.map((i) => i.id);

describe("GET /providers", () => {
  it("lists providers in the APIResponse wrapper, by name ascending by default", async () => {
    const { status, body } = await list();
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: "success", status_code: 0 });
    expect(body.data).toMatchObject({ total: 3, skip: 0, limit: 50, page: 1, page_size: 50, summary: null });
    expect(idsOf(body)).toEqual(["acme-weather", "tollgate-builtin", "zeta-maps"]);
    const acme = body.data.items[0];
    expect(acme).toMatchObject({ name: "Acme Weather", categories: ["weather", "data"], transport: "none", tool_count: 2 });
  });

  it("sorts by tool_count, id and created_at in either order", async () => {
    expect(idsOf((await list("?sort_by=tool_count&sort_order=desc")).body)).toEqual(["tollgate-builtin", "acme-weather", "zeta-maps"]);
    expect(idsOf((await list("?sort_by=tool_count")).body)).toEqual(["zeta-maps", "acme-weather", "tollgate-builtin"]);
    expect(idsOf((await list("?sort_by=id&sort_order=desc")).body)).toEqual(["zeta-maps", "tollgate-builtin", "acme-weather"]);
    expect((await list("?sort_by=created_at")).status).toBe(200);
  });

  it("filters by any of several categories and by text", async () => {
    expect(idsOf((await list("?categories=maps,weather")).body)).toEqual(["acme-weather", "zeta-maps"]);
    expect(idsOf((await list("?categories=maps")).body)).toEqual(["zeta-maps"]);
    expect(idsOf((await list("?query=FORECAST")).body)).toEqual(["acme-weather"]);
    expect(idsOf((await list("?query=气候")).body)).toEqual(["acme-weather"]);
    expect(idsOf((await list("?query=100%25")).body)).toEqual(["zeta-maps"]);
    expect(idsOf((await list("?query=nothing-like-this")).body)).toEqual([]);
    // Key names of the translations ({"zh": {"name": ...}}) are not text to match.
    expect(idsOf((await list("?query=description")).body)).toEqual([]);
  });

  it("pages with skip and limit and reports the total", async () => {
    const page = (await list("?sort_by=id&skip=1&limit=1")).body;
    expect(idsOf(page)).toEqual(["tollgate-builtin"]);
    expect(page.data).toMatchObject({ total: 3, skip: 1, limit: 1, page: 2 });
    const beyond = (await list("?skip=10")).body;
    expect(beyond.data).toMatchObject({ items: [], total: 3 });
  });

  it("names providers in the Accept-Language language", async () => {
    const { body } = await list("?categories=weather", { "Accept-Language": "zh-CN" });
    expect(body.data.items[0]).toMatchObject({ name: "艾克米天气", description: "天气预报与气候记录" });
  });

  it("rejects an unknown sort_by, a bad sort_order and out-of-range paging with 422", async () => {
    const bad = await list("?sort_by=popularity");
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["query", "sort_by"], msg: "sort_by must be one of name, id, tool_count, created_at" });
    for (const q of ["?sort_order=up", "?limit=0", "?limit=101", "?skip=-1"]) expect((await list(q)).status).toBe(422);
  });

  it("401 without a valid API key", async () => {
    expect((await fetch(`${server.url}/api/v1/providers`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/v1/providers/categories`)).status).toBe(401);
  });
});

describe("GET /providers/categories", () => {
  it("returns every category slug with its provider count, sorted", async () => {
    const res = await fetch(`${server.url}/api/v1/providers/categories`, { headers: bearer(seed.apiKey) });
    const body = await res.json();
    expect(res.status).toBe(200);
    const slugs = body.data.items.map((i: { slug: string }) => i.slug);
    expect(slugs).toEqual([...slugs].sort());
    expect(body.data.items).toContainEqual({ slug: "maps", provider_count: 1 });
    expect(body.data.items).toContainEqual({ slug: "data", provider_count: 2 });
    expect(body.data.total).toBe(slugs.length);
  });
});
