import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { budgetPeriods, budgetScopes, type BudgetPeriod, type BudgetScope } from "../db/schema";
import { rows } from "../db/row-sql";
import { runQuery } from "../db/statement";
import { invalidInput, notFound } from "../errors";
import { newId } from "../ids";
import { creditsText, creditsToNumber, creditsToSql, credits as toDecimal, isCreditString } from "../money";
import { systemClock, type Clock } from "../clock";
import { type Actor, SYSTEM, recordActivity } from "../accounts/activity";
import { DEBIT_CTES, type DebitResult, type LedgerRowInput } from "./debit-credits";
import { BUDGET_SPEND_CTE, alertCtes, blTags, budgetCheckCtes, tagLedger, type BudgetRefusal } from "./budget-sql";

/** A budget as the API, the CLI and the dashboard show it: its counters in the period containing `at`. */
export interface BudgetView {
  budget_id: string;
  scope: BudgetScope;
  /** The API key id or OAuth client id; null for the account's own budget. */
  scope_id: string | null;
  /** The key's or OAuth client's name, as a person knows it; null for the account's own budget. */
  scope_name: string | null;
  limit_credits: number;
  period: BudgetPeriod;
  time_zone: string;
  /** Start of the current period (null for a lifetime budget). */
  period_start: string | null;
  /** When the current period ends and spend starts again from zero (null for a lifetime budget). */
  resets_at: string | null;
  spent_credits: number;
  /** Held by Calls in flight: counted against the limit until they settle. */
  reserved_credits: number;
  remaining_credits: number;
  /** Spent + reserved, as a percentage of the limit (100 when the limit is 0). */
  used_percent: number;
  updated_at: string;
}

export interface SetBudgetInput {
  accountId: string;
  scope: BudgetScope;
  /** API key id (scope api_key) or OAuth client id (scope oauth_client). */
  scopeId?: string;
  limitCredits: string;
  period: BudgetPeriod;
  timeZone?: string;
  /** Who sets it, for the account activity log (default: Tollgate itself). */
  actor?: Actor;
}

interface BudgetRow {
  id: string;
  scope: BudgetScope;
  scope_id: string;
  scope_name: string | null;
  limit_credits: string;
  period: BudgetPeriod;
  time_zone: string;
  period_start: string | Date | null;
  resets_at: string | Date | null;
  spent: string;
  reserved_credits: string;
  updated_at: string | Date;
}

const iso = (v: string | Date | null): string | null => {
  if (v === null) return null;
  const d = new Date(v);
  return Number.isFinite(d.getTime()) ? d.toISOString() : null;
};

