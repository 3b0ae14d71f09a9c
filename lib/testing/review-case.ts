import { sql } from "drizzle-orm";
import { usageEvents } from "../db/schema";
import type { Db } from "../db/types";
import { debitCredits } from "../billing/debit-credits";
import { usageEventRow } from "../audit/usage-event";
import { newId, newUuid } from "../ids";
import { creditsText } from "../money";

export interface ReviewCase {
  executionId: string;
  usageEventId: string;
  ledgerEntryId: string;
  split: { bonus: string; reward: string; paid: string };
}

/**
 * Test helper: a Call that failed yet was charged (`failed_charged_review`, the support case a
 * refund resolves), written as settlement would write it — the real debit (kinds drawn bonus,
 * reward, paid; the split on the consume row), the usage event linked to its ledger row, and the
 * settled execution — in one transaction. The Call path itself never charges a failure, so tests
 * need this to have one. `outcome: "charged"` writes a successful charge instead.
 */
export async function writeReviewCase(
  db: Db,
  accountId: string,
  amount: string,
  options: { toolId?: string; outcome?: "failed_charged_review" | "charged" } = {},
): Promise<ReviewCase> {
  const executionId = newId("exe");
  const usageEventId = newUuid();
  const ledgerEntryId = newId("led");
  const toolId = options.toolId ?? "builtin.finance.compound_interest";
  const success = options.outcome === "charged";
  return db.transaction(async (tx) => {
    const debit = await debitCredits(tx, {
      accountId,
      amount,
      ledger: {
        id: ledgerEntryId,
        entry_type: "consume_tool_execute",
        description: `Call ${toolId}`,
        source_ref_type: "execution",
        source_ref_id: executionId,
        execution_id: executionId,
        usage_event_id: usageEventId,
        ledger_metadata: { tool_id: toolId },
      },
    });
    if (!debit) throw new Error(`writeReviewCase: account ${accountId} has less than ${amount} credits`);
    const row = usageEventRow({
      id: usageEventId,
      accountId,
      eventType: "tool_execute",
      sourceRefType: "execution",
      sourceRefId: executionId,
      sessionId: executionId,
      executionId,
      toolId,
      success,
      settledAmount: amount,
      reasonCode: success ? "result.valid" : "provider.error",
      errorMessage: success ? null : "The provider answered 500",
      durationMs: 40,
      billingSnapshotStatus: "captured",
      billingRuleSnapshot: { unit: "call", amount_credits: Number(amount) },
      preSettlementBill: { execution_id: executionId, summary: `${creditsText(amount)} (per call)`, list_amount_credits: Number(amount) },
      executionOutcome: { outcome: success ? "success" : "provider_error", reason_code: success ? "result.valid" : "provider.error" },
      creditsLedgerEntryId: ledgerEntryId,
      displayTarget: toolId,
      billingSummary: `${creditsText(amount)} (per call)`,
    });
    await tx.insert(usageEvents).values(row);
    await tx.execute(sql`
      INSERT INTO executions (id, account_id, tool_id, session_id, status, success, reason_code, charge_outcome, settled_credits, duration_ms, settled_at)
      VALUES (${executionId}, ${accountId}, ${toolId}, ${executionId}, 'settled', ${success}, ${row.reasonCode}, ${row.chargeOutcome}, ${amount}::numeric, 40, now())`);
    return { executionId, usageEventId, ledgerEntryId, split: debit.split };
  });
}
