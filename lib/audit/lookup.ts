import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { notFound } from "../errors";
import { credits, creditsText, creditsToNumber } from "../money";
import { accountSummary } from "../accounts/summary";
import { type IdKind, idKindInAccount } from "./id-sources";
import { LEDGER_COLUMNS, type LedgerRecord, ledgerItem } from "./ledger-history";
import { reconciliationStatuses, type CallTrace, type LedgerItem, type Lookup, type SearchTrace, type UsageEventItem } from "./schemas";
import { type UsageEventRecord, toIso, usageItem, usageItemColumns } from "./usage-items";

const MAX_CALLS = 100;
const MAX_EVENTS = 500;
const CHARGED = new Set(["charged", "failed_charged_review"]);

type Status = (typeof reconciliationStatuses)[number];

interface Scope {
  resolvedAs: IdKind;
  executionIds: Set<string>;
  searchIds: Set<string>;
  eventIds: Set<string>;
  ledgerIds: Set<string>;
  sessionId: string | null;
}

interface ExecutionRow {
  id: string;
  tool_id: string;
  search_id: string | null;
  session_id: string;
  status: string;
  success: boolean | null;
  reason_code: string | null;
  charge_outcome: string | null;
  reserved_credits: string;
  settled_credits: string | null;
  refunded_credits: string;
  duration_ms: number | null;
  cache_hit: boolean;
  model: string | null;
  created_at: Date | string;
  settled_at: Date | string | null;
}

interface SearchRow {
  id: string;
  query: string;
  session_id: string | null;
  result_count: number;
  created_at: Date | string;
}

type LedgerRecordWithPrev = LedgerRecord & { prev_after: string | null };

const inList = (col: SQL, values: Iterable<string>, type: "text" | "uuid" = "text"): SQL => {
  const list = [...values];
  const cast = sql.raw(`::${type}`);
  return list.length === 0 ? sql`false` : sql`${col} IN (${sql.join(list.map((v) => sql`${v}${cast}`), sql`, `)})`;
};

/**
 * `GET /auth/lookup?id=`: resolves any id of the account (execution, search, usage event, ledger
 * entry, session) to the whole story around it — search -> inspect -> call -> usage event -> ledger
 * row -> balance change — with a reconciliation verdict per step and overall. Every query is
 * confined to the account; an id of another account is simply not found.
 */
