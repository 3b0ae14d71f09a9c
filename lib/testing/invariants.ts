import { sql } from "drizzle-orm";
import { expect } from "vitest";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { deriveChargeOutcome } from "../billing/charge-outcome";
import { credits, type CreditAmount as Decimal } from "../money";

interface LedgerRow {
  id: string;
  seq: number;
  entry_type: string;
  amount_credits: string;
  balance_before: string;
  balance_after: string;
  execution_id: string | null;
  ledger_metadata: { credit_kind?: string; credit_split?: Record<string, string> };
}

interface EventRow {
  id: string;
  execution_id: string | null;
  success: boolean;
  billable_success: boolean;
  charge_outcome: string;
  settled_amount_credits: string;
  actual_amount_credits: string;
  credits_ledger_entry_id: string | null;
}

const eq = (a: string | number | Decimal, b: string | number | Decimal) => credits(a).eq(credits(b));

/**
 * The money-path invariants of DESIGN-NOTES.md, checked against the database for one account:
 * 1. sum(ledger) = balance, overall and per credit kind;
 * 2. each row's balance_after = balance_before + amount, chained row to row;
 * 3. charged / failed_charged_review events have exactly one ledger row, each consume row exactly
 *    one event, included / failed_not_charged events none;
 * 4. charge_outcome = f(effective success, settled amount) on every event;
 * 5. no balance (available, per kind, reserved) below zero, and the reservation equals what
 *    in-flight executions hold.
 */
export async function assertLedgerInvariants(db: Db, accountId: string): Promise<void> {
  const balance = rows<{ paid: string; bonus: string; reward: string; reserved: string }>(
    await db.execute(sql`SELECT paid_credits AS paid, bonus_credits AS bonus, reward_credits AS reward, reserved_credits AS reserved
                           FROM credit_balances WHERE account_id = ${accountId}`),
  )[0];
  expect(balance, `balance row of ${accountId}`).toBeDefined();
  const ledger = rows<LedgerRow>(
    await db.execute(sql`SELECT id, seq, entry_type, amount_credits, balance_before, balance_after, execution_id, ledger_metadata
                           FROM credits_ledger WHERE account_id = ${accountId} ORDER BY seq`),
  );
  const events = rows<EventRow>(
    await db.execute(sql`SELECT id, execution_id, success, billable_success, charge_outcome, settled_amount_credits, actual_amount_credits, credits_ledger_entry_id
                           FROM usage_events WHERE account_id = ${accountId}`),
  );
  const heldByExecutions = rows<{ held: string }>(
    await db.execute(sql`SELECT coalesce(sum(reserved_credits), 0) AS held FROM executions WHERE account_id = ${accountId} AND status = 'reserved'`),
  )[0].held;

  // 1. Sum of the ledger = balance, overall and per kind.
  const total = credits(balance.paid).plus(balance.bonus).plus(balance.reward);
  const sum = ledger.reduce((acc, r) => acc.plus(r.amount_credits), credits(0));
  expect(sum.toFixed(6), "sum of ledger amounts = balance").toBe(total.toFixed(6));
  const perKind = { paid: credits(0), bonus: credits(0), reward: credits(0) };
  for (const r of ledger) {
    const kind = r.ledger_metadata.credit_kind as keyof typeof perKind | undefined;
    if (kind) perKind[kind] = perKind[kind].plus(r.amount_credits);
    else {
      const split = r.ledger_metadata.credit_split;
      expect(split, `ledger row ${r.id} records which kinds it drew on`).toBeDefined();
      for (const k of ["paid", "bonus", "reward"] as const) perKind[k] = perKind[k].minus(split?.[k] ?? 0);
    }
  }
  for (const k of ["paid", "bonus", "reward"] as const) {
    expect(perKind[k].toFixed(6), `sum of ledger for ${k} credits = ${k}_credits`).toBe(credits(balance[k]).toFixed(6));
  }

  // 2. Balance snapshots: each row is consistent and continues the previous one.
  let previousAfter = credits(0);
  for (const r of ledger) {
    expect(eq(r.balance_after, credits(r.balance_before).plus(r.amount_credits)), `row ${r.id}: balance_after = balance_before + amount`).toBe(true);
    expect(eq(r.balance_before, previousAfter), `row ${r.id}: balance_before = previous balance_after`).toBe(true);
    previousAfter = credits(r.balance_after);
  }
  expect(previousAfter.toFixed(6), "last balance_after = balance").toBe(total.toFixed(6));

  // 3. Events and ledger rows are linked one to one, both ways.
  const ledgerById = new Map(ledger.map((r) => [r.id, r]));
  const eventsByLedger = new Map<string, EventRow[]>();
  for (const e of events) {
    if (e.credits_ledger_entry_id) eventsByLedger.set(e.credits_ledger_entry_id, [...(eventsByLedger.get(e.credits_ledger_entry_id) ?? []), e]);
  }
  for (const e of events) {
    if (e.charge_outcome === "charged" || e.charge_outcome === "failed_charged_review") {
      const row = e.credits_ledger_entry_id ? ledgerById.get(e.credits_ledger_entry_id) : undefined;
      expect(row, `${e.charge_outcome} event ${e.id} has its ledger row`).toBeDefined();
      expect(row!.execution_id, `ledger row of event ${e.id} names its execution`).toBe(e.execution_id);
      expect(eq(row!.amount_credits, credits(e.actual_amount_credits).neg()), `ledger amount of event ${e.id} = -actual amount`).toBe(true);
      if (e.execution_id) {
        const forExecution = ledger.filter((r) => r.execution_id === e.execution_id);
        expect(forExecution.length, `execution ${e.execution_id} has exactly one ledger row`).toBe(1);
      }
    } else {
      expect(e.credits_ledger_entry_id, `${e.charge_outcome} event ${e.id} has no ledger row`).toBeNull();
      if (e.execution_id) {
        const stray = ledger.filter((r) => r.execution_id === e.execution_id);
        expect(stray, `${e.charge_outcome} execution ${e.execution_id} has no ledger row`).toEqual([]);
      }
    }
  }
  for (const r of ledger.filter((l) => l.entry_type.startsWith("consume_"))) {
    expect(eventsByLedger.get(r.id)?.length ?? 0, `consume row ${r.id} has exactly one usage event`).toBe(1);
  }

  // 4. The charge outcome is the contract's pure function on every event.
  for (const e of events) {
    expect(e.charge_outcome, `event ${e.id}: charge_outcome from success and amount`).toBe(deriveChargeOutcome(e.billable_success, e.settled_amount_credits));
    expect(eq(e.actual_amount_credits, e.settled_amount_credits), `event ${e.id}: actual = settled amount`).toBe(true);
  }

  // 5. Nothing below zero; reserved credits are exactly what unsettled executions hold.
  for (const k of ["paid", "bonus", "reward", "reserved"] as const) expect(credits(balance[k]).gte(0), `${k}_credits >= 0`).toBe(true);
  expect(total.minus(balance.reserved).gte(0), "available credits >= 0").toBe(true);
  expect(credits(balance.reserved).toFixed(6), "reserved_credits = credits held by reserved executions").toBe(credits(heldByExecutions).toFixed(6));
}