function view(r: BudgetRow): BudgetView {
  const limit = toDecimal(r.limit_credits);
  const used = toDecimal(r.spent).plus(r.reserved_credits);
  const remaining = limit.minus(used);
  return {
    budget_id: r.id,
    scope: r.scope,
    scope_id: r.scope === "account" ? null : r.scope_id,
    scope_name: r.scope === "account" ? null : r.scope_name,
    limit_credits: creditsToNumber(r.limit_credits),
    period: r.period,
    time_zone: r.time_zone,
    period_start: r.period === "none" ? null : iso(r.period_start),
    resets_at: r.period === "none" ? null : iso(r.resets_at),
    spent_credits: creditsToNumber(r.spent),
    reserved_credits: creditsToNumber(r.reserved_credits),
    remaining_credits: creditsToNumber(remaining.isNegative() ? toDecimal(0) : remaining),
    used_percent: limit.isZero() ? 100 : used.div(limit).times(100).toDecimalPlaces(1).toNumber(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

/** The name of what budget `b` limits: its API key's or OAuth client's; null for the account. */
export const SCOPE_NAME = `CASE b.scope
         WHEN 'api_key' THEN (SELECT k.name FROM api_keys k WHERE k.id = b.scope_id::uuid)
         WHEN 'oauth_client' THEN (SELECT c.name FROM oauth_clients c WHERE c.id = b.scope_id)
       END`;

/** Columns of a budget seen at the time in parameter `at` (spend of an older period reads as 0). */
const viewColumns = (at: string) => `b.id, b.scope, b.scope_id, b.limit_credits, b.period, b.time_zone, b.reserved_credits, b.updated_at,
       budget_period_start(b.period, b.time_zone, ${at}::timestamptz) AS period_start,
       budget_period_end(b.period, b.time_zone, ${at}::timestamptz) AS resets_at,
       CASE WHEN b.period_start = budget_period_start(b.period, b.time_zone, ${at}::timestamptz) THEN b.spent_credits ELSE 0 END AS spent,
       ${SCOPE_NAME} AS scope_name`;

/** An account's budgets, tightest first (least remaining), with their spend in the current period. */
export async function listBudgets(db: Db, accountId: string, clock: Clock = systemClock): Promise<BudgetView[]> {
  const result = await runQuery(
    db,
    `SELECT ${viewColumns("$2")} FROM budgets b WHERE b.account_id = $1 ORDER BY b.scope, b.scope_id`,
    [accountId, clock.now().toISOString()],
  );
  return rows<BudgetRow>(result)
    .map(view)
    .sort((a, b) => a.remaining_credits - b.remaining_credits || a.budget_id.localeCompare(b.budget_id));
}

async function checkTimeZone(db: Db, timeZone: string): Promise<void> {
  if (timeZone.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(timeZone)) throw invalidInput(`Unknown time zone "${timeZone.slice(0, 64)}"`);
  const found = rows(await db.execute(sql`SELECT 1 FROM pg_timezone_names WHERE name = ${timeZone}`));
  if (found.length === 0) throw invalidInput(`Unknown time zone "${timeZone}": use an IANA name such as UTC, Europe/Berlin or Asia/Shanghai`);
}

async function checkScope(db: Db, accountId: string, scope: BudgetScope, scopeId: string | undefined): Promise<string> {
  if (scope === "account") {
    if (scopeId) throw invalidInput("An account budget takes no scope id");
    return "";
  }
  if (!scopeId) throw invalidInput(`A ${scope} budget needs the ${scope === "api_key" ? "API key id" : "OAuth client id"}`);
  if (scope === "api_key") {
    const key = /^[0-9a-f-]{36}$/i.test(scopeId) ? rows(await db.execute(sql`SELECT 1 FROM api_keys WHERE id = ${scopeId}::uuid AND account_id = ${accountId}`)) : [];
    if (key.length === 0) throw notFound(`API key ${scopeId} not found in this account`);
  } else {
    const client = rows(await db.execute(sql`SELECT 1 FROM oauth_clients WHERE id = ${scopeId}`));
    if (client.length === 0) throw notFound(`OAuth client ${scopeId} not found`);
  }
  return scopeId;
}

/**
 * Creates or changes the budget of a scope (one per account and scope). A new budget, or one whose
 * period or time zone changes, starts with the spend the ledger already holds for the current
 * period (its opening), so a monthly budget set on the 20th counts the month so far. Changing only
 * the limit keeps the counters. Runs under the account's balance row lock, like every Call.
 */
export async function setBudget(db: Db, input: SetBudgetInput, clock: Clock = systemClock): Promise<BudgetView> {
  if (!(budgetScopes as readonly string[]).includes(input.scope)) throw invalidInput(`scope must be one of ${budgetScopes.join(", ")}`);
  if (!(budgetPeriods as readonly string[]).includes(input.period)) throw invalidInput(`period must be one of ${budgetPeriods.join(", ")}`);
  if (!isCreditString(input.limitCredits) || toDecimal(input.limitCredits).isNegative()) {
    throw invalidInput(`The limit must be a number of credits >= 0 with at most 6 decimals, got "${input.limitCredits}"`);
  }
  const timeZone = input.timeZone ?? "UTC";
  await checkTimeZone(db, timeZone);
  const scopeId = await checkScope(db, input.accountId, input.scope, input.scopeId);
  const at = clock.now().toISOString();
  return db.transaction(async (t) => {
    const tx = t as unknown as Db;
    // The balance row lock (taken again by the upsert) makes the limit read here the one replaced.
    await tx.execute(sql`SELECT 1 FROM credit_balances WHERE account_id = ${input.accountId} FOR UPDATE`);
    const before = rows<{ limit_credits: string; period: BudgetPeriod; time_zone: string }>(
      await tx.execute(sql`SELECT limit_credits::text, period, time_zone FROM budgets WHERE account_id = ${input.accountId} AND scope = ${input.scope} AND scope_id = ${scopeId}`),
    )[0];
    const result = await runQuery(
      tx,
      `WITH lk AS (SELECT account_id FROM credit_balances WHERE account_id = $1 FOR UPDATE),
       p AS (SELECT budget_period_start($6, $7, $2::timestamptz) AS ps FROM lk),
       opening AS (
         SELECT coalesce(sum(-l.amount_credits), 0) AS spent FROM credits_ledger l, p
          WHERE l.account_id = $1 AND l.entry_type LIKE 'consume\\_%' AND l.entry_type <> 'consume_payment_refund' AND l.created_at >= p.ps
            AND ($4 = 'account' OR ($4 = 'api_key' AND l.api_key_id::text = $5)
                 OR ($4 = 'oauth_client' AND l.ledger_metadata->>'client_id' = $5))
       ), up AS (
         INSERT INTO budgets AS b (id, account_id, scope, scope_id, limit_credits, period, time_zone, period_start,
                                   spent_credits, opening_credits, opening_period_start)
         SELECT $3, $1, $4, $5, $8::numeric, $6, $7, p.ps, o.spent, o.spent, p.ps FROM p, opening o
         ON CONFLICT (account_id, scope, scope_id) DO UPDATE SET
            limit_credits = EXCLUDED.limit_credits, period = EXCLUDED.period, time_zone = EXCLUDED.time_zone,
            period_start = CASE WHEN b.period = EXCLUDED.period AND b.time_zone = EXCLUDED.time_zone THEN b.period_start ELSE EXCLUDED.period_start END,
            spent_credits = CASE WHEN b.period = EXCLUDED.period AND b.time_zone = EXCLUDED.time_zone THEN b.spent_credits ELSE EXCLUDED.spent_credits END,
            opening_credits = CASE WHEN b.period = EXCLUDED.period AND b.time_zone = EXCLUDED.time_zone THEN b.opening_credits ELSE EXCLUDED.opening_credits END,
            opening_period_start = CASE WHEN b.period = EXCLUDED.period AND b.time_zone = EXCLUDED.time_zone THEN b.opening_period_start ELSE EXCLUDED.opening_period_start END,
            updated_at = now()
         RETURNING b.*
       )
       SELECT ${viewColumns("$2")} FROM up b`,
      [input.accountId, at, newId("bud"), input.scope, scopeId, input.period, timeZone, creditsToSql(input.limitCredits)],
    );
    const row = rows<BudgetRow>(result)[0];
    if (!row) throw notFound(`Account ${input.accountId} not found`);
    const budget = view(row);
    const describe = (b: { limit_credits: string; period: BudgetPeriod; time_zone: string }) => ({ scope: input.scope, scope_id: scopeId || null, limit_credits: toDecimal(b.limit_credits).toFixed(), period: b.period, time_zone: b.time_zone });
    await recordActivity(tx, input.accountId, input.actor ?? SYSTEM, {
      action: "budget.set",
      objectType: "budget",
      objectId: budget.budget_id,
      before: before ? describe(before) : null,
      after: describe(row),
    });
    return budget;
  });
}

/** Removes a budget (of `accountId` when given); Calls holding it settle without it. Recorded as `budget.removed`. */
export async function removeBudget(db: Db, input: { budgetId: string; accountId?: string; actor?: Actor }): Promise<{ budget_id: string; removed: true }> {
  return db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const result = await runQuery(
      tx,
      `WITH lk AS (
         SELECT account_id FROM credit_balances
          WHERE account_id = (SELECT account_id FROM budgets WHERE id = $1 AND ($2::text IS NULL OR account_id = $2)) FOR UPDATE
       )
       DELETE FROM budgets WHERE id = $1 AND account_id IN (SELECT account_id FROM lk)
       RETURNING id, account_id, scope, scope_id, limit_credits::text AS limit_credits, period, time_zone`,
      [input.budgetId, input.accountId ?? null],
    );
    const removed = rows<{ id: string; account_id: string; scope: BudgetScope; scope_id: string; limit_credits: string; period: BudgetPeriod; time_zone: string }>(result)[0];
    if (!removed) throw notFound(`Budget ${input.budgetId} not found`);
    await recordActivity(tx, removed.account_id, input.actor ?? SYSTEM, {
      action: "budget.removed",
      objectType: "budget",
      objectId: removed.id,
      before: { scope: removed.scope, scope_id: removed.scope_id || null, limit_credits: toDecimal(removed.limit_credits).toFixed(), period: removed.period, time_zone: removed.time_zone },
    });
    return { budget_id: input.budgetId, removed: true as const };
  });
}

/** Every budget of every account (admin CLI). */
export async function listAllBudgets(db: Db, clock: Clock = systemClock): Promise<(BudgetView & { account_id: string })[]> {
  const result = await runQuery(
    db,
    `SELECT b.account_id, ${viewColumns("$1")} FROM budgets b ORDER BY b.account_id, b.scope, b.scope_id`,
    [clock.now().toISOString()],
  );
  return rows<BudgetRow & { account_id: string }>(result).map((r) => ({ account_id: r.account_id, ...view(r) }));
}

const scopeText: Record<BudgetScope, string> = { account: "account", api_key: "API key", oauth_client: "OAuth client" };
const periodText: Record<BudgetPeriod, string> = { day: "daily", week: "weekly", month: "monthly", none: "lifetime" };

/** The 402 message: which budget, what is left, and when it resets. */
/** A refusal with the name of what its budget limits (read after the refusal: the Call's statement does not join names). */
export async function withScopeName(db: Db, refusal: BudgetRefusal): Promise<BudgetRefusal> {
  if (refusal.scope === "account") return { ...refusal, scope_name: null };
  const found = rows<{ name: string | null }>(await runQuery(db, `SELECT ${SCOPE_NAME} AS name FROM budgets b WHERE b.id = $1`, [refusal.budget_id]));
  return { ...refusal, scope_name: found[0]?.name ?? null };
}

export function budgetRefusalMessage(b: BudgetRefusal, needed: string, what: "call" | "search" = "call"): string {
  const left = toDecimal(b.limit_credits).minus(b.spent_credits).minus(b.reserved_credits);
  const held = toDecimal(b.reserved_credits).gt(0) ? ` (${creditsText(b.reserved_credits)} of it held by calls in flight)` : "";
  const named = b.scope_name ? ` "${b.scope_name}" (${b.scope_id})` : ` ${b.scope_id}`;
  const whose = b.scope === "account" ? "The account's" : `The ${scopeText[b.scope]}${named}'s`;
  const resets = b.resets_at ? `it resets at ${new Date(b.resets_at).toISOString()} (${b.time_zone} ${b.period} boundary)` : "it does not reset";
  return (
    `Budget exceeded: ${whose} ${periodText[b.period]} budget ${b.budget_id} of ${creditsText(b.limit_credits)} has ` +
    `${creditsText(left.isNegative() ? 0 : left)} left${held}, and this ${what} may cost ${creditsText(needed)}; ${resets}`
  );
}

const DEBIT_WITHIN_BUDGETS = `
  WITH lk AS (SELECT account_id FROM credit_balances WHERE account_id = $1 FOR UPDATE),
  bq AS (SELECT 1 AS i, $1::text AS account_id, $4::text AS api_key_id, $5::text AS client_id, $2::numeric AS amount, $6::timestamptz AS at),
  ${budgetCheckCtes("lk")},
  charges AS (
    SELECT 1 AS i, $1::text AS account_id, $2::numeric AS amount, 0::numeric AS release, ${tagLedger("$3::jsonb", blTags("1"))} AS ledger
     WHERE NOT EXISTS (SELECT 1 FROM bover)
  ), ${DEBIT_CTES},
  charged AS (SELECT i, amount FROM upd),
  ${BUDGET_SPEND_CTE}, ${alertCtes("bsp")}
  SELECT led.id, led.balance_before, led.balance_after, led.ledger_metadata, (SELECT refusal FROM bover) AS budget_refusal
    FROM (SELECT 1) one LEFT JOIN led ON true`;

/**
 * A consumption outside a Call (a priced search): debits `amount` with its ledger row in ONE
 * statement unless a budget of the account, key or client would be crossed.
 */
export async function debitWithinBudgets(
  db: Db,
  input: { accountId: string; apiKeyId: string | null; clientId?: string | null; at: Date; amount: string; ledger: LedgerRowInput },
): Promise<{ debited: DebitResult } | { debited: null; budget: BudgetRefusal | null }> {
  const result = await runQuery(db, DEBIT_WITHIN_BUDGETS, [
    input.accountId,
    creditsToSql(input.amount),
    JSON.stringify(input.ledger),
    input.apiKeyId,
    input.clientId ?? null,
    input.at.toISOString(),
  ]);
  const row = rows<{ id: string | null; balance_before: string; balance_after: string; ledger_metadata: { credit_split: Record<string, unknown> }; budget_refusal: BudgetRefusal | null }>(result)[0];
  if (!row?.id) return { debited: null, budget: row?.budget_refusal ?? null };
  const split = row.ledger_metadata.credit_split;
  return {
    debited: {
      ledgerEntryId: row.id,
      balanceBefore: row.balance_before,
      balanceAfter: row.balance_after,
      split: { bonus: String(split.bonus), reward: String(split.reward), paid: String(split.paid) },
    },
  };
}
