// searchTools: Discover. Ranks the active catalog for a capability query, stores the search and
// its `search` usage event, and (when the deployment prices search) debits the account in the
// same transaction.
import { searches, usageEvents, type UsageChannel } from "../db/schema";
import type { Db } from "../db/types";
import { budgetRefusalMessage, debitWithinBudgets, withScopeName } from "../billing/budgets";
import { systemClock, type Clock } from "../clock";
import { usageEventRow } from "../audit/usage-event";
import { notFound } from "../errors";
import { newId, newUuid } from "../ids";
import { credits, creditsText, creditsToNumber, creditsToSql } from "../money";
import { capabilityResult, routingCard } from "./capability";
import { catalogSnapshot, normalizeName, readCatalogVersionAndCredits, type CatalogSnapshot, type CatalogTool } from "./catalog-index";
import type { MatchExplanation } from "./ranker";
import type { SearchLang, SearchRequest, SearchResponse } from "./schemas";
import { msSince } from "../timing";

export interface SearchToolsInput {
  accountId: string;
  apiKeyId: string | null;
  request: SearchRequest;
  /** The result language: the request's `lang`, else negotiated by the caller. */
  lang: SearchLang;
  /** Credits one search costs (`SEARCH_PRICE_CREDITS`); "0" = free. */
  priceCredits: string;
  channel?: UsageChannel;
  /** The OAuth client of a delegation token: its budget applies to a priced search. */
  clientId?: string | null;
  /** Decides the budgets' periods (default: the system clock). */
  clock?: Clock;
}

export type SearchOutcome = { outcome: "ok" | "insufficient_credits" | "budget_exceeded"; response: SearchResponse };

export async function searchTools(db: Db, input: SearchToolsInput): Promise<SearchOutcome> {
  const started = performance.now();
  const { request, lang } = input;
  const { version, available, region } = await readCatalogVersionAndCredits(db, input.accountId);
  const snapshot = await catalogSnapshot(db, version);
  assertKnownSource(snapshot, request.source);
  const ranked = await rankTools(snapshot, request.query, request.limit, request.source);
  const found = ranked.map((r) => r.tool);
  const results = ranked.map(({ tool, match }) => (request.view === "routing" ? routingCard(tool, lang) : { ...capabilityResult(tool, lang, "full", region), match: match() }));
  const elapsedMs = msSince(started);

  const searchId = newId("srch");
  const usageEventId = newUuid();
  const price = credits(input.priceCredits);
  const priced = price.gt(0);
  let remaining = available === null ? null : credits(available);
  let short = false;
  /** Why a priced search was refused (credits short, or a budget), for the response and the usage event. */
  let refusal: string | null = null;
  let budgetRefused = false;
  /** The search row and its usage event, once the debit (if any) has decided `refused`. */
  const record = (ledgerEntryId: string | null, refused: boolean) => {
    const resultIds = refused ? [] : found.map((t) => t.id);
    const searchRow: typeof searches.$inferInsert = {
      id: searchId,
      accountId: input.accountId,
      apiKeyId: input.apiKeyId,
      sessionId: request.session_id ?? null,
      query: request.query,
      lang,
      view: request.view,
      resultIds,
    };
    const eventRow = usageEventRow({
      id: usageEventId,
      accountId: input.accountId,
      apiKeyId: input.apiKeyId,
      eventType: "search",
      channel: input.channel,
      sourceRefType: "search",
      sourceRefId: searchId,
      sessionId: request.session_id ?? null,
      searchId,
      success: !refused,
      settledAmount: priced && !refused ? creditsToSql(price) : "0",
      preSettlementAmount: creditsToSql(price),
      errorMessage: refused ? refusal : null,
      durationMs: Math.round(elapsedMs),
      billingRuleSnapshot: priced ? { unit: "call", amount_credits: creditsToNumber(price) } : undefined,
      creditsLedgerEntryId: ledgerEntryId,
      billingSummary: priced ? (refused ? "Not charged: insufficient credits" : `Charged ${creditsText(price.toFixed())}`) : "Included (free search)",
      displayTarget: truncate(request.query, 120),
      requestPayload: { query: request.query, limit: request.limit, view: request.view, lang, ...(request.source && { source: request.source }) },
      responsePayloadSummary: { total: resultIds.length, tool_ids: resultIds.slice(0, 10) },
    });
    return { searchRow, eventRow };
  };

  if (!priced) {
    // One statement, so one round trip and atomic without a transaction: the search row and its
    // usage event are written together or not at all.
    const { searchRow, eventRow } = record(null, false);
    const stored = db.$with("stored_search").as(db.insert(searches).values(searchRow).returning({ id: searches.id }));
    await db.with(stored).insert(usageEvents).values(eventRow);
  } else {
    await db.transaction(async (tx) => {
      const outcome = await debitWithinBudgets(tx, {
        accountId: input.accountId,
        apiKeyId: input.apiKeyId,
        clientId: input.clientId ?? null,
        at: (input.clock ?? systemClock).now(),
        amount: creditsToSql(price),
        ledger: {
          id: newId("led"),
          entry_type: "consume_tool_search",
          description: "Discover search",
          source_ref_type: "search",
          source_ref_id: searchId,
          usage_event_id: usageEventId,
          api_key_id: input.apiKeyId,
          settlement_result: { settled_amount_credits: creditsToNumber(price) },
        },
      });
      const debit = outcome.debited;
      if (debit) remaining = remaining?.minus(price) ?? null;
      else {
        short = true;
        budgetRefused = !outcome.debited && outcome.budget !== null;
        refusal = !outcome.debited && outcome.budget
          ? budgetRefusalMessage(await withScopeName(tx as unknown as Db, outcome.budget), creditsToSql(price), "search")
          : insufficientMessage(price.toFixed());
      }
      const { searchRow, eventRow } = record(debit?.ledgerEntryId ?? null, short);
      await tx.insert(searches).values(searchRow);
      await tx.insert(usageEvents).values(eventRow);
    });
  }

  const response: SearchResponse = {
    query: request.query,
    search_id: searchId,
    total: short ? 0 : results.length,
    results: short ? [] : results,
    elapsed_time_ms: elapsedMs,
    remaining_credits: remaining === null ? null : creditsToNumber(remaining.isNegative() ? credits(0) : remaining),
    error_message: short ? refusal : null,
  };
  return { outcome: short ? (budgetRefused ? "budget_exceeded" : "insufficient_credits") : "ok", response };
}