export async function lookupId(db: Db, accountId: string, id: string): Promise<Lookup> {
  const scope = await resolveScope(db, accountId, id);
  if (!scope) throw notFound(`No execution, search, usage event, ledger entry or session with id ${id}`);
  const a = accountId;

  if (scope.resolvedAs === "session_id") {
    const found = rows<{ execution_id: string | null; search_id: string | null }>(
      await db.execute(sql`
        SELECT execution_id, search_id FROM (
          SELECT id AS execution_id, search_id, created_at FROM executions WHERE account_id = ${a} AND session_id = ${id} AND status = 'reserved'
          UNION ALL SELECT NULL, id, created_at FROM searches WHERE account_id = ${a} AND session_id = ${id}
          UNION ALL SELECT execution_id, search_id, created_at FROM usage_events WHERE account_id = ${a} AND session_id = ${id}
        ) x ORDER BY created_at DESC LIMIT ${MAX_EVENTS}`),
    );
    for (const f of found) {
      if (f.execution_id) scope.executionIds.add(f.execution_id);
      if (f.search_id) scope.searchIds.add(f.search_id);
    }
  }
  if (scope.resolvedAs === "search_id") {
    for (const r of rows<{ execution_id: string }>(
      await db.execute(sql`SELECT DISTINCT execution_id FROM usage_events WHERE account_id = ${a} AND search_id = ${id} AND execution_id IS NOT NULL LIMIT ${MAX_CALLS + 1}`),
    )) {
      scope.executionIds.add(r.execution_id);
    }
  }
  let truncated = scope.executionIds.size > MAX_CALLS;

  const fetchExecutions = async (ids: Iterable<string>) =>
    rows<ExecutionRow>(
      await db.execute(sql`
        SELECT id, tool_id, search_id, session_id, status, success, reason_code, charge_outcome, reserved_credits::text AS reserved_credits,
               settled_credits::text AS settled_credits, refunded_credits::text AS refunded_credits, duration_ms, cache_hit, model, created_at, settled_at
          FROM executions WHERE account_id = ${a} AND ${inList(sql.raw("id"), ids)}
         ORDER BY created_at DESC LIMIT ${MAX_CALLS}`),
    );
  const executions = await fetchExecutions(scope.executionIds);
  for (const e of executions) if (e.search_id) scope.searchIds.add(e.search_id);

  // The Calls' own events, and the Discover/Inspect events of their searches (not sibling Calls).
  const events = rows<UsageEventRecord>(
    await db.execute(sql`
      SELECT ${usageItemColumns(true)} FROM usage_events e
       WHERE e.account_id = ${a}
         AND (${inList(sql.raw("e.execution_id"), scope.executionIds)}
              OR (${inList(sql.raw("e.search_id"), scope.searchIds)} AND e.event_type IN ('search', 'search_by_ids'))
              OR ${inList(sql.raw("e.id"), scope.eventIds, "uuid")}
              ${scope.sessionId ? sql`OR e.session_id = ${scope.sessionId}` : sql``})
       ORDER BY e.created_at DESC NULLS LAST, e.id DESC NULLS LAST LIMIT ${MAX_EVENTS + 1}`),
  );
  truncated ||= events.length > MAX_EVENTS;
  const eventItems = events.slice(0, MAX_EVENTS).map((r) => usageItem(r, true));
  const known = new Set(executions.map((e) => e.id));
  const moreIds = eventItems.flatMap((e) => (e.execution_id && !known.has(e.execution_id) ? [e.execution_id] : []));
  if (moreIds.length > 0 && executions.length < MAX_CALLS) executions.push(...(await fetchExecutions(moreIds)));
  for (const e of eventItems) {
    if (e.execution_id) scope.executionIds.add(e.execution_id);
    if (e.search_id && !isCall(e)) scope.searchIds.add(e.search_id);
  }

  const linkIds = new Set([...scope.ledgerIds, ...eventItems.flatMap((e) => (e.credits_ledger_entry_id ? [e.credits_ledger_entry_id] : []))]);
  const ledger = rows<LedgerRecordWithPrev>(
    await db.execute(sql`
      SELECT ${LEDGER_COLUMNS},
             (SELECT p.balance_after::text FROM credits_ledger p WHERE p.account_id = l.account_id AND p.seq < l.seq ORDER BY p.seq DESC LIMIT 1) AS prev_after
        FROM credits_ledger l
       WHERE l.account_id = ${a}
         AND (${inList(sql.raw("l.id"), linkIds)} OR ${inList(sql.raw("l.execution_id"), scope.executionIds)}
              OR ${inList(sql.raw("l.usage_event_id"), eventItems.map((e) => e.id), "uuid")})
       ORDER BY l.seq LIMIT ${MAX_EVENTS}`),
  );
  const searches = rows<SearchRow>(
    await db.execute(sql`
      SELECT id, query, session_id, cardinality(result_ids) AS result_count, created_at
        FROM searches WHERE account_id = ${a} AND ${inList(sql.raw("id"), scope.searchIds)}`),
  );

  const used = new Set<string>();
  // A Call's rows: its charge (consume row) and any support refunds of it.
  const ledgerOf = (event: UsageEventItem | null, executionId: string | null) => {
    const mine = ledger.filter(
      (l) =>
        (event && (l.id === event.credits_ledger_entry_id || l.usage_event_id === event.id)) ||
        (executionId !== null && l.execution_id === executionId && (l.entry_type.startsWith("consume_") || isRefund(l))),
    );
    for (const l of mine) used.add(l.id);
    return mine;
  };

  const calls: CallTrace[] = [];
  const executionById = new Map(executions.map((e) => [e.id, e]));
  const callIds = [...new Set([...executions.map((e) => e.id), ...eventItems.filter((e) => e.execution_id && isCall(e)).map((e) => e.execution_id!)])];
  for (const exeId of callIds) {
    const ex = executionById.get(exeId) ?? null;
    const event = eventItems.find((e) => e.execution_id === exeId && isCall(e)) ?? null;
    const rowsForCall = ledgerOf(event, exeId);
    const verdict = reconcile(event, rowsForCall, { execution: ex, expectExecution: true });
    calls.push({
      execution_id: exeId,
      tool_id: ex?.tool_id ?? event?.tool_id ?? null,
      search_id: ex?.search_id ?? event?.search_id ?? null,
      session_id: ex?.session_id ?? event?.session_id ?? null,
      created_at: ex ? toIso(ex.created_at) : (event?.created_at ?? null),
      execution: ex
        ? {
            status: ex.status,
            success: ex.success,
            reason_code: ex.reason_code,
            charge_outcome: ex.charge_outcome,
            reserved_credits: creditsToNumber(ex.reserved_credits),
            settled_credits: ex.settled_credits === null ? null : creditsToNumber(ex.settled_credits),
            refunded_credits: creditsToNumber(ex.refunded_credits),
            duration_ms: ex.duration_ms,
            cache_hit: ex.cache_hit,
            model: ex.model,
            settled_at: ex.settled_at ? toIso(ex.settled_at) : null,
          }
        : null,
      usage_event: event,
      ledger_entries: rowsForCall.map(ledgerItem),
      balance_changes: rowsForCall.map(balanceChange),
      reconciliation: verdict,
    });
  }
  calls.sort((x, y) => ((x.created_at ?? "") < (y.created_at ?? "") ? 1 : -1));

  const searchTraces: SearchTrace[] = [...scope.searchIds].map((sid) => {
    const s = searches.find((r) => r.id === sid) ?? null;
    const event = eventItems.find((e) => e.search_id === sid && e.event_type === "search") ?? null;
    const rowsForSearch = ledgerOf(event, null);
    return {
      search_id: sid,
      query: s?.query ?? null,
      created_at: s ? toIso(s.created_at) : (event?.created_at ?? null),
      result_count: s?.result_count ?? null,
      search_event: event,
      inspect_events: eventItems.filter((e) => e.search_id === sid && e.event_type === "search_by_ids"),
      ledger_entries: rowsForSearch.map(ledgerItem),
      reconciliation: event ? reconcile(event, rowsForSearch, { execution: null, expectExecution: false }) : { status: "not_charged", missing_links: [] },
    };
  });
  searchTraces.sort((x, y) => ((x.created_at ?? "") < (y.created_at ?? "") ? 1 : -1));

  const inTraces = new Set<string>([
    ...calls.flatMap((c) => (c.usage_event ? [c.usage_event.id] : [])),
    ...searchTraces.flatMap((s) => [...(s.search_event ? [s.search_event.id] : []), ...s.inspect_events.map((e) => e.id)]),
  ]);
  const otherEvents = eventItems.filter((e) => !inTraces.has(e.id));
  const otherChecks = otherEvents.map((e) => ({ id: e.id, verdict: reconcile(e, ledgerOf(e, null), { execution: null, expectExecution: false }) }));
  const looseLedger = ledger.filter((l) => !used.has(l.id));

  const problems = [
    ...calls.flatMap((c) => c.reconciliation.missing_links.map((link) => ({ ref_id: c.execution_id, link }))),
    ...searchTraces.flatMap((s) => s.reconciliation.missing_links.map((link) => ({ ref_id: s.search_id, link }))),
    ...otherChecks.flatMap((o) => o.verdict.missing_links.map((link) => ({ ref_id: o.id, link }))),
    ...looseLedger.filter((l) => needsEvent(l.entry_type)).map((l) => ({ ref_id: l.id, link: "usage_event" })),
  ];
  const statuses = [...calls.map((c) => c.reconciliation.status), ...searchTraces.map((s) => s.reconciliation.status), ...otherChecks.map((o) => o.verdict.status)];
  const worst: Status[] = ["in_flight", "review", "refunded", "reconciled"];
  const overall: Status = problems.length > 0 ? "broken" : (worst.find((s) => statuses.includes(s)) ?? "not_charged");

  const account = await accountSummary(db, accountId);
  return {
    id,
    resolved_as: scope.resolvedAs,
    account_id: accountId,
    account_name: account.name,
    account_owners: account.owners,
    session_id: scope.sessionId ?? calls[0]?.session_id ?? eventItems[0]?.session_id ?? null,
    searches: searchTraces,
    calls,
    other_events: otherEvents,
    ledger_entries: looseLedger.map(ledgerItem),
    timeline: timeline(searchTraces, calls, otherEvents, looseLedger),
    reconciliation: { status: overall, missing_links: [...new Set(problems.map((p) => p.link))], problems },
    truncated,
  };
}

