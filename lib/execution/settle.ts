import { executions, usageEvents } from "../db/schema";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { q, raw, rowStmt, runStatement as execute, type Stmt } from "../db/statement";
import { debitCtes, type DebitInput } from "../billing/debit-credits";
import { usageEventRow, type UsageEventInput } from "../audit/usage-event";

/**
 * The database side of a Call: each function is ONE statement (writable CTEs), so a Call costs
 * one round trip (free or in-process tools) or two (reserve, then settle, for upstream tools).
 */
type ExecutionRow = typeof executions.$inferInsert;

export interface SettleOutcome {
  /** False when a reservation was no longer held (released by the sweeper meanwhile). */
  settled: boolean;
  ledgerEntryId: string | null;
  availableAfter: string | null;
}

type Charge = Omit<DebitInput, "accountId" | "gate" | "release">;

function eventSql(event: UsageEventInput, ledgerRef: Stmt): { columns: Stmt; values: Stmt } {
  const row = usageEventRow(event) as Record<string, unknown>;
  row.creditsLedgerEntryId = ledgerRef;
  return rowStmt(usageEvents, row);
}

const available = (accountId: string) =>
  q`(SELECT paid_credits + bonus_credits + reward_credits - reserved_credits FROM credit_balances WHERE account_id = ${accountId})`;

/** A Call that needs no reservation: records execution and event, and charges when `charge` is given. */
export async function recordCall(db: Db, execution: ExecutionRow, event: UsageEventInput, charge?: Charge): Promise<SettleOutcome | null> {
  const ex = rowStmt(executions, execution as Record<string, unknown>);
  if (!charge) {
    const ev = eventSql(event, raw("null"));
    const result = await execute(db, q`
      WITH ex AS (INSERT INTO executions (${ex.columns}) VALUES (${ex.values}) RETURNING id),
           ev AS (INSERT INTO usage_events (${ev.columns}) SELECT ${ev.values} FROM ex)
      SELECT ${available(execution.accountId)} AS available`);
    return { settled: true, ledgerEntryId: null, availableAfter: rows<{ available: string | null }>(result)[0]?.available ?? null };
  }
  const ev = eventSql(event, raw("led.id"));
  const result = await execute(db, q`
    WITH ${debitCtes({ ...charge, accountId: execution.accountId })},
         ex AS (INSERT INTO executions (${ex.columns}) SELECT ${ex.values} FROM led RETURNING id),
         ev AS (INSERT INTO usage_events (${ev.columns}) SELECT ${ev.values} FROM led)
    SELECT led.id AS ledger_id, (SELECT available_after FROM upd) AS available FROM led`);
  const row = rows<{ ledger_id: string; available: string }>(result)[0];
  // No row: credits were short, nothing was written.
  return row ? { settled: true, ledgerEntryId: row.ledger_id, availableAfter: row.available } : null;
}

export type ReserveResult = { reserved: true } | { reserved: false; reason: "insufficient_credits" | "delegation_cap" };

/**
 * Holds `amount` on the balance (and on the delegation token's cap) and inserts the execution in
 * state `reserved`. Under Read Committed a concurrent writer makes the conditional UPDATE wait and
 * re-check, so no interleaving can overspend. A duplicate Idempotency-Key raises a unique violation
 * that undoes the whole statement.
 */
export async function reserveCall(db: Db, execution: ExecutionRow, amount: string, delegationJti?: string): Promise<ReserveResult> {
  const ex = rowStmt(executions, { ...execution, status: "reserved", reservedCredits: amount } as Record<string, unknown>);
  const holdsCredits = Number(amount) > 0;
  const balanceCte = holdsCredits
    ? q`b AS (UPDATE credit_balances SET reserved_credits = reserved_credits + ${amount}::numeric, updated_at = now()
                 WHERE account_id = ${execution.accountId}
                   AND paid_credits + bonus_credits + reward_credits - reserved_credits >= ${amount}::numeric RETURNING 1)`
    : q`b AS (SELECT 1)`;
  // Every data-modifying CTE runs, whatever the others return: the cap is reserved only once the
  // balance is (same lock order as settlement: balance row, then the token's spend row).
  const capCte = delegationJti
    ? q`d AS (UPDATE delegation_spend SET reserved_credits = reserved_credits + ${amount}::numeric
                 WHERE jti = ${delegationJti} AND spent_credits + reserved_credits + ${amount}::numeric <= max_credits
                   AND EXISTS (SELECT 1 FROM b) RETURNING 1)`
    : q`d AS (SELECT 1)`;
  const result = await execute(db, q`
    WITH ${balanceCte}, ${capCte},
         ex AS (INSERT INTO executions (${ex.columns}) SELECT ${ex.values} FROM b, d RETURNING id)
    SELECT (SELECT count(*) FROM ex) AS inserted, (SELECT count(*) FROM b) AS balance_ok, (SELECT count(*) FROM d) AS cap_ok`);
  const row = rows<{ inserted: number | string; balance_ok: number | string; cap_ok: number | string }>(result)[0];
  if (Number(row.inserted) === 1) return { reserved: true };
  if (Number(row.balance_ok) === 0) return { reserved: false, reason: "insufficient_credits" };
  // The balance was held but the token's cap refused: give the balance back.
  if (holdsCredits) {
    await execute(db, q`UPDATE credit_balances SET reserved_credits = reserved_credits - ${amount}::numeric, updated_at = now()
                          WHERE account_id = ${execution.accountId}`);
  }
  return { reserved: false, reason: "delegation_cap" };
}

/**
 * Settles a reserved Call exactly once: marks the execution settled, releases the reservation,
 * debits the actual amount with its ledger row, writes the usage event, and moves the delegation
 * token's reservation to its spend. A reservation already released by the sweeper settles nothing.
 */
export async function settleReservedCall(
  db: Db,
  executionId: string,
  update: Partial<ExecutionRow>,
  event: UsageEventInput,
  charge: Charge & { accountId: string },
  delegationJti?: string,
): Promise<SettleOutcome> {
  const sets = rowStmt(executions, update as Record<string, unknown>).pairs;
  const ev = eventSql(event, raw("(SELECT id FROM led)"));
  const cap = delegationJti
    ? q`, dc AS (UPDATE delegation_spend SET reserved_credits = greatest(reserved_credits - (SELECT reserved_credits FROM ex), 0),
                                          spent_credits = spent_credits + ${charge.amount}::numeric
                    WHERE jti = ${delegationJti} AND EXISTS (SELECT 1 FROM ex))`
    : raw("");
  const result = await execute(db, q`
    WITH ex AS (UPDATE executions SET ${sets}, status = 'settled', settled_at = now()
                 WHERE id = ${executionId} AND status = 'reserved' RETURNING reserved_credits),
         ${debitCtes({ ...charge, release: q`coalesce((SELECT reserved_credits FROM ex), 0)`, gate: q`EXISTS (SELECT 1 FROM ex)` })},
         ev AS (INSERT INTO usage_events (${ev.columns}) SELECT ${ev.values} FROM ex)
         ${cap}
    SELECT (SELECT count(*) FROM ex) AS settled, (SELECT id FROM led) AS ledger_id,
           coalesce((SELECT available_after FROM upd), ${available(charge.accountId)}) AS available`);
  const row = rows<{ settled: number | string; ledger_id: string | null; available: string | null }>(result)[0];
  return { settled: Number(row.settled) === 1, ledgerEntryId: row.ledger_id, availableAfter: row.available };
}
