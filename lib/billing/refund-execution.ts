import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import type { UserRole } from "../vocab/roles";
import { rows } from "../db/row-sql";
import { DomainError, forbidden, invalidInput, notFound } from "../errors";
import { newId } from "../ids";
import { credits, creditsText, creditsToSql, isCreditString } from "../money";
import { LEDGER_COLUMNS, type LedgerRecord } from "../audit/ledger-history";
import { type Actor, recordActivity } from "../accounts/activity";

export const REFUND_REASON_MAX = 500;

export interface RefundInput {
  /** The account the execution must belong to (another account's is not found); default: its owner. */
  accountId?: string;
  executionId: string;
  /** Credits to give back (> 0, at most 6 decimals); omitted: all that is left. */
  amount?: string;
  reason: string;
}

/** The support access-log row every refund writes: what was asked for (the request's parameters). */
export interface RefundAccess {
  resource: string;
  query: Record<string, unknown>;
}

/** Where an execution stands with refunds (exact decimal strings). */
export interface RefundFigures {
  execution_id: string;
  account_id: string;
  charge_outcome: string | null;
  settled_credits: string;
  refunded_credits: string;
  /** What support can still give back: settled - refunded for a failed_charged_review charge, else 0. */
  refundable_credits: string;
}

export function refundFigures(row: { execution_id: string; account_id: string; charge_outcome: string | null; settled: string; refunded: string }): RefundFigures {
  const left = credits(row.settled).minus(row.refunded);
  return {
    execution_id: row.execution_id,
    account_id: row.account_id,
    charge_outcome: row.charge_outcome,
    settled_credits: credits(row.settled).toFixed(),
    refunded_credits: credits(row.refunded).toFixed(),
    refundable_credits: row.charge_outcome === "failed_charged_review" && left.gt(0) ? left.toFixed() : "0",
  };
}

export interface RefundResult {
  entry: LedgerRecord;
  execution: RefundFigures;
}

interface Outcome extends Partial<LedgerRecord> {
  charge_outcome: string | null;
  event_outcome: string | null;
  consume_id: string | null;
  settled: string;
  refunded: string;
  amount: string;
  cap: string;
  refunded_after: string | null;
}

/**
 * Gives credits of a `failed_charged_review` Call back, in ONE statement: it locks the account's
 * balance row, then the execution row (the order every writer uses), checks that the execution is
 * the account's, is in review and has enough left (`refunded_credits + amount <= settled_credits`,
 * re-checked by the UPDATE on the row as it is after any concurrent refund), then credits the
 * balance, raises `executions.refunded_credits`, appends the `refund_tool_execute` ledger row and
 * the support access-log row. Only support users refund, in any account: without `accountId` the
 * execution is found in the account that owns it.
 *
 * Credit kinds: the consume row's `credit_split` says what the charge drew from each kind
 * (bonus, then reward, then paid); refunds give back in reverse, paid first, then reward, then
 * bonus. What earlier refunds gave back to each kind follows from the total refunded so far (the
 * same order every time), so it is read from the locked execution row, never from a snapshot.
 * The refund row's `credit_split` is minus what each kind got back, so the ledger summed per kind
 * (`lib/audit/verify.ts`) still equals the balance per kind.
 */