const isCall = (e: UsageEventItem) => e.event_type === "tool_execute" || e.event_type === "capabilities_query";
const isRefund = (l: { entry_type: string }) => l.entry_type.startsWith("refund_");
const needsEvent = (entryType: string) => entryType.startsWith("consume_") && entryType !== "consume_payment_refund";

/**
 * The verdict for one event and the ledger rows linked to it (contract section 3 and DESIGN-NOTES
 * invariant 3): one charge row for a charge, none otherwise; support refunds of a Call add up to
 * its execution's `refunded_credits`. A failed_charged_review Call refunded in full is `refunded`.
 */
function reconcile(
  event: UsageEventItem | null,
  linked: LedgerRecordWithPrev[],
  ctx: { execution: ExecutionRow | null; expectExecution: boolean },
): { status: Status; missing_links: string[] } {
  const missing: string[] = [];
  const ledgerRows = linked.filter((l) => !isRefund(l));
  const refunded = linked.filter(isRefund).reduce((sum, l) => sum.plus(l.amount_credits), credits(0));
  if (ctx.execution?.status === "reserved") return { status: "in_flight", missing_links: [] };
  if (!event) return { status: "broken", missing_links: ["usage_event"] };
  if (ctx.expectExecution && !ctx.execution) missing.push("execution");
  if (ctx.execution && ctx.execution.charge_outcome !== null && ctx.execution.charge_outcome !== event.charge_outcome) missing.push("outcome_mismatch");
  const charged = CHARGED.has(event.charge_outcome);
  if (charged) {
    if (ledgerRows.length === 0) missing.push("ledger_entry");
    if (ledgerRows.length > 1) missing.push("duplicate_ledger_entry");
    if (ledgerRows.length === 1 && !credits(ledgerRows[0].amount_credits).eq(credits(event.actual_amount_credits).neg())) missing.push("amount_mismatch");
  } else if (ledgerRows.length > 0) {
    missing.push("unexpected_ledger_entry");
  }
  if (!refunded.eq(ctx.execution?.refunded_credits ?? 0)) missing.push("refund_mismatch");
  if (linked.some((l) => !balanceChange(l).continuous)) missing.push("balance_change");
  if (missing.length > 0) return { status: "broken", missing_links: missing };
  if (event.charge_outcome === "failed_charged_review") {
    const fullyRefunded = refunded.gt(0) && refunded.gte(event.actual_amount_credits);
    return { status: fullyRefunded ? "refunded" : "review", missing_links: [] };
  }
  return { status: charged ? "reconciled" : "not_charged", missing_links: [] };
}

