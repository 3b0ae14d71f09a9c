import { PgTransaction } from "drizzle-orm/pg-core";
import { executions, usageEvents } from "../db/schema";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { JsonText, columnJsonText, columnList, jobJson, jobsJson, runQuery } from "../db/statement";
import { WriteBatcher } from "../db/write-batcher";
import { RESERVED } from "../db/lean-functions";
import { DEBIT_CTES, type LedgerRowInput } from "../billing/debit-credits";
import { BUDGET_CROSSING_COLUMNS, BUDGET_SPEND_CTE, alertCtes, blTags, budgetCheckCtes, tagLedger, type BudgetRefusal } from "../billing/budget-sql";
import { usageEventRow, type UsageEventInput } from "../audit/usage-event";
import { creditsToSql } from "../money";
import { countMoneyStatement } from "../observability/metrics";

/**
 * The database side of a Call. Each write is ONE statement taking its rows as JSON, so a Call
 * costs one round trip (free or in-process tools) or two (reserve, then settle, for upstream
 * tools). Records and settlements of concurrent Calls are group-committed: one statement writes a
 * whole batch, each Call's rows all-or-nothing within it (`WriteBatcher`). A Call of an account
 * without money rules goes through a lean function (lib/db/lean-functions.ts); the full
 * statements (writable CTEs) apply budgets, alerts, expiring lots and delegation tokens.
 */
type ExecutionRow = typeof executions.$inferInsert;
/** What a settlement writes on its execution row: `SETTLED_COLUMNS` (lib/db/lean-functions.ts). */
type SettledFields = Partial<Pick<ExecutionRow, "success" | "reasonCode" | "chargeOutcome" | "settledCredits" | "durationMs" | "cacheHit" | "response" | "responseStatus">>;

export interface SettleOutcome {
  /** False when a reservation was no longer held (released by the sweeper meanwhile). */
  settled: boolean;
  ledgerEntryId: string | null;
  availableAfter: string | null;
}

/** What a Call consumes: the amount (> 0) and the static fields of its ledger row. */
export interface Charge {
  amount: string;
  ledger: LedgerRowInput;
}

interface Job {
  account_id: string;
  /** The time the budgets' periods are decided by (ISO). */
  at: string;
  /** Who spends: the budgets of this key or OAuth client apply besides the account's. */
  api_key_id?: string | null;
  client_id?: string | null;
  amount?: string;
  ledger?: LedgerRowInput;
  execution_id?: string;
  jti?: string;
  /** Rows as JSON text (`columnJsonText`), copied into the statement's document as they are. */
  execution?: JsonText;
  update?: JsonText;
  event?: JsonText;
}

interface JobResult {
  written: boolean;
  /** A lean function left this job to the full statement (lib/db/lean-functions.ts). */
  fallback?: boolean;
  cap_ok?: boolean;
  budget_refusal?: BudgetRefusal | null;
  ledger_id: string | null;
  available: string | null;
}

const AVAILABLE = `(SELECT cb.paid_credits + cb.bonus_credits + cb.reward_credits - cb.reserved_credits
                      FROM credit_balances cb WHERE cb.account_id = jobs.job->>'account_id')`;

/** The batch, one row per job (`tg_jobs`, migration 0014, tells the planner a batch is small). */
const JOBS = `jobs AS (SELECT j.i, j.job FROM tg_jobs($1::jsonb) j)`;

/** The usage event insert of a batch; its ledger link comes from the debit (`upd`), when there was one. */
function eventInsert(eventColumns: string[], from: string): string {
  return `ev AS (
      INSERT INTO usage_events (${columnList(eventColumns)}, "credits_ledger_entry_id")
      SELECT ${columnList(eventColumns, "r.")}, CASE WHEN upd.amount > 0 THEN upd.ledger->>'id' END
        FROM ${from} JOIN jobs USING (i) LEFT JOIN upd USING (i)
             CROSS JOIN LATERAL jsonb_populate_record(NULL::usage_events, jobs.job->'event') r
    )`;
}

