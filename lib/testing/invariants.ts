import { expect } from "vitest";
import type { Db } from "../db/types";
import { verifyLedger } from "../audit/verify";

/**
 * The money-path invariants of DESIGN-NOTES.md for one account, as `audit verify` checks them
 * (lib/audit/verify.ts): ledger sums = balance per kind, the balance chain, charged events and
 * consume rows one to one, charge outcomes, nothing below zero, reservations accounted for.
 */
export async function assertLedgerInvariants(db: Db, accountId: string): Promise<void> {
  const report = await verifyLedger(db, { accountId });
  expect(report.accounts_checked, `balance row of ${accountId}`).toBe(1);
  expect(report.violations, `audit verify of ${accountId}`).toEqual([]);
}
