/**
 * Budgets inside the money path's statements (reserve, record, settle, a priced search's debit,
 * the sweeper). Every statement that reads or moves a budget's counters has locked the account's
 * `credit_balances` row first, so an account's budgets change one statement at a time, and the
 * check and the hold are the same statement: concurrent Calls cannot cross a budget.
 *
 * Which budgets apply to a charge: the account's own, its API key's (the caller's key), and its
 * OAuth client's (the client a delegation token was issued to). A budget's counters belong to the
 * period starting at `period_start`; a statement that finds an older period starts the new one at
 * zero spend (`budget_period_start`, migration 0013).
 */

import { notifyCtes } from "../alerts/notify-sql";

/** A budget that refused a charge, as the reserve / record statements return it (JSON). */
export interface BudgetRefusal {
  budget_id: string;
  scope: "account" | "api_key" | "oauth_client";
  scope_id: string;
  /** The key's or OAuth client's name (added after the refusal, off the Call's hot path); null for the account. */
  scope_name?: string | null;
  limit_credits: string;
  period: "day" | "week" | "month" | "none";
  time_zone: string;
  spent_credits: string;
  reserved_credits: string;
  /** ISO time the period ends; null for a lifetime budget. */
  resets_at: string | null;
}

/** A budget applies to a charge of account `q.account_id` by key `q.api_key_id` or client `q.client_id`. */
const APPLIES = `b.account_id = bq.account_id
         AND (b.scope = 'account' OR (b.scope = 'api_key' AND b.scope_id = bq.api_key_id)
              OR (b.scope = 'oauth_client' AND b.scope_id = bq.client_id))`;

/**
 * CTEs `bl` and `bover` for a preceding CTE `bq(i, account_id, api_key_id, client_id, amount, at)`:
 * `bl` locks (after the CTE `after`, which locked the balance rows) every budget that applies to a
 * charge with amount > 0, with its spend in the period containing `at`; `bover` names, per charge
 * that would cross any of them, the tightest one as JSON (`BudgetRefusal`).
 */
export function budgetCheckCtes(after: string): string {
  return `
    bl AS (
      SELECT bq.i, bq.amount, b.id, b.scope, b.scope_id, b.limit_credits, b.period, b.time_zone,
             b.reserved_credits AS reserved,
             budget_period_start(b.period, b.time_zone, bq.at) AS ps,
             CASE WHEN b.period_start = budget_period_start(b.period, b.time_zone, bq.at) THEN b.spent_credits ELSE 0 END AS spent,
             budget_period_end(b.period, b.time_zone, bq.at) AS resets_at
        FROM bq JOIN budgets b ON ${APPLIES}
       WHERE bq.amount > 0 AND (SELECT count(*) FROM ${after}) >= 0
       ORDER BY b.id
         FOR UPDATE OF b
    ), bover AS (
      SELECT DISTINCT ON (i) i,
             jsonb_build_object('budget_id', id, 'scope', scope, 'scope_id', scope_id, 'limit_credits', limit_credits::text,
                                'period', period, 'time_zone', time_zone, 'spent_credits', spent::text,
                                'reserved_credits', reserved::text,
                                'resets_at', CASE WHEN period = 'none' THEN NULL ELSE to_jsonb(resets_at) END) AS refusal
        FROM bl WHERE spent + reserved + amount > limit_credits
       ORDER BY i, limit_credits - spent - reserved, id
    )`;
}

/**
 * The consume row's static fields (`ledger`, JSON) with the budgets the charge counts against
 * named in `ledger_metadata.budgets` ({budget id: period start}), so each budget's spend can be
 * re-added from the ledger (`audit verify`). `budgets` is a jsonb expression, NULL for none.
 */
export function tagLedger(ledger: string, budgets: string): string {
  return `CASE WHEN ${budgets} IS NULL THEN ${ledger}
               ELSE ${ledger} || jsonb_build_object('ledger_metadata',
                      coalesce(${ledger}->'ledger_metadata', '{}'::jsonb) || jsonb_build_object('budgets', ${budgets})) END`;
}

/** `{budget id: period start}` of the locked budgets of charge `i` (from `bl`), or NULL. */
export const blTags = (i: string) => `(SELECT jsonb_object_agg(bl.id, bl.ps) FROM bl WHERE bl.i = ${i})`;

