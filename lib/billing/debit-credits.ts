import type { Db } from "../db/types";
import type { LedgerEntryType } from "../db/schema";
import { rows } from "../db/row-sql";
import { runQuery } from "../db/statement";
import { creditsToSql } from "../money";

/** The static part of a consume row; amounts, balances and the credit split come from the debit. */
export interface LedgerRowInput {
  id: string;
  entry_type: Extract<LedgerEntryType, `consume_${string}`>;
  description: string;
  source_ref_type: string;
  source_ref_id: string;
  execution_id?: string | null;
  usage_event_id?: string | null;
  api_key_id?: string | null;
  pre_settlement_bill?: unknown;
  settlement_result?: unknown;
  ledger_metadata?: Record<string, unknown>;
}

/**
 * The CTEs `cur, split, lots, draws, lot_upd, drawn, upd, led` that consume credits and append ledger rows inside one
 * statement, for every row of a preceding CTE `charges(i, account_id, amount, release, ledger)`:
 * `amount` to consume (>= 0; 0 only releases), `release` credits reserved earlier and freed by
 * the same statement, `ledger` the static fields of the consume row (JSON, `LedgerRowInput`).
 * An account appears at most once in `charges`.
 *
 * Kinds are drawn in a fixed order: bonus, then reward, then paid (promotional credits first;
 * paid credits, which may be refunded, last). Within a kind, the kind's live expiring grants
 * (`credit_grants`) are drawn soonest-expiring first (ties by id), then its non-expiring rest; the
 * lots drawn are named on the consume row (`ledger_metadata.grant_lots`, only when any).
 * Balance rows are locked in account order (`FOR UPDATE`), then the lots of the kinds drawn: every
 * writer of an account's lots (grant, debit, expiry) holds its balance row lock, so they change
 * one at a time and balance snapshots form a continuous chain. Lots are read `FOR UPDATE` to get
 * their latest versions; a lot inserted after this statement's snapshot cannot be missed, because
 * an expiring grant locks `credit_grants` against this statement first (lib/billing/grant-credits.ts).
 * A charge whose available credits (+ its release) are short gets no `split` row and changes
 * nothing. `upd` returns `i` and `available_after`; `led` returns `id`.
 */
export const DEBIT_CTES = `
    cur AS (
      SELECT account_id, bonus_credits AS b, reward_credits AS r, paid_credits AS p, reserved_credits AS res
        FROM credit_balances WHERE account_id IN (SELECT account_id FROM charges)
       ORDER BY account_id FOR UPDATE
    ), split AS (
      SELECT c.i, c.account_id, c.amount, c.release, c.ledger,
             least(cur.b, c.amount) AS tb,
             least(cur.r, c.amount - least(cur.b, c.amount)) AS tr,
             cur.b + cur.r + cur.p AS total_before
        FROM charges c JOIN cur USING (account_id)
       WHERE cur.b + cur.r + cur.p - cur.res + c.release >= c.amount
    ), lots AS (
      -- An index probe (credit_grants_live_idx) per account: nothing more for accounts without lots.
      SELECT s.i, g.id, g.account_id, g.kind, g.remaining_credits, g.expires_at,
             CASE g.kind WHEN 'bonus' THEN s.tb WHEN 'reward' THEN s.tr ELSE s.amount - s.tb - s.tr END AS kind_take
        FROM split s JOIN credit_grants g ON g.account_id = s.account_id AND g.expired_at IS NULL
       WHERE CASE g.kind WHEN 'bonus' THEN s.tb WHEN 'reward' THEN s.tr ELSE s.amount - s.tb - s.tr END > 0
         AND (SELECT count(*) FROM cur) >= 0
         FOR UPDATE OF g
    ), draws AS (
      SELECT i, id, least(remaining_credits, greatest(kind_take - coalesce(sum(remaining_credits) OVER (
               PARTITION BY account_id, kind ORDER BY expires_at, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0), 0)) AS take
        FROM lots
    ), lot_upd AS (
      UPDATE credit_grants g SET remaining_credits = g.remaining_credits - d.take
        FROM draws d WHERE g.id = d.id AND d.take > 0
    ), drawn AS (
      SELECT i, jsonb_build_object('grant_lots', jsonb_object_agg(id, round(take, 6)::text)) AS meta FROM draws WHERE take > 0 GROUP BY i
    ), upd AS (
      UPDATE credit_balances cb
         SET bonus_credits = cb.bonus_credits - s.tb,
             reward_credits = cb.reward_credits - s.tr,
             paid_credits = cb.paid_credits - (s.amount - s.tb - s.tr),
             reserved_credits = greatest(cb.reserved_credits - s.release, 0),
             updated_at = now()
        FROM split s
       WHERE cb.account_id = s.account_id
   RETURNING s.i, s.account_id, s.amount, s.ledger, s.total_before, s.tb, s.tr, s.amount - s.tb - s.tr AS tp,
             cb.paid_credits + cb.bonus_credits + cb.reward_credits - cb.reserved_credits AS available_after
    ), led AS (
      INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, source_ref_type, source_ref_id,
                                  execution_id, usage_event_id, api_key_id, pre_settlement_bill, settlement_result,
                                  balance_before, balance_after, ledger_metadata, description)
      SELECT l.id, u.account_id, l.entry_type, -u.amount, 'tollgate', l.source_ref_type, l.source_ref_id,
             l.execution_id, l.usage_event_id, l.api_key_id, l.pre_settlement_bill, l.settlement_result,
             u.total_before, u.total_before - u.amount,
             coalesce(l.ledger_metadata, '{}'::jsonb)
               || jsonb_build_object('credit_split', jsonb_build_object('bonus', u.tb::text, 'reward', u.tr::text, 'paid', u.tp::text))
               || coalesce(d.meta, '{}'::jsonb),
             l.description
        FROM upd u CROSS JOIN LATERAL jsonb_populate_record(NULL::credits_ledger, u.ledger) l LEFT JOIN drawn d ON d.i = u.i
       WHERE u.amount > 0
      RETURNING id, balance_before, balance_after, ledger_metadata
    )`;

export interface DebitInput {
  accountId: string;
  /** Credits to consume (> 0). */
  amount: string;
  ledger: LedgerRowInput;
}

export interface DebitResult {
  ledgerEntryId: string;
  balanceBefore: string;
  balanceAfter: string;
  split: { bonus: string; reward: string; paid: string };
}

const DEBIT_ONE = `
  WITH charges AS (SELECT 1 AS i, $1::text AS account_id, $2::numeric AS amount, 0::numeric AS release, $3::jsonb AS ledger),
  ${DEBIT_CTES}
  SELECT * FROM led`;

/** Consumes credits and appends the ledger row in ONE statement; null (nothing changed) when short. */
export async function debitCredits(db: Db, input: DebitInput): Promise<DebitResult | null> {
  const result = await runQuery(db, DEBIT_ONE, [input.accountId, creditsToSql(input.amount), JSON.stringify(input.ledger)]);
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