/** Executions and events of Calls that needed no reservation; a job with a `ledger` is charged. */
function recordSql(executionColumns: string[], eventColumns: string[]): string {
  const charged = "jobs WHERE job ? 'ledger'";
  return `
    WITH ${JOBS},
    lk AS (
      SELECT account_id FROM credit_balances WHERE account_id IN (SELECT job->>'account_id' FROM ${charged})
       ORDER BY account_id FOR UPDATE
    ), ${BUDGET_QUERY(charged)},
    ${budgetCheckCtes("lk")},
    charges AS (
      SELECT i, job->>'account_id' AS account_id, (job->>'amount')::numeric AS amount, 0::numeric AS release,
             ${tagLedger("job->'ledger'", blTags("jobs.i"))} AS ledger
        FROM ${charged} AND i NOT IN (SELECT i FROM bover)
    ), ${DEBIT_CTES},
    charged AS (SELECT i, amount FROM upd),
    ${BUDGET_SPEND_CTE}, ${alertCtes("bsp")},
    ok AS (SELECT i FROM jobs WHERE NOT job ? 'ledger' UNION ALL SELECT i FROM upd),
    ex AS (
      INSERT INTO executions (${columnList(executionColumns)})
      SELECT ${columnList(executionColumns, "r.")}
        FROM ok JOIN jobs USING (i) CROSS JOIN LATERAL jsonb_populate_record(NULL::executions, jobs.job->'execution') r
    ), ${eventInsert(eventColumns, "ok")}
    SELECT jobs.i, ok.i IS NOT NULL AS written, CASE WHEN upd.amount > 0 THEN upd.ledger->>'id' END AS ledger_id,
           coalesce(upd.available_after, ${AVAILABLE}) AS available, bover.refusal AS budget_refusal
      FROM jobs LEFT JOIN ok USING (i) LEFT JOIN upd USING (i) LEFT JOIN bover USING (i) ORDER BY jobs.i`;
}

/** CTE `bq`: the charges of the jobs selected by `from` (a FROM clause over `jobs`), for `budgetCheckCtes`. */
const BUDGET_QUERY = (from: string) => `bq AS (
      SELECT i, job->>'account_id' AS account_id, job->>'api_key_id' AS api_key_id, job->>'client_id' AS client_id,
             (job->>'amount')::numeric AS amount, (job->>'at')::timestamptz AS at
        FROM ${from}
    )`;

/**
 * Settlements of reserved Calls, each exactly once: marks the execution settled, releases its
 * reservation, debits the actual amount with its ledger row, writes the usage event, and moves a
 * delegation token's reservation to its spend. A reservation already released by the sweeper
 * settles nothing.
 */
function settleSql(updateColumns: string[], eventColumns: string[]): string {
  return `
    WITH ${JOBS},
    held AS (
      -- Balance rows before execution rows, as a reserve takes them (its insert may wait on an
      -- execution row with the same Idempotency-Key): the other order deadlocks.
      SELECT account_id FROM credit_balances WHERE account_id IN (SELECT job->>'account_id' FROM jobs)
       ORDER BY account_id FOR UPDATE
    ), ex AS (
      UPDATE executions e
         SET (${columnList(updateColumns)}) = (SELECT ${columnList(updateColumns, "r.")}
                                                 FROM jsonb_populate_record(NULL::executions, jobs.job->'update') r),
             status = 'settled', settled_at = now()
        FROM jobs
       WHERE e.id = jobs.job->>'execution_id' AND ${RESERVED} AND (SELECT count(*) FROM held) >= 0
   RETURNING jobs.i, e.account_id, e.reserved_credits, e.delegation_jti, e.budget_ids
    ), bx AS (
      -- The budgets the reservation is held on, and the period the charge counts in.
      SELECT ex.i, bb.id, budget_period_start(bb.period, bb.time_zone, (jobs.job->>'at')::timestamptz) AS ps, ex.reserved_credits AS release
        FROM ex JOIN jobs USING (i) JOIN budgets bb ON bb.id = ANY(ex.budget_ids)
    ), charges AS (
      SELECT ex.i, ex.account_id, coalesce((jobs.job->>'amount')::numeric, 0) AS amount, ex.reserved_credits AS release,
             ${tagLedger("jobs.job->'ledger'", "(SELECT jsonb_object_agg(bx.id, bx.ps) FROM bx WHERE bx.i = ex.i)")} AS ledger
        FROM ex JOIN jobs USING (i)
    ), ${DEBIT_CTES},
    bset AS (
      UPDATE budgets b
         SET period_start = bx.ps,
             spent_credits = CASE WHEN b.period_start = bx.ps THEN b.spent_credits ELSE 0 END + coalesce(upd.amount, 0),
             reserved_credits = greatest(b.reserved_credits - bx.release, 0),
             updated_at = now()
        FROM bx LEFT JOIN upd USING (i)
       WHERE b.id = bx.id
   RETURNING ${BUDGET_CROSSING_COLUMNS("coalesce(upd.amount, 0)", "bx.ps")}
    ), ${alertCtes("bset")},
    ${eventInsert(eventColumns, "ex")},
    dc AS (
      UPDATE delegation_spend ds
         SET reserved_credits = greatest(ds.reserved_credits - ex.reserved_credits, 0),
             spent_credits = ds.spent_credits + coalesce(upd.amount, 0)
        FROM ex LEFT JOIN upd USING (i)
       WHERE ds.jti = ex.delegation_jti
    )
    SELECT jobs.i, ex.i IS NOT NULL AS written, CASE WHEN upd.amount > 0 THEN upd.ledger->>'id' END AS ledger_id,
           coalesce(upd.available_after, ${AVAILABLE}) AS available
      FROM jobs LEFT JOIN ex USING (i) LEFT JOIN upd USING (i) ORDER BY jobs.i`;
}

