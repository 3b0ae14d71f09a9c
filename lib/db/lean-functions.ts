import { sql } from "drizzle-orm";
import type { Db } from "./types";
import { rows } from "./row-sql";

/**
 * The lean money statements as PL/pgSQL functions: `tg_reserve_lean`, `tg_record_lean` and
 * `tg_settle_lean`, each taking one job as JSON (as `lib/execution/settle.ts` builds it) and
 * returning one row `(written, ledger_id, available, fallback)`. They serve a Call whose statement
 * goes alone; a batch of concurrent Calls goes as one full statement, which writes any number of
 * jobs for about the price of one.
 *
 * Why functions: a writable-CTE statement pays for its whole plan at every execution (every
 * relation, index and node is opened and initialised, every CTE materialised), whatever it finds
 * to do. A function runs a few small statements whose plans PL/pgSQL keeps per connection, and
 * only those the job needs (measured with pgbench, a reserve and a settle: 0.39 + 0.75 ms as
 * CTEs, 0.30 + 0.52 ms as functions, before their commits).
 *
 * They apply to Calls of accounts without money rules: a job of an account with a budget (reserve, record), a low-balance alert or live expiring credit
 * lots (record, settle), or a reservation held on a budget or a delegation token (settle) is
 * written nothing and answered `fallback`, and the caller runs it through the full statement.
 * The job's balance row is locked first, as every money statement locks it; each later statement
 * of a (volatile) function reads a new snapshot, so the rules are checked as committed when the
 * lock was granted: a grant, budget or alert committed while a job waited for its balance row is
 * seen.
 *
 * The column lists come from the catalog when the functions are installed (after the migrations,
 * at every start): a column absent from a job's JSON gets the column's default, as it would if
 * the statement had not named it.
 */

/**
 * "The execution `e` is a live reservation", for statements that also name the execution's id:
 * written so that only the primary key can serve them. Plain `e.status = 'reserved'` lets the
 * planner use the partial indexes of live reservations (`WHERE status = 'reserved'`), which look
 * cheapest while few Calls are in flight; a connection keeps that plan, and when a slow provider
 * leaves thousands of Calls in flight every settlement reads all of them. PostgreSQL (15 here, 18 in
 * PGlite) does not prove the partial indexes' predicate from `IS TRUE`.
 */
export const RESERVED = "(e.status = 'reserved') IS TRUE";

/** What a settlement may change on its execution row (absent keys keep their value). */
export const SETTLED_COLUMNS = ["success", "reason_code", "charge_outcome", "settled_credits", "duration_ms", "cache_hit", "response", "response_status"] as const;

interface Column {
  name: string;
  /** The column's default expression, or null. */
  defaultExpr: string | null;
}

