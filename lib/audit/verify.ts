// `audit verify`: the money path's invariants (../shared/DESIGN-NOTES.md), checked against the
// database itself, for one account or all of them. Each check is one SQL statement that returns
// the rows breaking it, so it runs on any database size (aggregates and index lookups, nothing
// loaded into memory but the violations). Every concurrency and fault test ends by running it.
// Balances below zero are not a check here: the credit_balances CHECK constraints refuse them.
// Whoever can write the database can also make these checks pass (rewrite a row, recompute every
// hash after it); `digests` adds the checks against signed digests kept outside it (digest-verify.ts).
import { activityContent, chainedHash } from "../accounts/activity";
import { creditKinds, ledgerKindAmount } from "./ledger-kinds";
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { verifyDigests, type DigestSummary, type DigestVerifyOptions } from "./digest-verify";
import { digestLogs, type DigestLogName } from "./digests";
import type { Violation } from "./violation";

export interface VerifyReport {
  ok: boolean;
  accounts_checked: number;
  checked_at: string;
  /** At most `limit` per check; `truncated` says where more were found. */
  violations: Violation[];
  truncated: string[];
  /** With `digests`: what was checked against the signed digests. */
  digests?: DigestSummary;
}

export interface VerifyOptions {
  accountId?: string;
  /** A reservation this long past its expiry counts as left behind (the sweeper runs every 15 s). */
  graceSeconds?: number;
  now?: Date;
  /** Violations reported per check. */
  limit?: number;
  /** Also check the ledger and the activity log against the signed digests in this store (lib/audit/digest-verify.ts). */
  digests?: Omit<DigestVerifyOptions, "accountId" | "limit">;
}

export const DEFAULT_GRACE_SECONDS = 60;

const CHARGED = sql`('charged', 'failed_charged_review')`;

/** The account filter, on a table alias when the statement joins. */
type Scope = (alias?: string) => SQL;

interface Check {
  name: string;
  query: (account: Scope, opts: Required<Omit<VerifyOptions, "accountId" | "digests">>) => SQL;
  message: (row: Record<string, string | null>) => string;
  /** The row a violation names, for checks about one row of the ledger or the activity log. */
  row?: (row: Record<string, string | null>) => Violation["row"];
}

/** Per account: the ledger summed in total and per credit kind (a row names its kind or its split). */
const ledgerSums = (account: Scope) => sql`
  SELECT account_id,
         sum(amount_credits) AS total,
         ${sql.join(
           creditKinds.map((k) => sql`sum(${ledgerKindAmount(k)}) AS ${sql.raw(k)}`),
           sql`, `,
         )}
    FROM credits_ledger WHERE ${account()} GROUP BY account_id`;

