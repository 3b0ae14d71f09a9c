import { sql } from "drizzle-orm";
import { type LedgerEntryType, usageEvents, type UsageEventType } from "../db/schema";
import type { CreditKind } from "../billing/grant-credits";
import type { Db } from "../db/types";
import { newId, newUuid } from "../ids";
import { credits, creditsText } from "../money";
import type { TimeWindow } from "./time-window";
import { usageEventRow } from "./usage-event";

/**
 * Test helper: writes usage events (and, for charges, their linked ledger rows with a continuous
 * balance chain) at chosen past instants, the way the Call path would have written them then.
 * `skipLedger` leaves a charge without its ledger row, to test the anomaly and readiness checks.
 */
export interface PastEvent {
  at: Date;
  /** A chosen event id (UUID), e.g. to place rows that share a timestamp around a keyset cursor. */
  id?: string;
  eventType?: UsageEventType;
  success?: boolean;
  /** Defaults to `success`; the contract lets the two differ. */
  billableSuccess?: boolean;
  /** Settled credits; > 0 is a charge with a consume_* ledger row. */
  amount?: string;
  reasonCode?: string;
  toolId?: string;
  apiKeyId?: string | null;
  displayTarget?: string;
  errorMessage?: string;
  billingSnapshotStatus?: "captured" | "not_applicable" | "missing";
  skipLedger?: boolean;
  executionId?: string;
  searchId?: string | null;
  sessionId?: string | null;
  channel?: "api" | "mcp";
  model?: string | null;
  runId?: string | null;
  oauthClientId?: string | null;
}

export interface WrittenEvent {
  id: string;
  executionId: string | null;
  ledgerId: string | null;
  at: Date;
}

export async function grantAt(db: Db, accountId: string, at: Date, amount: string, description = "payment recharge"): Promise<string> {
  const id = newId("led");
  await db.execute(sql`
    WITH b AS (UPDATE credit_balances SET paid_credits = paid_credits + ${amount}::numeric WHERE account_id = ${accountId}
               RETURNING paid_credits + bonus_credits + reward_credits AS total_after)
    INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, source_ref_type, source_ref_id,
                                balance_before, balance_after, ledger_metadata, description, created_at)
    SELECT ${id}, ${accountId}, 'grant_payment_recharge', ${amount}::numeric, 'admin', 'grant', ${id},
           total_after - ${amount}::numeric, total_after, '{"credit_kind":"paid"}'::jsonb, ${description}, ${at.toISOString()}::timestamptz FROM b`);
  return id;
}

export async function writePastEvents(db: Db, accountId: string, events: PastEvent[]): Promise<WrittenEvent[]> {
  const out: WrittenEvent[] = [];
  for (const e of events) {
    const eventType = e.eventType ?? "tool_execute";
    const isCall = eventType === "tool_execute" || eventType === "capabilities_query";
    const executionId = isCall ? (e.executionId ?? newId("exe")) : null;
    const amount = e.amount ?? "0";
    const charged = credits(amount).gt(0);
    const ledgerId = charged && !e.skipLedger ? newId("led") : null;
    const row = usageEventRow({
      id: e.id ?? newUuid(),
      accountId,
      apiKeyId: e.apiKeyId ?? null,
      eventType,
      sourceRefType: isCall ? "execution" : "search",
      sourceRefId: executionId ?? undefined,
      sessionId: e.sessionId ?? executionId,
      searchId: e.searchId ?? null,
      executionId,
      toolId: e.toolId ?? (isCall ? "builtin.finance.compound_interest" : null),
      success: e.success ?? true,
      billableSuccess: e.billableSuccess,
      settledAmount: amount,
      reasonCode: e.reasonCode ?? (e.success === false ? "provider.error" : "result.valid"),
      errorMessage: e.errorMessage ?? null,
      durationMs: 12,
      billingSnapshotStatus: e.billingSnapshotStatus ?? (isCall ? "captured" : "not_applicable"),
      billingRuleSnapshot: isCall ? { unit: "call", amount_credits: Number(amount) } : undefined,
      preSettlementBill: { execution_id: executionId, summary: `${amount} credits`, list_amount_credits: Number(amount) },
      executionOutcome: isCall ? { outcome: e.success === false ? "provider_error" : "success", reason_code: e.reasonCode ?? "result.valid" } : null,
      creditsLedgerEntryId: ledgerId,
      displayTarget: e.displayTarget ?? "Compound interest",
      billingSummary: charged ? `${creditsText(amount)} (per call)` : "Not charged",
      requestPayload: { tool_id: e.toolId ?? null, parameters: { principal: 100 } },
      responsePayloadSummary: { success: e.success ?? true },
      channel: e.channel,
      model: e.model ?? null,
      runId: e.runId ?? null,
      oauthClientId: e.oauthClientId ?? null,
    });
    await db.insert(usageEvents).values({ ...row, createdAt: e.at });
    if (ledgerId) {
      const entryType = eventType === "model_call" ? "consume_model_call" : eventType === "search" ? "consume_tool_search" : "consume_tool_execute";
      await db.execute(sql`
        WITH b AS (UPDATE credit_balances SET paid_credits = paid_credits - ${amount}::numeric WHERE account_id = ${accountId}
                   RETURNING paid_credits + bonus_credits + reward_credits AS total_after)
        INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, source_ref_type, source_ref_id, execution_id,
                                    usage_event_id, balance_before, balance_after, ledger_metadata, description, created_at)
        SELECT ${ledgerId}, ${accountId}, ${entryType}, -${amount}::numeric, 'tollgate', 'execution', ${executionId}, ${executionId},
               ${isCall ? null : row.id}::uuid, total_after + ${amount}::numeric, total_after,
               ${JSON.stringify({ credit_split: { bonus: "0", reward: "0", paid: amount } })}::jsonb, 'Call', ${e.at.toISOString()}::timestamptz FROM b`);
    }
    if (executionId) {
      await db.execute(sql`
        INSERT INTO executions (id, account_id, tool_id, search_id, session_id, model, run_id, oauth_client_id, status, success, reason_code, charge_outcome, settled_credits, created_at, settled_at)
        VALUES (${executionId}, ${accountId}, ${row.toolId ?? ""}, ${e.searchId ?? null}, ${row.sessionId ?? executionId}, ${e.model ?? null}, ${e.runId ?? null}, ${e.oauthClientId ?? null}, 'settled', ${row.billableSuccess},
                ${row.reasonCode}, ${row.chargeOutcome}, ${amount}::numeric, ${e.at.toISOString()}::timestamptz, ${e.at.toISOString()}::timestamptz)`);
    }
    out.push({ id: row.id as string, executionId, ledgerId, at: e.at });
  }
  return out;
}