async function columnsOf(db: Db, table: string): Promise<Column[]> {
  const result = await db.execute(sql`
    SELECT a.attname AS name, pg_get_expr(d.adbin, d.adrelid) AS default_expr
      FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE a.attrelid = ${table}::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
     ORDER BY a.attnum`);
  return rows<{ name: string; default_expr: string | null }>(result).map((r) => ({ name: r.name, defaultExpr: r.default_expr }));
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * `INSERT INTO table (every column) SELECT ... FROM jsonb_populate_record(NULL::table, source) r`,
 * a column absent from `source` taking its default; `overrides` gives some columns' values.
 */
function insertFromJson(table: string, columns: Column[], source: string, overrides: Record<string, string> = {}): string {
  const names = columns.map((c) => quote(c.name)).join(", ");
  const values = columns
    .map((c) => overrides[c.name] ?? (c.defaultExpr === null ? `r.${quote(c.name)}` : `coalesce(r.${quote(c.name)}, ${c.defaultExpr})`))
    .join(", ");
  return `INSERT INTO ${table} (${names}) SELECT ${values} FROM jsonb_populate_record(NULL::${table}, ${source}) r`;
}

/** The functions' source (one CREATE statement each), for the columns the tables have now. */
export function leanFunctionsSql(columns: { executions: Column[]; usageEvents: Column[] }): string[] {
  const execution = (source: string) => insertFromJson("executions", columns.executions, source);
  const event = (source: string) => insertFromJson("usage_events", columns.usageEvents, source, { credits_ledger_entry_id: "ledger_id" });
  const settled = SETTLED_COLUMNS.map(quote).join(", ");
  const settledValues = SETTLED_COLUMNS.map((c) => `r.${quote(c)}`).join(", ");

  // Locks the job's balance row and reads it.
  const readBalance = `
  SELECT cb.bonus_credits, cb.reward_credits, cb.paid_credits, cb.reserved_credits INTO bonus, reward, paid, reserved
    FROM credit_balances cb WHERE cb.account_id = acc FOR UPDATE;`;

  // A charge's rules that only the full statements apply: a low-balance alert or live expiring lots.
  const ruledCharge = `EXISTS (SELECT 1 FROM alert_settings s WHERE s.account_id = acc AND s.low_balance_credits IS NOT NULL)
      OR EXISTS (SELECT 1 FROM credit_grants g WHERE g.account_id = acc AND g.expired_at IS NULL)`;
  const hasBudget = `EXISTS (SELECT 1 FROM budgets bu WHERE bu.account_id = acc)`;

  // Debits `amt` from the balance row read by readBalance (bonus, then reward, then paid),
  // releasing `rel`, and appends the consume row; sets `ledger_id` and `available`.
  const debit = `
  tb := least(bonus, amt); tr := least(reward, amt - tb); tp := amt - tb - tr;
  UPDATE credit_balances SET bonus_credits = bonus_credits - tb, reward_credits = reward_credits - tr,
         paid_credits = paid_credits - tp, reserved_credits = greatest(reserved_credits - rel, 0), updated_at = now()
   WHERE account_id = acc;
  available := bonus + reward + paid - amt - greatest(reserved - rel, 0);
  IF amt > 0 THEN
    led := job->'ledger';
    ledger_id := led->>'id';
    INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, source_ref_type, source_ref_id,
                                execution_id, usage_event_id, api_key_id, pre_settlement_bill, settlement_result,
                                balance_before, balance_after, ledger_metadata, description)
    SELECT l.id, acc, l.entry_type, -amt, 'tollgate', l.source_ref_type, l.source_ref_id,
           l.execution_id, l.usage_event_id, l.api_key_id, l.pre_settlement_bill, l.settlement_result,
           bonus + reward + paid, bonus + reward + paid - amt,
           coalesce(l.ledger_metadata, '{}'::jsonb)
             || jsonb_build_object('credit_split', jsonb_build_object('bonus', tb::text, 'reward', tr::text, 'paid', tp::text)),
           l.description
      FROM jsonb_populate_record(NULL::credits_ledger, led) l;
  END IF;`;

  const header = (name: string) => `
CREATE OR REPLACE FUNCTION ${name}(job jsonb) RETURNS TABLE (written boolean, ledger_id text, available numeric, fallback boolean)
  LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  acc text := job->>'account_id'; amt numeric := coalesce((job->>'amount')::numeric, 0); rel numeric := 0;
  bonus numeric; reward numeric; paid numeric; reserved numeric; tb numeric; tr numeric; tp numeric; led jsonb;
BEGIN
  written := false; fallback := false;`;

  return [
    `${header("tg_reserve_lean")}
  IF amt > 0 THEN
    -- The conditional update locks the row; budgets are read after it, as committed by then.
    UPDATE credit_balances SET reserved_credits = reserved_credits + amt, updated_at = now()
     WHERE account_id = acc AND paid_credits + bonus_credits + reward_credits - reserved_credits >= amt;
    IF NOT FOUND THEN
      -- Short of credits: a budget may refuse first (the full statement says which).
      fallback := ${hasBudget}; RETURN NEXT; RETURN;
    END IF;
    IF ${hasBudget} THEN
      UPDATE credit_balances SET reserved_credits = reserved_credits - amt WHERE account_id = acc;
      fallback := true; RETURN NEXT; RETURN;
    END IF;
  END IF;
  ${execution("job->'execution'")};
  written := true; RETURN NEXT;
END $fn$`,
    `${header("tg_record_lean")}
  IF job ? 'ledger' THEN
    ${readBalance}
    IF ${hasBudget} OR ${ruledCharge} THEN
      fallback := true; RETURN NEXT; RETURN;
    END IF;
    IF bonus + reward + paid - reserved < amt THEN RETURN NEXT; RETURN; END IF;
    ${debit}
  ELSE
    SELECT cb.paid_credits + cb.bonus_credits + cb.reward_credits - cb.reserved_credits INTO available FROM credit_balances cb WHERE cb.account_id = acc;
  END IF;
  ${execution("job->'execution'")};
  ${event("job->'event'")};
  written := true; RETURN NEXT;
END $fn$`,
    `${header("tg_settle_lean")}
  ${readBalance}
  IF amt > 0 AND (${ruledCharge}) THEN
    fallback := true; RETURN NEXT; RETURN;
  END IF;
  UPDATE executions e SET (${settled}) = (SELECT ${settledValues} FROM jsonb_populate_record(e, job->'update') r),
         status = 'settled', settled_at = now()
   WHERE e.id = job->>'execution_id' AND ${RESERVED} AND e.budget_ids IS NULL AND e.delegation_jti IS NULL
   RETURNING e.reserved_credits INTO rel;
  IF NOT FOUND THEN
    -- Held on a budget or a token (the full statement settles it), or released by the sweeper meanwhile.
    fallback := EXISTS (SELECT 1 FROM executions e WHERE e.id = job->>'execution_id' AND ${RESERVED});
    IF NOT fallback THEN available := bonus + reward + paid - reserved; END IF;
    RETURN NEXT; RETURN;
  END IF;
  IF bonus + reward + paid - reserved + rel < amt THEN
    -- A reservation covers the quoted maximum, which a settled amount never exceeds.
    RAISE EXCEPTION 'settlement of % credits exceeds what execution % holds and the balance', amt, job->>'execution_id';
  END IF;
  ${debit}
  ${event("job->'event'")};
  written := true; RETURN NEXT;
END $fn$`,
  ];
}

/** (Re)creates the lean functions for the tables as they are (see the module comment). */
export async function installLeanFunctions(db: Db): Promise<void> {
  const [executions, usageEvents] = [await columnsOf(db, "executions"), await columnsOf(db, "usage_events")];
  for (const statement of leanFunctionsSql({ executions, usageEvents })) await db.execute(sql.raw(statement));
}