function balanceChange(l: LedgerRecordWithPrev) {
  const before = credits(l.balance_before);
  const continuous = before.plus(l.amount_credits).eq(l.balance_after) && before.eq(l.prev_after ?? "0");
  return {
    ledger_entry_id: l.id,
    balance_before: creditsToNumber(l.balance_before),
    amount_credits: creditsToNumber(l.amount_credits),
    balance_after: creditsToNumber(l.balance_after),
    continuous,
  };
}

type Step = Lookup["timeline"][number];

function timeline(searches: SearchTrace[], calls: CallTrace[], others: UsageEventItem[], loose: LedgerRecordWithPrev[]): Step[] {
  const steps: Step[] = [];
  const order: Record<Step["step"], number> = { search: 0, inspect: 1, call: 2, usage_event: 3, ledger_entry: 4, refund: 4, balance_change: 5 };
  const ledgerSteps = (l: LedgerItem) => {
    if (isRefund(l)) {
      const reason = (l.ledger_metadata as { reason?: unknown } | null)?.reason;
      steps.push({ at: l.created_at, step: "refund", ref_id: l.id, summary: `Refund +${creditsText(l.amount_credits)} by support${typeof reason === "string" ? `: ${reason}` : ""}` });
    } else {
      steps.push({ at: l.created_at, step: "ledger_entry", ref_id: l.id, summary: `${l.entry_type} ${l.amount_credits} credits` });
    }
    steps.push({
      at: l.created_at,
      step: "balance_change",
      ref_id: l.id,
      summary: `Balance ${l.balance_before.total_available_credits} -> ${l.balance_after.total_available_credits}`,
    });
  };
  const eventStep = (e: UsageEventItem) =>
    steps.push({ at: e.created_at, step: "usage_event", ref_id: e.id, summary: `${e.event_type}: ${e.charge_outcome}${e.reason_code ? ` (${e.reason_code})` : ""}, ${e.actual_amount_credits} credits` });
  for (const s of searches) {
    if (s.created_at) steps.push({ at: s.created_at, step: "search", ref_id: s.search_id, summary: `Discover "${s.query ?? ""}"${s.result_count === null ? "" : ` -> ${s.result_count} results`}` });
    if (s.search_event) eventStep(s.search_event);
    for (const e of s.inspect_events) steps.push({ at: e.created_at, step: "inspect", ref_id: e.id, summary: `Inspect ${e.display_target ?? e.tool_id ?? ""}`.trim() });
    s.ledger_entries.forEach(ledgerSteps);
  }
  for (const c of calls) {
    if (c.created_at) steps.push({ at: c.created_at, step: "call", ref_id: c.execution_id, summary: `Call ${c.tool_id ?? ""} (${c.execution?.status ?? "no execution row"})` });
    if (c.usage_event) eventStep(c.usage_event);
    c.ledger_entries.forEach(ledgerSteps);
  }
  others.forEach(eventStep);
  loose.map(ledgerItem).forEach(ledgerSteps);
  return steps.sort((x, y) => (x.at === y.at ? order[x.step] - order[y.step] : x.at < y.at ? -1 : 1));
}

