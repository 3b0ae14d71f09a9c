// Provider listing (contract 4.4): filter by categories and text, page with skip/limit, sort by
// a closed set of fields. Tool counts include active tools only.
import { and, arrayOverlaps, asc, desc, eq, ilike, or, sql, type SQL } from "drizzle-orm";
import { providers, tools } from "../db/schema";
import type { Db } from "../db/types";
import type { SearchLang } from "./schemas";

export const providerSortFields = ["name", "id", "tool_count", "created_at"] as const;
export type ProviderSortField = (typeof providerSortFields)[number];

export interface ListProvidersInput {
  /** A provider matches when it has at least one of these categories. */
  categories?: string[];
  /** Case-insensitive substring of the id, name or description (any language). */
  query?: string;
  skip: number;
  limit: number;
  sortBy: ProviderSortField;
  sortOrder: "asc" | "desc";
  lang: SearchLang;
}

export interface ProviderItem {
  id: string;
  name: string;
  description: string;
  categories: string[];
  transport: string;
  source: string | null;
  tool_count: number;
  created_at: string;
}

type LocalizedProvider = Partial<Record<SearchLang, { name?: string; description?: string }>>;

/** `%`, `_` and `\` are literal in a user's filter text. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

export async function listProviders(db: Db, input: ListProvidersInput): Promise<{ items: ProviderItem[]; total: number }> {
  const counts = db
    .select({ providerId: tools.providerId, n: sql<number>`count(*)::int`.as("n") })
    .from(tools)
    .where(eq(tools.status, "active"))
    .groupBy(tools.providerId)
    .as("counts");
  const toolCount = sql<number>`coalesce(${counts.n}, 0)`;

  const where: SQL[] = [];
  if (input.categories && input.categories.length > 0) where.push(arrayOverlaps(providers.categories, input.categories));
  if (input.query) {
    const pattern = likePattern(input.query);
    // Translated texts match by their values ({lang: {name, description}}), never by key names.
    const translated = sql`exists (select 1 from jsonb_each(${providers.i18n}) l,
                     jsonb_each_text(case when jsonb_typeof(l.value) = 'object' then l.value else '{}'::jsonb end) t
               where t.value ilike ${pattern})`;
    const text = or(ilike(providers.id, pattern), ilike(providers.name, pattern), ilike(providers.description, pattern), translated);
    if (text) where.push(text);
  }
  const sortColumn = { name: sql`lower(${providers.name})`, id: sql`${providers.id}`, tool_count: toolCount, created_at: sql`${providers.createdAt}` }[input.sortBy];
  const direction = input.sortOrder === "desc" ? desc : asc;

  const rows = await db
    .select({
      provider: providers,
      toolCount,
      total: sql<number>`count(*) over ()`.mapWith(Number),
    })
    .from(providers)
    .leftJoin(counts, eq(counts.providerId, providers.id))
    .where(and(...where))
    .orderBy(direction(sortColumn), asc(providers.id))
    .limit(input.limit)
    .offset(input.skip);

  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && input.skip > 0) {
    const [row] = await db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(providers).where(and(...where));
    total = row?.n ?? 0;
  }
  const items = rows.map(({ provider: p, toolCount: n }) => {
    const local = (p.i18n as LocalizedProvider)[input.lang];
    return {
      id: p.id,
      name: local?.name || p.name,
      description: local?.description || p.description,
      categories: p.categories,
      transport: p.transport,
      source: p.source,
      tool_count: Number(n),
      created_at: p.createdAt.toISOString(),
    };
  });
  return { items, total };
}

/** Every category any provider declares, with how many providers declare it, sorted by slug. */
export async function listProviderCategories(db: Db): Promise<{ slug: string; provider_count: number }[]> {
  const slug = sql<string>`unnest(${providers.categories})`;
  const rows = await db
    .select({ slug: sql<string>`c.slug`, providerCount: sql<number>`count(*)`.mapWith(Number) })
    .from(sql`(select ${slug} as slug from ${providers}) as c`)
    .groupBy(sql`c.slug`)
    .orderBy(sql`c.slug`);
  return rows.map((r) => ({ slug: r.slug, provider_count: r.providerCount }));
}