// Group commit: a few batches in flight (each holds a pooled connection while it runs), up to 64
// Calls in a batch. Measured with `npm run bench:call`; see docs/call.md.
const BATCHING = { maxInFlight: 2, maxBatch: 64 };

type Kind = "record" | "settle" | "reserve";
/** A statement's column list for one table, and its key (`columnJsonText`). */
type ColumnSet = { columns: string[]; columnsKey: string };
const NO_COLUMNS: ColumnSet = { columns: [], columnsKey: "" };
const batchers = new WeakMap<Db, Map<string, WriteBatcher<Pending, JobResult>>>();

async function runJobs(db: Db, text: string, jobs: Job[]): Promise<JobResult[]> {
  const result = await runQuery(db, text, [jobsJson(jobs)]);
  return rows<JobResult>(result);
}

/**
 * Accounts whose Calls fell back from a lean statement lately (they have a budget or a low-balance
 * alert): their next Calls on this instance go straight to the full statements for a minute. Only
 * a hint that saves the second round trip; the lean functions check the rules themselves.
 */
const ruledAccounts = new Map<string, number>();
const RULED_FOR_MS = 60_000;

/** Drops the hint, as a new instance starts (tests use it to reach the lean functions' own checks). */
export function forgetRuledAccounts(): void {
  ruledAccounts.clear();
}

function ruledLately(accountId: string): boolean {
  const until = ruledAccounts.get(accountId);
  if (until === undefined) return false;
  if (until > Date.now()) return true;
  ruledAccounts.delete(accountId);
  return false;
}

/** A job, and whether it may try its kind's lean function (nothing known applies a rule to it). */
interface Pending {
  job: Job;
  lean: boolean;
}

/** The lean function of a kind (lib/db/lean-functions.ts), as a statement answering like the full one. */
const leanSql = (kind: Kind) => `SELECT written, ledger_id, available, fallback, true AS cap_ok, NULL::jsonb AS budget_refusal FROM tg_${kind}_lean($1::jsonb)`;

/**
 * Writes a batch: a lone job that may go lean through its kind's function, and through the full
 * statement when the function leaves it (`fallback`: it wrote nothing, because the account has a
 * budget, a low-balance alert or live expiring lots, or the reservation is held on a budget or a
 * delegation token); several jobs through the full statement, which writes them for about the
 * price of one (measured: at 50 connections the functions, job by job, gave 15% fewer Calls/s).
 */
async function runBatch(db: Db, kind: Kind, fullSql: string, batch: Pending[]): Promise<JobResult[]> {
  if (batch.length === 1 && batch[0].lean) {
    const { job } = batch[0];
    const result = rows<JobResult>(await runQuery(db, leanSql(kind), [jobJson(job)]))[0];
    if (!result.fallback) {
      countMoneyStatement(kind, "lean");
      return [result];
    }
    countMoneyStatement(kind, "fallback");
    if (ruledAccounts.size >= 10_000) ruledAccounts.clear();
    ruledAccounts.set(job.account_id, Date.now() + RULED_FOR_MS);
  }
  const results = await runJobs(db, fullSql, batch.map((p) => p.job));
  for (let n = 0; n < batch.length; n++) countMoneyStatement(kind, "full");
  return results;
}

/**
 * Runs a job through the batcher of its statement (one per statement text). Inside a caller's
 * transaction there is nothing to combine with: the job runs alone, in that transaction.
 * `leanFirst`: the job may go through its kind's lean function when it goes alone.
 */