export async function refundExecution(
  db: Db,
  { actor, input, access }: { actor: { userId: string; role: UserRole; email?: string | null; ipAddress?: string | null; userAgent?: string | null }; input: RefundInput; access: RefundAccess },
): Promise<RefundResult> {
  if (actor.role !== "support") throw forbidden("Only support users can refund a Call");
  if (input.amount !== undefined && (!isCreditString(input.amount) || credits(input.amount).lte(0))) {
    throw invalidInput(`amount_credits must be a positive number with at most 6 decimals, got "${input.amount.slice(0, 32)}"`);
  }
  const reason = input.reason.trim();
  if (reason.length === 0 || reason.length > REFUND_REASON_MAX) throw invalidInput(`reason must be 1 to ${REFUND_REASON_MAX} characters`);

  const exe = input.executionId;
  const a = input.accountId ?? (await executionOwner(db, exe));
  const amount = input.amount === undefined ? null : creditsToSql(input.amount);
  const ledgerId = newId("led");
  const who: Actor = { type: "support", id: actor.userId, label: actor.email ?? null, ipAddress: actor.ipAddress ?? null, userAgent: actor.userAgent ?? null };
  // The refund and its entries in the account's activity log (the refund, and support's access) commit together.
  return db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const result = await tx.execute(sql`
      WITH bal AS (
        SELECT account_id FROM credit_balances WHERE account_id = ${a} FOR UPDATE
      ), ex AS (
        -- The scalar subquery runs first: the balance row is locked before the execution row.
        SELECT e.id, e.charge_outcome, coalesce(e.settled_credits, 0) AS settled, e.refunded_credits AS refunded
          FROM executions e
         WHERE e.id = ${exe} AND e.account_id = ${a} AND (SELECT count(*) FROM bal) = 1
           FOR UPDATE
      ), ev AS (
        SELECT u.id, u.charge_outcome, u.credits_ledger_entry_id
          FROM usage_events u
         WHERE u.account_id = ${a} AND u.execution_id = ${exe} AND u.event_type IN ('tool_execute', 'capabilities_query')
         ORDER BY u.created_at, u.id LIMIT 1
      ), orig AS (
        SELECT l.id, l.api_key_id, l.ledger_metadata->'credit_split' AS sp
          FROM credits_ledger l JOIN ev ON l.id = ev.credits_ledger_entry_id
         WHERE l.account_id = ${a} AND l.entry_type LIKE 'consume\\_%'
      ), req AS (
        SELECT ex.id, ex.charge_outcome, ex.settled, ex.refunded, ev.id AS event_id, ev.charge_outcome AS event_outcome,
               orig.id AS consume_id, orig.api_key_id,
               coalesce((orig.sp->>'paid')::numeric, 0) AS sp_paid,
               coalesce((orig.sp->>'reward')::numeric, 0) AS sp_reward,
               coalesce((orig.sp->>'bonus')::numeric, 0) AS sp_bonus,
               coalesce(${amount}::numeric, ex.settled - ex.refunded) AS amount
          FROM ex LEFT JOIN ev ON true LEFT JOIN orig ON true
      ), ok AS (
        -- Per kind, what the refunded total reaches of that kind's share, minus what it reached before.
        SELECT req.*,
               least(greatest(refunded + amount, 0), sp_paid) - least(greatest(refunded, 0), sp_paid) AS back_paid,
               least(greatest(refunded + amount - sp_paid, 0), sp_reward) - least(greatest(refunded - sp_paid, 0), sp_reward) AS back_reward,
               least(greatest(refunded + amount - sp_paid - sp_reward, 0), sp_bonus)
                 - least(greatest(refunded - sp_paid - sp_reward, 0), sp_bonus) AS back_bonus
          FROM req
         WHERE event_outcome = 'failed_charged_review' AND coalesce(charge_outcome, event_outcome) = event_outcome
           AND consume_id IS NOT NULL AND amount > 0
           AND refunded + amount <= least(settled, sp_paid + sp_reward + sp_bonus)
      ), xu AS (
        UPDATE executions x SET refunded_credits = x.refunded_credits + ok.amount
          FROM ok
         WHERE x.id = ok.id AND x.account_id = ${a} AND x.refunded_credits + ok.amount <= coalesce(x.settled_credits, 0)
     RETURNING ok.*, x.refunded_credits AS refunded_after
      ), bu AS (
        UPDATE credit_balances b
           SET paid_credits = b.paid_credits + xu.back_paid, reward_credits = b.reward_credits + xu.back_reward,
               bonus_credits = b.bonus_credits + xu.back_bonus, updated_at = now()
          FROM xu
         WHERE b.account_id = ${a}
     RETURNING b.paid_credits + b.bonus_credits + b.reward_credits AS total_after
      ), led AS (
        INSERT INTO credits_ledger AS l (id, account_id, entry_type, amount_credits, source_system, source_ref_type, source_ref_id,
                                         execution_id, usage_event_id, api_key_id, balance_before, balance_after, ledger_metadata, description)
        SELECT ${ledgerId}, ${a}, 'refund_tool_execute', xu.amount, 'support', 'execution', xu.id,
               xu.id, xu.event_id, xu.api_key_id, bu.total_after - xu.amount, bu.total_after,
               jsonb_build_object(
                 'reason', ${reason}::text, 'support_user_id', ${actor.userId}::text, 'refunded_entry_id', xu.consume_id,
                 'credit_split', jsonb_build_object('bonus', (-xu.back_bonus)::numeric(20, 6)::text, 'reward', (-xu.back_reward)::numeric(20, 6)::text,
                                                   'paid', (-xu.back_paid)::numeric(20, 6)::text)),
               'Refund of Call ' || xu.id
          FROM xu CROSS JOIN bu
     RETURNING ${LEDGER_COLUMNS}
      ), sal AS (
        INSERT INTO support_access_log (id, user_id, target_account_id, resource, query)
        SELECT ${newId("sal")}, ${actor.userId}, ${a}, ${access.resource}, ${JSON.stringify(access.query)}::jsonb || jsonb_build_object('ledger_entry_id', led.id)
          FROM led
      )
      SELECT req.charge_outcome, req.event_outcome, req.consume_id, req.settled::text AS settled, req.refunded::text AS refunded,
             req.amount::text AS amount, least(req.settled, req.sp_paid + req.sp_reward + req.sp_bonus)::text AS cap,
             (SELECT refunded_after::text FROM xu) AS refunded_after, led.*
        FROM req LEFT JOIN led ON true`);
    const found = rows<Outcome>(result)[0];
    if (!found) throw notFound(`Execution ${exe} not found`);
    if (found.id === undefined || found.id === null || found.refunded_after === null) throw notRefundable(exe, found);
    await recordActivity(tx, a, who, { action: "support.accessed", objectType: "execution", objectId: exe, after: { resource: access.resource } });
    await recordActivity(tx, a, who, {
      action: "refund.created",
      objectType: "execution",
      objectId: exe,
      before: { refunded_credits: credits(found.refunded).toFixed() },
      after: { refunded_credits: credits(found.refunded_after).toFixed(), amount_credits: credits(found.amount).toFixed(), ledger_entry_id: found.id, reason },
    });
    return {
      entry: found as LedgerRecord,
      execution: refundFigures({ execution_id: exe, account_id: a, charge_outcome: found.event_outcome, settled: found.settled, refunded: found.refunded_after }),
    };
  });
}

