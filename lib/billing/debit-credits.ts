import type { Db } from "../db/types";
import type { LedgerEntryType } from "../db/schema";
import { rows } from "../db/row-sql";
import { q, raw, runStatement, type Stmt } from "../db/statement";
import { creditsToSql } from "../money";

export interface DebitInput {
  accountId: string;
  /** Credits to consume (>= 0). With 0 only the reservation is released and no ledger row is written. */
  amount: string;
  /** Credits reserved earlier for this operation, released by the same statement (a value or SQL). */
  release?: string | Stmt;
  /** Extra condition for the balance row to be touched at all (e.g. that a guarding CTE matched). */
  gate?: Stmt;
  entryType: Extract<LedgerEntryType, `consume_${string}`>;
  ledgerId: string;
  description: string;
  sourceRefType: string;
  sourceRefId: string;
  executionId?: string | null;
  usageEventId?: string | null;
  apiKeyId?: string | null;
  preSettlementBill?: unknown;
  settlementResult?: unknown;
  metadata?: Record<string, unknown>;
}

export interface DebitResult {
  ledgerEntryId: string;
  balanceBefore: string;
  balanceAfter: string;
  split: { bonus: string; reward: string; paid: string };
}

/**
 * The CTEs `cur, split, upd, led` that consume credits and append the ledger row inside one
 * statement. Kinds are drawn in a fixed order: bonus, then reward, then paid (promotional credits
 * first; paid credits, which may be refunded, last). The balance row is locked (`FOR UPDATE`), so
 * balance snapshots form a continuous chain. When available credits (+ the released reservation)
 * are short, `split` is empty and nothing changes. `upd` returns `available_after`.
 */
export function debitCtes(input: DebitInput): Stmt {
  const amount = creditsToSql(input.amount);
  const release = typeof input.release === "string" || input.release === undefined ? q`${creditsToSql(input.release ?? "0")}::numeric` : input.release;
  const gate = input.gate ?? raw("true");
  return q`
    cur AS (
      SELECT account_id, bonus_credits AS b, reward_credits AS r, paid_credits AS p, reserved_credits AS res
        FROM credit_balances WHERE account_id = ${input.accountId} AND ${gate} FOR UPDATE
    ), split AS (
      SELECT account_id,
             least(b, ${amount}::numeric) AS tb,
             least(r, ${amount}::numeric - least(b, ${amount}::numeric)) AS tr,
             b + r + p AS total_before
        FROM cur
       WHERE b + r + p - res + ${release} >= ${amount}::numeric
    ), upd AS (
      UPDATE credit_balances cb
         SET bonus_credits = cb.bonus_credits - s.tb,
             reward_credits = cb.reward_credits - s.tr,
             paid_credits = cb.paid_credits - (${amount}::numeric - s.tb - s.tr),
             reserved_credits = greatest(cb.reserved_credits - ${release}, 0),
             updated_at = now()
        FROM split s
       WHERE cb.account_id = s.account_id
   RETURNING s.total_before, s.tb, s.tr, ${amount}::numeric - s.tb - s.tr AS tp,
             cb.paid_credits + cb.bonus_credits + cb.reward_credits - cb.reserved_credits AS available_after
    ), led AS (
      INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, source_ref_type, source_ref_id,
                                  execution_id, usage_event_id, api_key_id, pre_settlement_bill, settlement_result,
                                  balance_before, balance_after, ledger_metadata, description)
      SELECT ${input.ledgerId}, ${input.accountId}, ${input.entryType}, -${amount}::numeric, 'tollgate', ${input.sourceRefType},
             ${input.sourceRefId}, ${input.executionId ?? null}, ${input.usageEventId ?? null}, ${input.apiKeyId ?? null},
             ${input.preSettlementBill === undefined ? null : JSON.stringify(input.preSettlementBill)}::jsonb,
             ${input.settlementResult === undefined ? null : JSON.stringify(input.settlementResult)}::jsonb,
             upd.total_before, upd.total_before - ${amount}::numeric,
             ${JSON.stringify(input.metadata ?? {})}::jsonb
               || jsonb_build_object('credit_split', jsonb_build_object('bonus', upd.tb::text, 'reward', upd.tr::text, 'paid', upd.tp::text)),
             ${input.description}
        FROM upd
       WHERE ${amount}::numeric > 0
      RETURNING id, balance_before, balance_after, ledger_metadata
    )`;
}

/** Consumes credits and appends the ledger row in ONE statement; null (nothing changed) when short. */
export async function debitCredits(db: Db, input: DebitInput): Promise<DebitResult | null> {
  const result = await runStatement(db, q`WITH ${debitCtes(input)} SELECT * FROM led`);
  const row = rows<{ id: string; balance_before: string; balance_after: string; ledger_metadata: { credit_split: Record<string, unknown> } }>(result)[0];
  if (!row) return null;
  const split = row.ledger_metadata.credit_split;
  return {
    ledgerEntryId: row.id,
    balanceBefore: row.balance_before,
    balanceAfter: row.balance_after,
    split: { bonus: String(split.bonus), reward: String(split.reward), paid: String(split.paid) },
  };
}