function submit(db: Db, kind: Kind, a: ColumnSet, b: ColumnSet, job: Job, leanFirst: boolean): Promise<JobResult> {
  // A record that charges nothing has no rule to apply; other jobs skip the function while their account was lately found ruled.
  const pending = { job, lean: leanFirst && ((kind === "record" && job.ledger === undefined) || !ruledLately(job.account_id)) };
  const columnsA = a.columns;
  const columnsB = b.columns;
  // The full statements name their columns (by the lists' short keys, `columnJsonText`): one batcher per statement text.
  const signature = `${kind}|${a.columnsKey}|${b.columnsKey}`;
  const text = () => (kind === "record" ? recordSql(columnsA, columnsB) : kind === "settle" ? settleSql(columnsA, columnsB) : reserveSql(columnsA));
  if ((db as unknown) instanceof PgTransaction) return runBatch(db, kind, text(), [pending]).then((r) => r[0]);
  let perDb = batchers.get(db);
  if (!perDb) batchers.set(db, (perDb = new Map()));
  let batcher = perDb.get(signature);
  if (!batcher) {
    const sqlText = text();
    batcher = new WriteBatcher<Pending, JobResult>((batch) => runBatch(db, kind, sqlText, batch), BATCHING);
    perDb.set(signature, batcher);
  }
  // Jobs that touch a balance row (a charge, a reservation, its release) are keyed by account: one per batch.
  const locksBalance = kind !== "record" || job.ledger !== undefined;
  return batcher.submit(pending, locksBalance ? job.account_id : null);
}

function eventJson(event: UsageEventInput) {
  const { creditsLedgerEntryId: _linkedByStatement, ...row } = usageEventRow(event);
  return columnJsonText(usageEvents, row);
}

/** Who spends and when: decides which budgets apply to a charge, and in which period. */
export interface Spender {
  /** The OAuth client a delegation token was issued to (its budget applies besides the key's and the account's). */
  clientId?: string | null;
  at: Date;
}

/** A Call recorded (and charged), or nothing written: credits were short, or a budget refused the charge. */
export type RecordOutcome = ({ written: true } & SettleOutcome) | { written: false; budget: BudgetRefusal | null };

/** A Call that needs no reservation: records execution and event, and charges when `charge` is given. */
export async function recordCall(db: Db, execution: ExecutionRow, event: UsageEventInput, spender: Spender, charge?: Charge): Promise<RecordOutcome> {
  const ex = columnJsonText(executions, execution);
  const ev = eventJson(event);
  const job: Job = { account_id: execution.accountId, at: spender.at.toISOString(), execution: ex.json, event: ev.json };
  if (charge) {
    job.amount = creditsToSql(charge.amount);
    job.ledger = charge.ledger;
    job.api_key_id = execution.apiKeyId ?? null;
    job.client_id = spender.clientId ?? null;
  }
  const r = await submit(db, "record", ex, ev, job, true);
  if (!r.written) return { written: false, budget: r.budget_refusal ?? null };
  return { written: true, settled: true, ledgerEntryId: r.ledger_id, availableAfter: r.available };
}

/**
 * Settles a reserved Call exactly once (see `settleSql`). `charge` is absent when nothing is
 * consumed: the reservation is only released.
 */
export async function settleReservedCall(
  db: Db,
  input: {
    executionId: string;
    accountId: string;
    update: SettledFields;
    event: UsageEventInput;
    charge?: Charge;
    at?: Date;
    /** The reservation was made under a delegation token (settled by the full statement). */
    delegated?: boolean;
  },
): Promise<SettleOutcome> {
  const upd = columnJsonText(executions, input.update);
  const ev = eventJson(input.event);
  const job: Job = { account_id: input.accountId, at: (input.at ?? new Date()).toISOString(), execution_id: input.executionId, update: upd.json, event: ev.json };
  if (input.charge) {
    job.amount = creditsToSql(input.charge.amount);
    job.ledger = input.charge.ledger;
  }
  const r = await submit(db, "settle", upd, ev, job, !input.delegated);
  return { settled: r.written, ledgerEntryId: r.ledger_id, availableAfter: r.available };
}

export type ReserveResult =
  | { reserved: true }
  | { reserved: false; reason: "insufficient_credits" | "delegation_cap" }
  | { reserved: false; reason: "budget_exceeded"; budget: BudgetRefusal };