const checks: Check[] = [
  {
    name: "balance_equals_ledger",
    query: (account) => sql`
      SELECT b.account_id, b.paid_credits + b.bonus_credits + b.reward_credits AS balance, coalesce(l.total, 0) AS ledger,
             b.paid_credits AS paid, coalesce(l.paid, 0) AS ledger_paid, b.bonus_credits AS bonus, coalesce(l.bonus, 0) AS ledger_bonus,
             b.reward_credits AS reward, coalesce(l.reward, 0) AS ledger_reward
        FROM credit_balances b LEFT JOIN (${ledgerSums(account)}) l USING (account_id)
       WHERE ${account("b")}
         AND (b.paid_credits + b.bonus_credits + b.reward_credits <> coalesce(l.total, 0)
              OR b.paid_credits <> coalesce(l.paid, 0) OR b.bonus_credits <> coalesce(l.bonus, 0) OR b.reward_credits <> coalesce(l.reward, 0))`,
    message: (r) =>
      `balance ${r.balance} (paid ${r.paid}, bonus ${r.bonus}, reward ${r.reward}) but the ledger sums to ${r.ledger} ` +
      `(paid ${r.ledger_paid}, bonus ${r.ledger_bonus}, reward ${r.ledger_reward})`,
  },
  {
    name: "ledger_row_kind",
    query: (account) => sql`
      SELECT account_id, id FROM credits_ledger
       WHERE ${account()} AND NOT (ledger_metadata ? 'credit_kind') AND NOT (ledger_metadata ? 'credit_split')`,
    message: (r) => `ledger row ${r.id} records neither its credit kind nor the kinds it drew on`,
  },
  {
    name: "ledger_chain",
    query: (account) => sql`
      SELECT account_id, id, balance_before, balance_after, amount_credits, prev_after FROM (
        SELECT account_id, id, balance_before, balance_after, amount_credits,
               coalesce(lag(balance_after) OVER (PARTITION BY account_id ORDER BY seq), 0) AS prev_after
          FROM credits_ledger WHERE ${account()}) chained
       WHERE balance_after <> balance_before + amount_credits OR balance_before <> prev_after`,
    message: (r) =>
      `ledger row ${r.id}: balance_before ${r.balance_before}, amount ${r.amount_credits}, balance_after ${r.balance_after}; the previous row ended at ${r.prev_after}`,
  },
  {
    name: "charged_event_has_its_row",
    query: (account) => sql`
      SELECT e.account_id, e.id, e.charge_outcome, e.execution_id, e.actual_amount_credits, l.id AS ledger_id, l.execution_id AS ledger_execution, l.amount_credits
        FROM usage_events e LEFT JOIN credits_ledger l ON l.id = e.credits_ledger_entry_id
       WHERE ${account("e")} AND e.charge_outcome IN ${CHARGED}
         AND (l.id IS NULL OR l.execution_id IS DISTINCT FROM e.execution_id OR l.amount_credits <> -e.actual_amount_credits)`,
    message: (r) =>
      r.ledger_id === null
        ? `${r.charge_outcome} usage event ${r.id} (execution ${r.execution_id}) has no ledger row`
        : `${r.charge_outcome} usage event ${r.id} (execution ${r.execution_id}, ${r.actual_amount_credits} credits) links ledger row ${r.ledger_id} (execution ${r.ledger_execution}, amount ${r.amount_credits})`,
  },
  {
    name: "uncharged_event_has_no_row",
    query: (account) => sql`
      SELECT e.account_id, e.id, e.charge_outcome, e.execution_id, l.id AS ledger_id
        FROM usage_events e JOIN credits_ledger l ON l.id = e.credits_ledger_entry_id OR (e.execution_id IS NOT NULL AND l.execution_id = e.execution_id)
       WHERE ${account("e")} AND e.charge_outcome NOT IN ${CHARGED}`,
    message: (r) => `${r.charge_outcome} usage event ${r.id} (execution ${r.execution_id}) has ledger row ${r.ledger_id}`,
  },
  {
    name: "consume_row_has_one_event",
    query: (account) => sql`
      SELECT l.account_id, l.id, l.execution_id, count(e.id) AS events
        FROM credits_ledger l LEFT JOIN usage_events e ON e.credits_ledger_entry_id = l.id
       WHERE ${account("l")} AND l.entry_type LIKE 'consume\\_%' AND l.entry_type <> 'consume_payment_refund'
       GROUP BY l.account_id, l.id, l.execution_id HAVING count(e.id) <> 1`,
    message: (r) => `consume row ${r.id} (execution ${r.execution_id}) is linked by ${r.events} usage events`,
  },
  {
    name: "one_consume_row_per_execution",
    query: (account) => sql`
      SELECT account_id, execution_id, count(*) AS ledger_rows FROM credits_ledger
       WHERE ${account()} AND execution_id IS NOT NULL AND entry_type LIKE 'consume\\_%'
       GROUP BY account_id, execution_id HAVING count(*) > 1`,
    message: (r) => `execution ${r.execution_id} was charged ${r.ledger_rows} times`,
  },
  {
    // A finished Call is found by its usage event (the session lookup reads only executions in flight).
    name: "finished_execution_has_one_event",
    query: (account) => sql`
      SELECT x.account_id, x.id, x.status, count(e.id) AS events
        FROM executions x LEFT JOIN usage_events e ON e.execution_id = x.id AND e.account_id = x.account_id AND e.event_type = 'tool_execute'
       WHERE ${account("x")} AND x.status <> 'reserved'
       GROUP BY x.account_id, x.id, x.status HAVING count(e.id) <> 1`,
    message: (r) => `${r.status} execution ${r.id} has ${r.events} usage events`,
  },
  {
    // Contract section 3 (lib/billing/charge-outcome.ts), restated here to check what was stored.
    name: "charge_outcome",
    query: (account) => sql`
      SELECT account_id, id, charge_outcome, billable_success, settled_amount_credits, actual_amount_credits FROM usage_events
       WHERE ${account()}
         AND (charge_outcome IS DISTINCT FROM CASE WHEN billable_success
                   THEN CASE WHEN settled_amount_credits > 0 THEN 'charged' ELSE 'included' END
                   ELSE CASE WHEN settled_amount_credits > 0 THEN 'failed_charged_review' ELSE 'failed_not_charged' END END
              OR actual_amount_credits <> settled_amount_credits)`,
    message: (r) =>
      `usage event ${r.id}: charge_outcome ${r.charge_outcome} with success ${r.billable_success}, settled ${r.settled_amount_credits}, actual ${r.actual_amount_credits}`,
  },
  {
    name: "reserved_equals_live_reservations",
    query: (account) => sql`
      SELECT b.account_id, b.reserved_credits, coalesce(x.held, 0) AS held
        FROM credit_balances b
        LEFT JOIN (SELECT account_id, sum(reserved_credits) AS held FROM executions WHERE status = 'reserved' AND ${account()} GROUP BY account_id) x USING (account_id)
       WHERE ${account("b")} AND b.reserved_credits <> coalesce(x.held, 0)`,
    message: (r) => `reserved_credits ${r.reserved_credits} but reserved executions hold ${r.held}`,
  },
  {
    name: "no_reservation_left_behind",
    query: (account, o) => sql`
      SELECT account_id, id, reserved_credits, reservation_expires_at FROM executions
       WHERE ${account()} AND status = 'reserved'
         AND reservation_expires_at < ${new Date(o.now.getTime() - o.graceSeconds * 1000).toISOString()}::timestamptz`,
    message: (r) => `execution ${r.id} still holds ${r.reserved_credits} credits; its reservation expired at ${new Date(r.reservation_expires_at as string).toISOString()}`,
  },
  {
    // Budgets (lib/billing/budget-sql.ts): what a budget holds is what its Calls in flight hold.
    name: "budget_reserved_equals_holds",
    query: (account) => sql`
      SELECT b.account_id, b.id, b.reserved_credits, coalesce(x.held, 0) AS held
        FROM budgets b
        LEFT JOIN (SELECT bid, sum(e.reserved_credits) AS held FROM executions e CROSS JOIN unnest(e.budget_ids) AS bid
                    WHERE e.status = 'reserved' AND ${account("e")} GROUP BY bid) x ON x.bid = b.id
       WHERE ${account("b")} AND b.reserved_credits <> coalesce(x.held, 0)`,
    message: (r) => `budget ${r.id} holds ${r.reserved_credits} credits but its reserved executions hold ${r.held}`,
  },
  {
    // A budget's spend in its current period is re-added from the ledger: the consume rows that
    // name it for that period, plus the spend counted when it was set (its opening).
    name: "budget_spent_equals_ledger",
    query: (account) => sql`
      SELECT b.account_id, b.id, b.spent_credits, b.period_start,
             coalesce(t.tagged, 0) + CASE WHEN b.opening_period_start = b.period_start THEN b.opening_credits ELSE 0 END AS ledger
        FROM budgets b
        LEFT JOIN (SELECT kv.key AS bid, (kv.value #>> '{}')::timestamptz AS ps, sum(-l.amount_credits) AS tagged
                     FROM credits_ledger l CROSS JOIN LATERAL jsonb_each(l.ledger_metadata->'budgets') AS kv
                    WHERE ${account("l")} AND l.ledger_metadata ? 'budgets'
                    GROUP BY 1, 2) t ON t.bid = b.id AND t.ps = b.period_start
       WHERE ${account("b")}
         AND b.spent_credits <> coalesce(t.tagged, 0) + CASE WHEN b.opening_period_start = b.period_start THEN b.opening_credits ELSE 0 END`,
    message: (r) => `budget ${r.id} counts ${r.spent_credits} credits spent since ${r.period_start} but the ledger holds ${r.ledger}`,
  },
  {
    // Expiring grants (lib/billing/expire-grants.ts): a kind's live lots are part of its balance,
    // and an expired lot holds nothing.
    name: "grant_lots_within_balance",
    query: (account) => sql`
      SELECT g.account_id, g.kind, coalesce(sum(g.remaining_credits) FILTER (WHERE g.expired_at IS NULL), 0) AS live,
             CASE g.kind WHEN 'paid' THEN b.paid_credits WHEN 'bonus' THEN b.bonus_credits ELSE b.reward_credits END AS balance,
             count(*) FILTER (WHERE g.expired_at IS NOT NULL AND g.remaining_credits <> 0) AS expired_holding
        FROM credit_grants g JOIN credit_balances b USING (account_id)
       WHERE ${account("g")}
       GROUP BY g.account_id, g.kind, b.paid_credits, b.bonus_credits, b.reward_credits
      HAVING coalesce(sum(g.remaining_credits) FILTER (WHERE g.expired_at IS NULL), 0)
               > CASE g.kind WHEN 'paid' THEN b.paid_credits WHEN 'bonus' THEN b.bonus_credits ELSE b.reward_credits END
          OR count(*) FILTER (WHERE g.expired_at IS NOT NULL AND g.remaining_credits <> 0) > 0`,
    message: (r) =>
      Number(r.expired_holding) > 0
        ? `${r.expired_holding} expired ${r.kind} grant(s) still hold credits`
        : `live ${r.kind} grants hold ${r.live} credits but the ${r.kind} balance is ${r.balance}`,
  },
  {
    // Payments through Stripe (lib/payments/stripe-events.ts): a Stripe grant is its payment's, and
    // that payment succeeded, for as many credits, naming this row (the undo of a failed refund's
    // reversal is checked with the reversals below).
    name: "payment_grant_has_payment",
    query: (account) => sql`
      SELECT l.account_id, l.id, l.source_ref_id, l.amount_credits, p.id AS payment_id, p.account_id AS payment_account, p.status, p.credits, p.ledger_entry_id
        FROM credits_ledger l LEFT JOIN payments p ON p.id = l.source_ref_id
       WHERE ${account("l")} AND l.entry_type = 'grant_payment_recharge' AND l.source_system = 'stripe' AND l.source_ref_type IS DISTINCT FROM 'payment_reversal_undo'
         AND (p.id IS NULL OR p.account_id <> l.account_id OR p.status <> 'succeeded' OR p.credits <> l.amount_credits OR p.ledger_entry_id IS DISTINCT FROM l.id)`,
    message: (r) =>
      r.payment_id === null
        ? `Stripe grant ${r.id} (${r.amount_credits} credits) names payment ${r.source_ref_id}, which does not exist`
        : `Stripe grant ${r.id} (${r.amount_credits} credits) does not match payment ${r.payment_id} (account ${r.payment_account}, ${r.status}, ${r.credits} credits, grant ${r.ledger_entry_id ?? "none"})`,
  },
  {
    // ... and every succeeded payment has exactly one such grant.
    name: "payment_has_one_grant",
    query: (account) => sql`
      SELECT p.account_id, p.id, p.credits, count(l.id) AS grants
        FROM payments p LEFT JOIN credits_ledger l
          ON l.source_ref_id = p.id AND l.source_system = 'stripe' AND l.entry_type = 'grant_payment_recharge' AND l.account_id = p.account_id
       WHERE ${account("p")} AND p.status = 'succeeded'
       GROUP BY p.account_id, p.id, p.credits HAVING count(l.id) <> 1`,
    message: (r) => `succeeded payment ${r.id} (${r.credits} credits) has ${r.grants} grants in the ledger`,
  },
  {
    // Refunds and lost disputes (lib/payments/payment-reversals.ts): what a reversal says it took back
    // is what its consume_payment_refund rows took, never more than it owes. A reversal undone because
    // Stripe failed the refund gave all of that back in its one undo grant (its rows and the grant net
    // to zero, the grant named on the reversal); a standing reversal has no undo grant.
    name: "payment_reversal_matches_ledger",
    query: (account) => sql`
      SELECT v.account_id, v.id, v.stripe_id, v.credits, v.credits_recovered, coalesce(t.taken, 0) AS taken, coalesce(u.returned, 0) AS returned, u.id AS undo_id, v.undo_ledger_entry_id,
             CASE WHEN p.account_id IS DISTINCT FROM v.account_id OR p.status <> 'succeeded' THEN 'no payment'
                  WHEN v.credits_recovered <> coalesce(t.taken, 0) OR v.credits_recovered > v.credits THEN 'taken'
                  WHEN v.failed_at IS NULL THEN 'undo of a standing reversal' ELSE 'undo' END AS problem
        FROM payment_reversals v
        LEFT JOIN payments p ON p.id = v.payment_id
        LEFT JOIN (SELECT source_ref_id, sum(-amount_credits) AS taken FROM credits_ledger
                    WHERE ${account()} AND source_system = 'stripe' AND entry_type = 'consume_payment_refund' GROUP BY source_ref_id) t ON t.source_ref_id = v.id
        LEFT JOIN (SELECT source_ref_id, sum(amount_credits) AS returned, min(id) AS id FROM credits_ledger
                    WHERE ${account()} AND source_system = 'stripe' AND entry_type = 'grant_payment_recharge' AND source_ref_type = 'payment_reversal_undo'
                    GROUP BY source_ref_id) u ON u.source_ref_id = v.id
       WHERE ${account("v")}
         AND (v.credits_recovered <> coalesce(t.taken, 0) OR v.credits_recovered > v.credits OR p.account_id IS DISTINCT FROM v.account_id OR p.status <> 'succeeded'
              OR (v.failed_at IS NULL AND u.source_ref_id IS NOT NULL)
              OR (v.failed_at IS NOT NULL AND (coalesce(u.returned, 0) <> coalesce(t.taken, 0) OR v.undo_ledger_entry_id IS DISTINCT FROM u.id)))`,
    message: (r) =>
      r.problem === "no payment"
        ? `reversal ${r.id} (${r.stripe_id}) belongs to no succeeded payment of its account`
        : r.problem === "taken"
          ? `reversal ${r.id} (${r.stripe_id}) owes ${r.credits} credits and says ${r.credits_recovered} were taken, but its ledger rows took ${r.taken}`
          : r.problem === "undo of a standing reversal"
            ? `reversal ${r.id} (${r.stripe_id}) stands, but undo grant ${r.undo_id} gave back ${r.returned} credits`
            : `undone reversal ${r.id} (${r.stripe_id}) took ${r.taken} credits and its undo grant ${r.undo_id ?? "(none)"} gave back ${r.returned} (the reversal names ${r.undo_ledger_entry_id ?? "none"})`,
  },
  {
    // ... and every Stripe consume_payment_refund row, and every undo grant, is a reversal's, in its account.
    name: "payment_refund_row_has_reversal",
    query: (account) => sql`
      SELECT l.account_id, l.id, l.entry_type, l.source_ref_id, l.amount_credits
        FROM credits_ledger l LEFT JOIN payment_reversals v ON v.id = l.source_ref_id AND v.account_id = l.account_id
       WHERE ${account("l")} AND l.source_system = 'stripe' AND v.id IS NULL
         AND (l.entry_type = 'consume_payment_refund' OR (l.entry_type = 'grant_payment_recharge' AND l.source_ref_type = 'payment_reversal_undo'))`,
    message: (r) => `${r.entry_type} row ${r.id} (${r.amount_credits} credits) names reversal ${r.source_ref_id}, which is not the account's`,
  },
  {
    // Both logs are numbered from 1 (the ledger by its sequence, the activity log by the account's
    // last entry + 1) and a constraint refuses 0 and below since migration 0030: such a row was
    // written around the numbering, or before the constraint and kept (docs/audit.md).
    name: "seq_positive",
    query: (account) => sql`
      SELECT account_id, 'ledger' AS log, seq, id FROM credits_ledger WHERE ${account()} AND seq <= 0
      UNION ALL
      SELECT account_id, 'activity', seq, id FROM account_activity WHERE ${account()} AND seq <= 0
      ORDER BY account_id, log DESC, seq`,
    message: (r) => {
      const l = digestLogs[r.log as DigestLogName];
      return `${l.noun} ${r.id} (account ${r.account_id}, ${l.position} ${r.seq}) is numbered 0 or below: the log is numbered from 1, so it was written around the database's numbering`;
    },
    row: (r) => ({ log: r.log as DigestLogName, seq: Number(r.seq), id: r.id }),
  },
  {
    // The account activity log (lib/accounts/activity.ts): numbered from 1 without gaps, each row's
    // prev_hash the previous row's hash, and each hash re-computed from the row's content. Entries
    // numbered 0 or below are seq_positive's, not gaps before entry 1.
    name: "activity_log_continuity",
    query: (account) => sql`
      SELECT account_id, seq, id, prev_seq, problem FROM (
        SELECT a.account_id, a.seq, a.id, lag(a.seq) OVER w AS prev_seq,
               CASE WHEN a.seq <> coalesce(lag(a.seq) OVER w, 0) + 1 THEN 'gap'
                    WHEN a.prev_hash IS DISTINCT FROM lag(a.hash) OVER w THEN 'broken link'
                    WHEN a.hash <> ${chainedHash(sql`a.prev_hash`, activityContent("a"))} THEN 'altered content' END AS problem
          FROM account_activity a WHERE ${account("a")} AND a.seq > 0
        WINDOW w AS (PARTITION BY a.account_id ORDER BY a.seq)) chained
       WHERE problem IS NOT NULL`,
    message: (r) =>
      r.problem === "gap"
        ? `activity log entry ${r.id} is number ${r.seq}, after ${r.prev_seq ?? "nothing"}: entries are missing`
        : r.problem === "broken link"
          ? `activity log entry ${r.id} (number ${r.seq}) does not name the previous entry's hash`
          : `activity log entry ${r.id} (number ${r.seq}) does not match its hash: its content changed`,
  },
  {
    // Separation of duties (lib/accounts/members.ts, docs/team.md): a support user is a member of
    // no customer account — neither as owner or member, nor as support in an account with customers.
    name: "support_not_customer_member",
    query: (account) => sql`
      SELECT m.account_id, u.email, m.role FROM account_members m JOIN users u ON u.id = m.user_id
       WHERE ${account("m")}
         AND (u.role = 'support' OR EXISTS (SELECT 1 FROM account_members s WHERE s.user_id = u.id AND s.role = 'support'))
         AND (m.role <> 'support'
              OR EXISTS (SELECT 1 FROM account_members c WHERE c.account_id = m.account_id AND c.role <> 'support'))`,
    message: (r) => `support user ${r.email} is a member of customer account ${r.account_id} (as ${r.role}): support staff read accounts from outside, never as members`,
  },
];