/** A ranked tool, and how to explain its place (computed only for results that show it). */
export interface RankedTool {
  tool: CatalogTool;
  match(): MatchExplanation;
}

/**
 * The ranked tools for a query: an exact `tool_id` first, then tools whose name is exactly the
 * query, then the ranker's order. With `source`, only that catalog's tools, ranked by its own index.
 */
export async function rankTools(snapshot: CatalogSnapshot, query: string, limit: number, source?: string): Promise<RankedTool[]> {
  const pool = await snapshot.pool(source);
  if (!pool) return [];
  const inScope = (t: CatalogTool) => source === undefined || t.source === source;
  const exact: CatalogTool[] = [];
  const byId = snapshot.byId.get(query.trim());
  if (byId && inScope(byId)) exact.push(byId);
  const sameName = (snapshot.byName.get(normalizeName(query)) ?? []).filter((t) => inScope(t) && t !== byId);
  exact.push(...[...sameName].sort((a, b) => a.id.localeCompare(b.id)));
  const taken = new Set(exact.map((t) => t.id));
  // Positions without a tool belong to an earlier index answering while the current one builds.
  const ranked = pool.index.search(query, limit, (i) => {
    const tool = pool.tools[i];
    return tool !== undefined && !taken.has(tool.id);
  });
  const explainExact = (tool: CatalogTool): MatchExplanation => {
    const at = pool.tools.indexOf(tool);
    // A tool newer than the answering index is found by its id or name, not by its words (yet).
    return at < 0 ? { fields: {}, expanded: [] } : pool.index.explain(query, at);
  };
  return [
    ...exact.map((tool) => ({ tool, match: () => explainExact(tool) })),
    ...ranked.map((r) => ({ tool: pool.tools[r.index]!, match: () => pool.index.explain(query, r.index, r.neededBy) })),
  ].slice(0, limit);
}

/** A search scoped to a source no active tool comes from is refused: a typo must not read as "nothing matches". */
export function assertKnownSource(snapshot: CatalogSnapshot, source: string | undefined): void {
  if (source !== undefined && !snapshot.sources.has(source)) {
    throw notFound(`Unknown source "${source}": no active tool in the catalog comes from it (GET /api/v1/providers lists the catalog's providers and their sources)`);
  }
}

function insufficientMessage(price: string): string {
  return `Insufficient credits: a search costs ${creditsText(price)} on this deployment`;
}

function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : text;
}