/**
 * Holds each job's `amount` on its balance row (and on its delegation token's cap) and inserts the
 * execution in state `reserved`, or does nothing for that job. Locks are taken balance rows first
 * (in account order), then token rows (in jti order), as settlement takes them, so concurrent
 * statements cannot deadlock; the cap is checked on the locked token row before any credit is
 * held. Under Read Committed a concurrent writer makes the conditional UPDATE wait and re-check,
 * so no interleaving can overspend.
 */
function reserveSql(executionColumns: string[]): string {
  return `
    WITH ${JOBS},
    req AS (SELECT i, job->>'account_id' AS account_id, (job->>'amount')::numeric AS amount, job->>'jti' AS jti FROM jobs),
    cur AS (
      SELECT account_id FROM credit_balances WHERE account_id IN (SELECT account_id FROM req WHERE amount > 0)
       ORDER BY account_id FOR UPDATE
    ), ${BUDGET_QUERY("jobs")},
    ${budgetCheckCtes("cur")},
    tok AS (
      SELECT jti, spent_credits + reserved_credits AS used, max_credits FROM delegation_spend
       WHERE jti IN (SELECT jti FROM req) AND (SELECT count(*) FROM cur) >= 0
       ORDER BY jti FOR UPDATE
    ), cap AS (
      SELECT r.i FROM req r LEFT JOIN tok t ON t.jti = r.jti
       WHERE (r.jti IS NULL OR t.used + r.amount <= t.max_credits) AND r.i NOT IN (SELECT i FROM bover)
    ), b AS (
      UPDATE credit_balances cb SET reserved_credits = cb.reserved_credits + r.amount, updated_at = now()
        FROM req r JOIN cur USING (account_id) JOIN cap USING (i)
       WHERE cb.account_id = r.account_id AND r.amount > 0
         AND cb.paid_credits + cb.bonus_credits + cb.reward_credits - cb.reserved_credits >= r.amount
   RETURNING r.i
    ), held AS (SELECT i FROM b UNION ALL SELECT r.i FROM req r JOIN cap USING (i) WHERE r.amount = 0),
    d AS (
      UPDATE delegation_spend ds SET reserved_credits = ds.reserved_credits + r.amount
        FROM req r JOIN held USING (i)
       WHERE ds.jti = r.jti
    ), bres AS (
      UPDATE budgets bu
         SET period_start = bl.ps, spent_credits = bl.spent, reserved_credits = bu.reserved_credits + bl.amount, updated_at = now()
        FROM bl JOIN held USING (i)
       WHERE bu.id = bl.id
    ), ex AS (
      INSERT INTO executions (${columnList(executionColumns)})
      SELECT ${columnList(executionColumns, "r.")}
        FROM held JOIN jobs USING (i)
             CROSS JOIN LATERAL jsonb_populate_record(NULL::executions, jobs.job->'execution'
                                || jsonb_build_object('budget_ids', (SELECT jsonb_agg(bl.id ORDER BY bl.id) FROM bl WHERE bl.i = held.i))) r
    )
    SELECT req.i, held.i IS NOT NULL AS written, cap.i IS NOT NULL AS cap_ok, bover.refusal AS budget_refusal, NULL AS ledger_id, NULL AS available
      FROM req LEFT JOIN held USING (i) LEFT JOIN cap USING (i) LEFT JOIN bover USING (i) ORDER BY req.i`;
}

/**
 * Reserves for one Call (see `reserveSql`). A duplicate Idempotency-Key raises a unique violation
 * that undoes the whole statement.
 */
export async function reserveCall(
  db: Db,
  execution: ExecutionRow,
  amount: string,
  delegationJti?: string,
  spender: Spender = { at: new Date() },
): Promise<ReserveResult> {
  // budget_ids is set by the statement, from the budgets it held the amount on.
  const ex = columnJsonText(executions, { ...execution, status: "reserved", reservedCredits: amount, budgetIds: null });
  const job: Job = {
    account_id: execution.accountId,
    at: spender.at.toISOString(),
    api_key_id: execution.apiKeyId ?? null,
    client_id: spender.clientId ?? null,
    amount: creditsToSql(amount),
    jti: delegationJti,
    execution: ex.json,
  };
  const r = await submit(db, "reserve", ex, NO_COLUMNS, job, delegationJti === undefined);
  if (r.written) return { reserved: true };
  if (r.budget_refusal) return { reserved: false, reason: "budget_exceeded", budget: r.budget_refusal };
  return { reserved: false, reason: r.cap_ok ? "insufficient_credits" : "delegation_cap" };
}