export interface PastLedgerRow {
  at: Date;
  entryType: LedgerEntryType;
  /** Signed, as the ledger stores it. */
  amount: string;
  /** The kind the whole amount belongs to (grants, expiries): `credit_kind`. */
  kind?: CreditKind;
  /** Otherwise what each kind gave (consume rows: positive shares; refunds: minus what each got back): `credit_split`. */
  split?: Partial<Record<CreditKind, string>>;
  executionId?: string | null;
  metadata?: Record<string, unknown>;
  /**
   * Credits that changed the balance just before this row without a ledger row of their own: the
   * row's balance_before then differs from the previous row's balance_after (a broken chain).
   */
  offLedger?: string;
}

/** Test helper: one ledger row of any type at a chosen past instant, its balance moved by kind as the real writers do. */
export async function ledgerRowAt(db: Db, accountId: string, row: PastLedgerRow): Promise<string> {
  const id = newId("led");
  if (row.offLedger) await db.execute(sql`UPDATE credit_balances SET paid_credits = paid_credits + ${row.offLedger}::numeric WHERE account_id = ${accountId}`);
  const delta = (k: CreditKind) => (row.kind ? (row.kind === k ? row.amount : "0") : credits(row.split?.[k] ?? "0").neg().toFixed());
  const metadata = { ...(row.kind ? { credit_kind: row.kind } : { credit_split: { bonus: "0", reward: "0", paid: "0", ...row.split } }), ...row.metadata };
  await db.execute(sql`
    WITH b AS (UPDATE credit_balances SET paid_credits = paid_credits + ${delta("paid")}::numeric, bonus_credits = bonus_credits + ${delta("bonus")}::numeric,
                                          reward_credits = reward_credits + ${delta("reward")}::numeric
                WHERE account_id = ${accountId} RETURNING paid_credits + bonus_credits + reward_credits AS total_after)
    INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, source_ref_type, source_ref_id, execution_id,
                                balance_before, balance_after, ledger_metadata, description, created_at)
    SELECT ${id}, ${accountId}, ${row.entryType}, ${row.amount}::numeric, 'admin', ${row.executionId ? "execution" : "grant"}, ${row.executionId ?? id},
           ${row.executionId ?? null}, total_after - ${row.amount}::numeric, total_after, ${JSON.stringify(metadata)}::jsonb, ${row.entryType},
           ${row.at.toISOString()}::timestamptz FROM b`);
  return id;
}

/**
 * A UTC window for the pure window helpers' tests: its bounds (canonical instants or null) and the
 * seal boundary, on a fixed clock (2026-08-10 12:00 UTC, sealable up to 11:00).
 */
export function testWindow(start: string | null, end: string | null, sealedUntil: string | null): TimeWindow {
  return {
    start,
    end,
    startDate: start ? new Date(start) : null,
    endDate: end ? new Date(end) : null,
    tz: "UTC",
    now: new Date("2026-08-10T12:00:00Z"),
    sealedUntil: sealedUntil ? new Date(sealedUntil) : null,
    sealable: new Date("2026-08-10T11:00:00Z"),
  };
}