export const verifyChecks = checks.map((c) => c.name);

/** Runs every check (and, with `digests`, the digest checks); `ok` when none found a violation. */
export async function verifyLedger(db: Db, options: VerifyOptions = {}): Promise<VerifyReport> {
  const { digests, ...rest } = options;
  const report = await verifyInvariants(db, rest);
  if (!digests) return report;
  const checked = await verifyDigests(db, { ...digests, accountId: options.accountId, limit: options.limit });
  const violations = [...report.violations, ...checked.violations];
  return { ...report, ok: violations.length === 0, violations, truncated: [...report.truncated, ...checked.truncated], digests: checked.summary };
}

async function verifyInvariants(db: Db, options: Omit<VerifyOptions, "digests">): Promise<VerifyReport> {
  const opts = { graceSeconds: options.graceSeconds ?? DEFAULT_GRACE_SECONDS, now: options.now ?? new Date(), limit: options.limit ?? 100 };
  const accountId = options.accountId;
  const account: Scope = (alias) => (accountId === undefined ? sql`true` : sql`${sql.raw(alias ? `${alias}.` : "")}account_id = ${accountId}`);
  const violations: Violation[] = [];
  const truncated: string[] = [];
  for (const check of checks) {
    const found = rows<Record<string, string | null>>(await db.execute(sql`${check.query(account, opts)} LIMIT ${opts.limit + 1}`));
    if (found.length > opts.limit) truncated.push(check.name);
    for (const row of found.slice(0, opts.limit)) {
      violations.push({ account_id: row.account_id ?? "", check: check.name, message: check.message(row), ...(check.row && { row: check.row(row) }) });
    }
  }
  const counted = rows<{ n: string }>(await db.execute(sql`SELECT count(*) AS n FROM credit_balances WHERE ${account()}`))[0];
  return { ok: violations.length === 0, accounts_checked: Number(counted.n), checked_at: opts.now.toISOString(), violations, truncated };
}
