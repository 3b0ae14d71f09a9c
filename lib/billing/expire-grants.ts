import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { newId } from "../ids";
import { systemClock, type Clock } from "../clock";
import { grantKind, grantTypes } from "./grant-credits";
import { notifyCtes } from "../alerts/notify-sql";
import { SYSTEM, recordActivity } from "../accounts/activity";

/** `expire_<grant type>` of a lot's kind, as SQL on the lot row (alias-free `kind`). */
const expireEntryType = sql.raw(
  `CASE kind ${grantTypes.map((type) => `WHEN '${grantKind[type]}' THEN 'expire_${type}'`).join(" ")} END`,
);

interface BatchResult {
  scanned: number;
  expired: number;
  last_expires_at: string | null;
  last_id: string | null;
  /** What each account lost, by kind (decimal strings), for its activity log. */
  accounts: { account_id: string; paid: string | null; bonus: string | null; reward: string | null; lots: number }[] | string | null;
}

/**
 * One batch of lots due at `now`, after the cursor `(expires_at, id)`. Per account, in the order
 * lots are drawn (expires_at, id): what a lot can give up is its remaining, capped first by what
 * is left of its kind's balance and then by the account's available credits (total - reserved),
 * so credits reserved by Calls in flight are never expired from under them. Each lot's amount is
 * the greedy fill of those caps in closed form: least(x, greatest(cap - sum of the earlier
 * ones, 0)). A lot that gave up everything it could is done (remaining 0, expired_at set); one held
 * back by reservations keeps the rest live and is taken at a later sweep.
 */
async function expireBatch(db: Db, now: Date, batchSize: number, after: { at: string; id: string } | null): Promise<BatchResult> {
  const ids = Array.from({ length: batchSize }, () => newId("led"));
  const cursor = after ? sql`AND (expires_at, id) > (${after.at}::timestamptz, ${after.id})` : sql``;
  const result = await db.execute(sql`
    WITH due AS (
      SELECT id, account_id, expires_at FROM credit_grants
       WHERE expired_at IS NULL AND expires_at <= ${now.toISOString()}::timestamptz ${cursor}
       ORDER BY expires_at, id LIMIT ${batchSize}
    ), bal AS (
      -- Balance rows in account order, then lots: the order a debit takes them in (DEBIT_CTES).
      SELECT account_id, paid_credits, bonus_credits, reward_credits, reserved_credits FROM credit_balances
       WHERE account_id IN (SELECT account_id FROM due) ORDER BY account_id FOR UPDATE
    ), lots AS (
      -- FOR UPDATE reads each lot's latest version: a lot another sweeper expired meanwhile drops out.
      SELECT id, account_id, kind, remaining_credits, expires_at FROM credit_grants
       WHERE id IN (SELECT id FROM due) AND expired_at IS NULL AND (SELECT count(*) FROM bal) >= 0
         FOR UPDATE
    ), by_kind AS (
      SELECT l.*, b.paid_credits + b.bonus_credits + b.reward_credits AS total,
             b.paid_credits + b.bonus_credits + b.reward_credits - b.reserved_credits AS available,
             least(l.remaining_credits, greatest(
               CASE l.kind WHEN 'bonus' THEN b.bonus_credits WHEN 'reward' THEN b.reward_credits ELSE b.paid_credits END
               - coalesce(sum(l.remaining_credits) OVER (PARTITION BY l.account_id, l.kind ORDER BY l.expires_at, l.id
                                                         ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0), 0)) AS kind_share
        FROM lots l JOIN bal b USING (account_id)
    ), amounts AS (
      SELECT k.*, least(k.kind_share, greatest(k.available - coalesce(sum(k.kind_share) OVER w, 0), 0)) AS take
        FROM by_kind k
      WINDOW w AS (PARTITION BY k.account_id ORDER BY k.expires_at, k.id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    ), chained AS (
      SELECT a.*, a.total - coalesce(sum(a.take) OVER (PARTITION BY a.account_id ORDER BY a.expires_at, a.id
                                                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS balance_before,
             row_number() OVER (ORDER BY a.account_id, a.expires_at, a.id) AS n
        FROM amounts a
    ), lot_upd AS (
      UPDATE credit_grants g
         SET remaining_credits = CASE WHEN c.take = c.kind_share THEN 0 ELSE g.remaining_credits - c.take END,
             expired_at = CASE WHEN c.take = c.kind_share THEN ${now.toISOString()}::timestamptz END
        FROM chained c WHERE g.id = c.id
   RETURNING g.id, g.expired_at IS NOT NULL AS done
    ), per_account AS (
      SELECT account_id, sum(take) FILTER (WHERE kind = 'paid') AS paid, sum(take) FILTER (WHERE kind = 'bonus') AS bonus,
             sum(take) FILTER (WHERE kind = 'reward') AS reward, count(*) FILTER (WHERE take > 0) AS lots
        FROM chained GROUP BY account_id HAVING sum(take) > 0
    ), bal_upd AS (
      UPDATE credit_balances cb
         SET paid_credits = cb.paid_credits - coalesce(p.paid, 0), bonus_credits = cb.bonus_credits - coalesce(p.bonus, 0),
             reward_credits = cb.reward_credits - coalesce(p.reward, 0), updated_at = now()
        FROM per_account p WHERE cb.account_id = p.account_id
    ), led AS (
      -- Rows in chain order, so seq follows balance_before -> balance_after within each account.
      INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, source_ref_type, source_ref_id,
                                  balance_before, balance_after, ledger_metadata, description)
      SELECT ${JSON.stringify(ids)}::jsonb ->> (n - 1)::int, account_id, ${expireEntryType}, -take, 'tollgate', 'grant', id,
             balance_before, balance_before - take,
             jsonb_build_object('credit_kind', kind, 'grant_id', id, 'expires_at', expires_at),
             'Expired ' || kind || ' credits of grant ' || id
        FROM chained WHERE take > 0 ORDER BY n
    )
    SELECT (SELECT count(*) FROM due)::int AS scanned, (SELECT count(*) FROM lot_upd WHERE done)::int AS expired,
           (SELECT max(expires_at)::text FROM due) AS last_expires_at,
           (SELECT id FROM due ORDER BY expires_at DESC, id DESC LIMIT 1) AS last_id,
           (SELECT jsonb_agg(jsonb_build_object('account_id', account_id, 'paid', paid::text, 'bonus', bonus::text, 'reward', reward::text, 'lots', lots))
              FROM per_account) AS accounts`);
  const batch = rows<BatchResult>(result)[0];
  const accounts = typeof batch.accounts === "string" ? (JSON.parse(batch.accounts) as Exclude<BatchResult["accounts"], string>) : batch.accounts;
  for (const a of accounts ?? []) {
    const lost = Object.fromEntries((["paid", "bonus", "reward"] as const).filter((k) => a[k] !== null).map((k) => [k, a[k]]));
    await recordActivity(db, a.account_id, SYSTEM, { action: "credits.expired", objectType: "account", objectId: a.account_id, after: { expired_credits: lost, lots: a.lots } });
  }
  return batch;
}