/**
 * What a statement that moved a budget's spend returns for `alertCtes`: the budget, its spend
 * before and after (`spent` is the amount just added), and the period it counts in.
 */
export const BUDGET_CROSSING_COLUMNS = (spent: string, ps: string) =>
  `b.id, b.account_id, b.scope, b.scope_id, b.period, b.time_zone, b.limit_credits,
   b.spent_credits - ${spent} AS spent_before, b.spent_credits AS spent_after, ${ps} AS ps`;

/**
 * Adds each charged amount to the spend of the budgets it was checked against (`bl`), in the
 * period of the charge, for the charges listed by CTE `charged(i, amount)`.
 */
export const BUDGET_SPEND_CTE = `
    bsp AS (
      UPDATE budgets b
         SET period_start = bl.ps,
             spent_credits = CASE WHEN b.period_start = bl.ps THEN b.spent_credits ELSE 0 END + c.amount,
             updated_at = now()
        FROM bl JOIN charged c USING (i)
       WHERE b.id = bl.id AND c.amount > 0
   RETURNING ${BUDGET_CROSSING_COLUMNS("c.amount", "bl.ps")}
    )`;



/**
 * Alerts claimed in the statement whose settlement crossed their threshold (so each fires once,
 * whatever the instances and restarts): the CTEs `al_low`, `al_budget`, `al` and, from
 * lib/alerts/notify-sql.ts, the notification (`ntf`, unique claim key) and its webhook outbox rows
 * (`whd`). Needs the debit's CTE `upd` and, when budgets moved, a CTE `budgets` of
 * `BUDGET_CROSSING_COLUMNS`.
 * - Low balance: the account's balance (paid + bonus + reward) goes from at least the threshold
 *   to below it; each crossing is its own alert (keyed by the ledger row that crossed).
 * - Budget: spend reaches each configured percentage (default 50, 80, 100) of the limit; once per
 *   budget, period and percentage.
 */
export function alertCtes(budgetCte: string | null): string {
  const budget = budgetCte
    ? `SELECT x.account_id, 'budget_threshold'::text AS kind,
              'budget:' || x.id || ':' || CASE WHEN x.period = 'none' THEN 'lifetime'
                 ELSE to_char(x.ps AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') END || ':' || p::text AS claim_key,
              jsonb_build_object('budget_id', x.id, 'scope', x.scope, 'scope_id', nullif(x.scope_id, ''), 'percent', p,
                                 'limit_credits', x.limit_credits, 'spent_credits', x.spent_after, 'period', x.period,
                                 'time_zone', x.time_zone, 'period_start', CASE WHEN x.period = 'none' THEN NULL ELSE to_jsonb(x.ps) END) AS payload
         FROM ${budgetCte} x LEFT JOIN alert_settings s ON s.account_id = x.account_id
              CROSS JOIN LATERAL unnest(coalesce(s.budget_percents, '{50,80,100}'::integer[])) AS p
        WHERE x.limit_credits > 0 AND x.spent_before < x.limit_credits * p / 100 AND x.spent_after >= x.limit_credits * p / 100`
    : `SELECT NULL::text AS account_id, NULL::text AS kind, NULL::text AS claim_key, NULL::jsonb AS payload WHERE false`;
  return `
    al_low AS (
      SELECT u.account_id, 'low_balance'::text AS kind,
             'low_balance:' || u.account_id || ':' || s.low_balance_credits::text || ':' || (u.ledger->>'id') AS claim_key,
             jsonb_build_object('threshold_credits', s.low_balance_credits, 'balance_credits', u.total_before - u.amount,
                                'ledger_entry_id', u.ledger->>'id', 'execution_id', u.ledger->>'execution_id') AS payload
        FROM upd u JOIN alert_settings s ON s.account_id = u.account_id
       WHERE s.low_balance_credits IS NOT NULL AND u.amount > 0
         AND u.total_before >= s.low_balance_credits AND u.total_before - u.amount < s.low_balance_credits
    ), al_budget AS (${budget}),
    al AS (SELECT * FROM al_low UNION ALL SELECT * FROM al_budget),
    ${notifyCtes("al")}`;
}
