import { expect } from "vitest";
import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
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

/**
 * Replays an account's ledger in `seq` order: every expiring grant opens a lot, and every consume
 * row must have drawn its credit split from the live lots of each kind, soonest-expiring first
 * (`ledger_metadata.grant_lots`), as the debit does; each lot's remainder must be what the replay
 * leaves. A debit that missed a lot committed before it took the balance row fails here.
 */
export async function assertBurnOrderReplays(db: Db, accountId: string): Promise<void> {
  const ledger = rows<{ id: string; entry_type: string; amount_credits: string; ledger_metadata: Record<string, unknown> }>(
    await db.execute(sql`SELECT id, entry_type, amount_credits, ledger_metadata FROM credits_ledger WHERE account_id = ${accountId} ORDER BY seq`),
  );
  const micro = (v: string) => {
    const [whole, fraction = ""] = v.split(".");
    return BigInt(whole + fraction.padEnd(6, "0"));
  };
  const lots = new Map<string, { kind: string; expires: string; remaining: bigint }>();
  for (const row of ledger) {
    const meta = row.ledger_metadata;
    if (row.entry_type.startsWith("grant_") && typeof meta.expires_at === "string") {
      lots.set(row.id, { kind: meta.credit_kind as string, expires: new Date(meta.expires_at).toISOString(), remaining: micro(row.amount_credits) });
    }
    // A payment's reversal takes paid credits outside the lots (lib/payments/payment-reversals.ts).
    if (!row.entry_type.startsWith("consume_") || row.entry_type === "consume_payment_refund") continue;
    const expected: Record<string, string> = {};
    for (const [kind, share] of Object.entries(meta.credit_split as Record<string, string>)) {
      let left = micro(share);
      const ordered = [...lots.entries()].filter(([, l]) => l.kind === kind && l.remaining > 0n).sort(([a, x], [b, y]) => (x.expires === y.expires ? (a < b ? -1 : 1) : x.expires < y.expires ? -1 : 1));
      for (const [id, l] of ordered) {
        const take = left < l.remaining ? left : l.remaining;
        if (take === 0n) break;
        l.remaining -= take;
        left -= take;
        expected[id] = (Number(take) / 1e6).toFixed(6);
      }
    }
    expect(meta.grant_lots ?? {}, `grant_lots of ${row.id}`).toEqual(expected);
  }
  const remaining = new Map(
    rows<{ id: string; remaining: string }>(await db.execute(sql`SELECT id, remaining_credits::text AS remaining FROM credit_grants WHERE account_id = ${accountId}`)).map((r) => [r.id, r.remaining]),
  );
  for (const [id, l] of lots) expect(micro(remaining.get(id) ?? "0"), `remaining of ${id}`).toBe(l.remaining);
}
