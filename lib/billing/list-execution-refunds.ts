import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { notFound } from "../errors";
import { LEDGER_COLUMNS, type LedgerRecord } from "../audit/ledger-history";
import { type RefundFigures, refundFigures } from "./refund-execution";

/** An execution's refund ledger rows, oldest first, and where it stands (charged, refunded, left). */
export async function listExecutionRefunds(db: Db, input: { accountId: string; executionId: string }): Promise<{ execution: RefundFigures; entries: LedgerRecord[] }> {
  const { accountId: a, executionId: exe } = input;
  const found = rows<{ charge_outcome: string | null; settled: string; refunded: string }>(
    await db.execute(sql`
      SELECT charge_outcome, coalesce(settled_credits, 0)::text AS settled, refunded_credits::text AS refunded
        FROM executions WHERE id = ${exe} AND account_id = ${a}`),
  )[0];
  if (!found) throw notFound(`Execution ${exe} not found`);
  const entries = rows<LedgerRecord>(
    await db.execute(sql`
      SELECT ${LEDGER_COLUMNS} FROM credits_ledger l
       WHERE l.account_id = ${a} AND l.execution_id = ${exe} AND l.entry_type = 'refund_tool_execute'
       ORDER BY l.seq`),
  );
  return { execution: refundFigures({ execution_id: exe, account_id: a, ...found }), entries };
}