/** Which kind of id this is (the first of `ID_SOURCES` holding it in the account), and the ids it puts in scope. */
async function resolveScope(db: Db, a: string, id: string): Promise<Scope | null> {
  const resolvedAs = await idKindInAccount(db, a, id);
  if (!resolvedAs) return null;
  const s: Scope = { resolvedAs, executionIds: new Set(), searchIds: new Set(), eventIds: new Set(), ledgerIds: new Set(), sessionId: null };
  switch (resolvedAs) {
    case "usage_event_id": {
      const ev = rows<{ id: string; execution_id: string | null; search_id: string | null }>(
        await db.execute(sql`SELECT id, execution_id, search_id FROM usage_events WHERE id = ${id}::uuid AND account_id = ${a}`),
      )[0];
      s.eventIds.add(ev.id);
      if (ev.execution_id) s.executionIds.add(ev.execution_id);
      else if (ev.search_id) s.searchIds.add(ev.search_id);
      return s;
    }
    case "execution_id":
      s.executionIds.add(id);
      return s;
    case "search_id":
      s.searchIds.add(id);
      return s;
    case "ledger_entry_id": {
      const led = rows<{ id: string; execution_id: string | null; usage_event_id: string | null }>(
        await db.execute(sql`SELECT id, execution_id, usage_event_id FROM credits_ledger WHERE id = ${id} AND account_id = ${a}`),
      )[0];
      s.ledgerIds.add(led.id);
      if (led.execution_id) s.executionIds.add(led.execution_id);
      if (led.usage_event_id) s.eventIds.add(led.usage_event_id);
      for (const r of rows<{ id: string; execution_id: string | null; search_id: string | null }>(
        await db.execute(sql`SELECT id, execution_id, search_id FROM usage_events WHERE credits_ledger_entry_id = ${id} AND account_id = ${a} LIMIT 5`),
      )) {
        s.eventIds.add(r.id);
        if (r.execution_id) s.executionIds.add(r.execution_id);
        else if (r.search_id) s.searchIds.add(r.search_id);
      }
      return s;
    }
    case "session_id":
      s.sessionId = id;
      return s;
  }
}