async function executionOwner(db: Db, executionId: string): Promise<string> {
  const found = rows<{ account_id: string }>(await db.execute(sql`SELECT account_id FROM executions WHERE id = ${executionId}`))[0];
  if (!found) throw notFound(`Execution ${executionId} not found`);
  return found.account_id;
}

/** Why nothing was refunded, from what the statement saw on the locked execution row. */
function notRefundable(exe: string, o: Outcome): DomainError {
  const outcome = o.event_outcome ?? o.charge_outcome;
  if (o.event_outcome !== "failed_charged_review" || (o.charge_outcome !== null && o.charge_outcome !== o.event_outcome)) {
    return new DomainError("conflict", `Execution ${exe} is not refundable: its charge outcome is ${outcome ?? "unknown"}; only failed_charged_review charges can be refunded`);
  }
  if (o.consume_id === null) return new DomainError("conflict", `Execution ${exe} has no consume ledger row to refund`);
  const left = credits(o.cap).minus(o.refunded);
  if (left.lte(0)) return new DomainError("conflict", `Execution ${exe} is already fully refunded (${creditsText(o.refunded)})`);
  return new DomainError("conflict", `Only ${creditsText(left)} of execution ${exe} can still be refunded (charged ${o.cap}, refunded ${credits(o.refunded).toFixed()}); asked for ${credits(o.amount).toFixed()}`);
}