/**
 * Expires the credit grants whose `expires_at` has passed (per `clock`): one `expire_<grant type>`
 * ledger row per lot for what is left of it, and the kind's balance lowered by as much, in one
 * statement per batch of `batchSize` lots. Safe on every instance at once (the balance row lock
 * serialises sweepers and debits; a lot is expired once). Returns the number of lots expired.
 */
export async function expireCreditGrants(db: Db, clock: Clock = systemClock, batchSize = 100): Promise<number> {
  const now = clock.now();
  let expired = 0;
  let after: { at: string; id: string } | null = null;
  for (;;) {
    // Each batch commits with the `credits.expired` entries of the accounts it touched.
    const batch = await db.transaction((tx) => expireBatch(tx as unknown as Db, now, batchSize, after));
    expired += batch.expired;
    if (batch.scanned < batchSize || batch.last_expires_at === null || batch.last_id === null) return expired;
    after = { at: batch.last_expires_at, id: batch.last_id };
  }
}

/** How long before a grant expires its account is told (`credits_expiring`, once per grant). */
export const EXPIRY_NOTICE_DAYS = 7;

/**
 * Tells each account, once per grant, that credits expire within `EXPIRY_NOTICE_DAYS`: a
 * `credits_expiring` notification (claim key `credits_expiring:<grant id>`) and its webhook
 * deliveries (`credits.expiring`), in one statement. Run by the sweeper; safe on every instance
 * at once (the claim key is unique). Returns how many notifications were new.
 */
export async function notifyExpiringGrants(db: Db, clock: Clock = systemClock, days = EXPIRY_NOTICE_DAYS): Promise<number> {
  const now = clock.now();
  const result = await db.execute(sql`
    WITH exp_src AS (
      SELECT g.account_id, 'credits_expiring'::text AS kind, 'credits_expiring:' || g.id AS claim_key,
             jsonb_build_object('grant_id', g.id, 'kind', g.kind, 'remaining_credits', g.remaining_credits,
                                'amount_credits', g.amount_credits, 'expires_at', g.expires_at) AS payload
        FROM credit_grants g
       WHERE g.expired_at IS NULL AND g.remaining_credits > 0
         AND g.expires_at > ${now.toISOString()}::timestamptz
         AND g.expires_at <= ${new Date(now.getTime() + days * 86_400_000).toISOString()}::timestamptz
         AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.claim_key = 'credits_expiring:' || g.id)
       LIMIT 1000
    ), ${sql.raw(notifyCtes("exp_src"))}
    SELECT count(*)::int AS created FROM ntf`);
  return rows<{ created: number }>(result)[0]?.created ?? 0;
}
