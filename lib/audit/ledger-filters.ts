import { type SQL, sql } from "drizzle-orm";
import { type LedgerEntryType, ledgerEntryTypes } from "../db/schema";
import { invalidInput } from "../errors";

/** Contract 4.3 `scope`: predefined groups of entry types (`all` is ours: every type). */
export const ledgerScopes = {
  account_history: ["grant_payment_recharge", "consume_tool_search", "consume_tool_execute", "consume_model_call"],
  expiry: ["expire_payment_recharge", "expire_welcome_bonus", "expire_invitation_reward"],
  all: ledgerEntryTypes,
} as const satisfies Record<string, readonly LedgerEntryType[]>;
export type LedgerScope = keyof typeof ledgerScopes;

export const directions = ["consume", "grant", "any"] as const;
export type Direction = (typeof directions)[number];

export function parseDirection(raw: string | undefined): Direction {
  if (raw === undefined || raw === "") return "any";
  if ((directions as readonly string[]).includes(raw)) return raw as Direction;
  throw invalidInput(`Invalid direction: "${raw.slice(0, 32)}". Allowed values: consume, grant, any`);
}

export interface LedgerFilters {
  entryType?: LedgerEntryType;
  scope?: LedgerScope;
  direction: Direction;
  /** Absolute amounts: min_credits=5 matches -5 and +5. */
  minCredits?: string;
  maxCredits?: string;
}

const list = (types: readonly string[]) => sql.join(types.map((t) => sql`${t}`), sql`, `);

/** WHERE conditions on ledger rows (alias `l`). */
export function ledgerConditions(f: LedgerFilters): SQL[] {
  const out: SQL[] = [];
  if (f.entryType) out.push(sql`l.entry_type = ${f.entryType}`);
  if (f.scope) out.push(sql`l.entry_type IN (${list(ledgerScopes[f.scope])})`);
  if (f.direction === "consume") out.push(sql`l.amount_credits < 0`);
  if (f.direction === "grant") out.push(sql`l.amount_credits > 0`);
  if (f.minCredits !== undefined) out.push(sql`abs(l.amount_credits) >= ${f.minCredits}::numeric`);
  if (f.maxCredits !== undefined) out.push(sql`abs(l.amount_credits) <= ${f.maxCredits}::numeric`);
  return out;
}

/**
 * WHERE conditions on `ledger_hourly_rollup` (alias `r`), or null when amount bounds make the
 * rollup unusable. The direction is applied by the caller, which picks the consume or grant
 * columns of each rollup row.
 */
export function ledgerRollupConditions(f: LedgerFilters): SQL[] | null {
  if (f.minCredits !== undefined || f.maxCredits !== undefined) return null;
  const out: SQL[] = [];
  if (f.entryType) out.push(sql`r.entry_type = ${f.entryType}`);
  if (f.scope) out.push(sql`r.entry_type IN (${list(ledgerScopes[f.scope])})`);
  return out;
}

/**
 * Per-row measures `(n_consume, n_grant, n_other, consumed, granted)` with the direction
 * applied, for rollup rows (alias `r`) and ledger rows (alias `l`).
 */
export function ledgerMeasures(direction: Direction, target: "rollup" | "ledger"): SQL {
  const consume = direction !== "grant";
  const grant = direction !== "consume";
  const other = direction === "any";
  if (target === "rollup") {
    return sql.raw(`${consume ? "r.consume_count" : "0"} AS n_consume, ${grant ? "r.grant_count" : "0"} AS n_grant,
      ${other ? "r.entry_count - r.consume_count - r.grant_count" : "0"} AS n_other,
      ${consume ? "r.consumed_credits" : "0"} AS consumed, ${grant ? "r.granted_credits" : "0"} AS granted`);
  }
  return sql.raw(`(l.amount_credits < 0)::int AS n_consume, (l.amount_credits > 0)::int AS n_grant, (l.amount_credits = 0)::int AS n_other,
    greatest(-l.amount_credits, 0) AS consumed, greatest(l.amount_credits, 0) AS granted`);
}
