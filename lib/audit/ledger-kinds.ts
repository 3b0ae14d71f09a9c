import { type SQL, sql } from "drizzle-orm";
import type { CreditKind } from "../billing/grant-credits";

/** Every credit kind, in the order reports list them. */
export const creditKinds = ["paid", "bonus", "reward"] as const satisfies readonly CreditKind[];

/**
 * The part of a ledger row (alias `t`, or unqualified columns) that belongs to one credit kind: all
 * of it to its `credit_kind` (grants, expiries), else minus its `credit_split` share (consumption
 * draws positive shares, refunds negative ones). Summed per kind, it is the balance of that kind.
 */
export function ledgerKindAmount(kind: CreditKind, t?: string): SQL {
  const col = (name: string) => sql.raw(t ? `${t}.${name}` : name);
  return sql`CASE WHEN ${col("ledger_metadata")} ? 'credit_kind'
                  THEN CASE WHEN ${col("ledger_metadata")}->>'credit_kind' = ${kind} THEN ${col("amount_credits")} ELSE 0 END
                  ELSE -coalesce((${col("ledger_metadata")}->'credit_split'->>${kind})::numeric, 0) END`;
}
