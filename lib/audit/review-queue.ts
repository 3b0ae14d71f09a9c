// Support's review queue: every Call that failed but was charged (`failed_charged_review`) and is
// not yet refunded in full, across all accounts, oldest first — the work a support desk owes its
// customers. Review cases are rare by design (the Call path never charges a failure), so the
// queue reads the partial index of review events (`usage_account_review_idx`) whole.
import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { credits, creditsToNumber } from "../money";
import { IN_REVIEW } from "./usage-filters";

export interface ReviewCase {
  usage_event_id: string;
  execution_id: string;
  account_id: string;
  account_name: string;
  tool_id: string | null;
  tool_name: string | null;
  created_at: string;
  reason_code: string | null;
  error_message: string | null;
  charged_credits: number;
  refunded_credits: number;
  /** What a refund can still give back: charged less refunded. */
  open_credits: number;
}

export async function reviewQueue(db: Db, opts: { limit: number; offset: number }): Promise<{ items: ReviewCase[]; total: number }> {
  // An open case as the usage filter `anomaly=failed_charged_review` reads it, of a Call.
  const open = sql`${sql.raw(IN_REVIEW)} AND e.execution_id IS NOT NULL`;
  const found = rows<{
    id: string;
    execution_id: string;
    account_id: string;
    account_name: string;
    tool_id: string | null;
    tool_name: string | null;
    created_at: Date | string;
    reason_code: string | null;
    error_message: string | null;
    charged: string;
    refunded: string | null;
    total: number | string;
  }>(
    await db.execute(sql`
      SELECT e.id, e.execution_id, e.account_id, a.name AS account_name, e.tool_id, t.name AS tool_name, e.created_at, e.reason_code, e.error_message,
             COALESCE(x.settled_credits, e.actual_amount_credits)::text AS charged, x.refunded_credits::text AS refunded,
             count(*) OVER () AS total
        FROM usage_events e
        JOIN accounts a ON a.id = e.account_id
        LEFT JOIN executions x ON x.id = e.execution_id AND x.account_id = e.account_id
        LEFT JOIN tools t ON t.id = e.tool_id
       WHERE ${open}
       ORDER BY e.created_at, e.id
       LIMIT ${opts.limit} OFFSET ${opts.offset}`),
  );
  const total = found.length > 0 ? Number(found[0].total) : opts.offset > 0 ? Number(rows<{ n: string }>(await db.execute(sql`SELECT count(*) AS n FROM usage_events e WHERE ${open}`))[0].n) : 0;
  return {
    total,
    items: found.map((r) => {
      const charged = credits(r.charged);
      const refunded = credits(r.refunded ?? "0");
      return {
        usage_event_id: r.id,
        execution_id: r.execution_id,
        account_id: r.account_id,
        account_name: r.account_name,
        tool_id: r.tool_id,
        tool_name: r.tool_name,
        created_at: new Date(r.created_at).toISOString(),
        reason_code: r.reason_code,
        error_message: r.error_message,
        charged_credits: creditsToNumber(charged),
        refunded_credits: creditsToNumber(refunded),
        open_credits: creditsToNumber(charged.minus(refunded)),
      };
    }),
  };
}
