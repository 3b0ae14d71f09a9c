import { PgTransaction } from "drizzle-orm/pg-core";
import { executions, usageEvents } from "../db/schema";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { columnJson, columnList, runQuery } from "../db/statement";
import { WriteBatcher } from "../db/write-batcher";
import { DEBIT_CTES, type LedgerRowInput } from "../billing/debit-credits";
import { usageEventRow, type UsageEventInput } from "../audit/usage-event";
import { creditsToSql } from "../money";

/**
 * The database side of a Call. Each write is ONE statement (writable CTEs) taking its rows as
 * JSON, so a Call costs one round trip (free or in-process tools) or two (reserve, then settle,
 * for upstream tools). Records and settlements of concurrent Calls are group-committed: one
 * statement writes a whole batch, each Call's rows all-or-nothing within it (`WriteBatcher`).
 */
type ExecutionRow = typeof executions.$inferInsert;

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
  amount?: string;
  ledger?: LedgerRowInput;
  execution_id?: string;
  jti?: string;
  execution?: Record<string, unknown>;
  update?: Record<string, unknown>;
  event?: Record<string, unknown>;
}

interface JobResult {
  written: boolean;
  cap_ok?: boolean;
  ledger_id: string | null;
  available: string | null;
}

const AVAILABLE = `(SELECT cb.paid_credits + cb.bonus_credits + cb.reward_credits - cb.reserved_credits
                      FROM credit_balances cb WHERE cb.account_id = jobs.job->>'account_id')`;

const JOBS = `jobs AS (SELECT j.ord::int AS i, j.job FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS j(job, ord))`;

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
  return `
    WITH ${JOBS},
    charges AS (
      SELECT i, job->>'account_id' AS account_id, (job->>'amount')::numeric AS amount, 0::numeric AS release, job->'ledger' AS ledger
        FROM jobs WHERE job ? 'ledger'
    ), ${DEBIT_CTES},
    ok AS (SELECT i FROM jobs WHERE NOT job ? 'ledger' UNION ALL SELECT i FROM upd),
    ex AS (
      INSERT INTO executions (${columnList(executionColumns)})
      SELECT ${columnList(executionColumns, "r.")}
        FROM ok JOIN jobs USING (i) CROSS JOIN LATERAL jsonb_populate_record(NULL::executions, jobs.job->'execution') r
    ), ${eventInsert(eventColumns, "ok")}
    SELECT jobs.i, ok.i IS NOT NULL AS written, CASE WHEN upd.amount > 0 THEN upd.ledger->>'id' END AS ledger_id,
           coalesce(upd.available_after, ${AVAILABLE}) AS available
      FROM jobs LEFT JOIN ok USING (i) LEFT JOIN upd USING (i) ORDER BY jobs.i`;
}

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
       WHERE e.id = jobs.job->>'execution_id' AND e.status = 'reserved' AND (SELECT count(*) FROM held) >= 0
   RETURNING jobs.i, e.account_id, e.reserved_credits, e.delegation_jti
    ), charges AS (
      SELECT ex.i, ex.account_id, coalesce((jobs.job->>'amount')::numeric, 0) AS amount, ex.reserved_credits AS release,
             jobs.job->'ledger' AS ledger
        FROM ex JOIN jobs USING (i)
    ), ${DEBIT_CTES},
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
const batchers = new WeakMap<Db, Map<string, WriteBatcher<Job, JobResult>>>();

async function runJobs(db: Db, text: string, jobs: Job[]): Promise<JobResult[]> {
  const result = await runQuery(db, text, [JSON.stringify(jobs)]);
  return rows<JobResult>(result);
}

/**
 * Runs a job through the batcher of its statement (one per statement text). Inside a caller's
 * transaction there is nothing to combine with: the job runs alone, in that transaction.
 */
function submit(db: Db, kind: Kind, columnsA: string[], columnsB: string[], job: Job): Promise<JobResult> {
  const signature = `${kind}|${columnsA.join(",")}|${columnsB.join(",")}`;
  const text = () => (kind === "record" ? recordSql(columnsA, columnsB) : kind === "settle" ? settleSql(columnsA, columnsB) : reserveSql(columnsA));
  if ((db as unknown) instanceof PgTransaction) return runJobs(db, text(), [job]).then((r) => r[0]);
  let perDb = batchers.get(db);
  if (!perDb) batchers.set(db, (perDb = new Map()));
  let batcher = perDb.get(signature);
  if (!batcher) {
    const sqlText = text();
    batcher = new WriteBatcher<Job, JobResult>((jobs) => runJobs(db, sqlText, jobs), BATCHING);
    perDb.set(signature, batcher);
  }
  // Jobs that touch a balance row (a charge, a reservation, its release) are keyed by account: one per batch.
  const locksBalance = kind !== "record" || job.ledger !== undefined;
  return batcher.submit(job, locksBalance ? job.account_id : null);
}

function eventJson(event: UsageEventInput) {
  const { creditsLedgerEntryId: _linkedByStatement, ...row } = usageEventRow(event);
  return columnJson(usageEvents, row);
}

/** A Call that needs no reservation: records execution and event, and charges when `charge` is given. */
export async function recordCall(db: Db, execution: ExecutionRow, event: UsageEventInput, charge?: Charge): Promise<SettleOutcome | null> {
  const ex = columnJson(executions, execution);
  const ev = eventJson(event);
  const job: Job = { account_id: execution.accountId, execution: ex.json, event: ev.json };
  if (charge) {
    job.amount = creditsToSql(charge.amount);
    job.ledger = charge.ledger;
  }
  const r = await submit(db, "record", ex.columns, ev.columns, job);
  // Not written: credits were short for the charge, and nothing was written.
  return r.written ? { settled: true, ledgerEntryId: r.ledger_id, availableAfter: r.available } : null;
}

/**
 * Settles a reserved Call exactly once (see `settleSql`). `charge` is absent when nothing is
 * consumed: the reservation is only released.
 */
export async function settleReservedCall(
  db: Db,
  input: { executionId: string; accountId: string; update: Partial<ExecutionRow>; event: UsageEventInput; charge?: Charge },
): Promise<SettleOutcome> {
  const upd = columnJson(executions, input.update);
  const ev = eventJson(input.event);
  const job: Job = { account_id: input.accountId, execution_id: input.executionId, update: upd.json, event: ev.json };
  if (input.charge) {
    job.amount = creditsToSql(input.charge.amount);
    job.ledger = input.charge.ledger;
  }
  const r = await submit(db, "settle", upd.columns, ev.columns, job);
  return { settled: r.written, ledgerEntryId: r.ledger_id, availableAfter: r.available };
}

export type ReserveResult = { reserved: true } | { reserved: false; reason: "insufficient_credits" | "delegation_cap" };

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
    ), tok AS (
      SELECT jti, spent_credits + reserved_credits AS used, max_credits FROM delegation_spend
       WHERE jti IN (SELECT jti FROM req) AND (SELECT count(*) FROM cur) >= 0
       ORDER BY jti FOR UPDATE
    ), cap AS (
      SELECT r.i FROM req r LEFT JOIN tok t ON t.jti = r.jti
       WHERE r.jti IS NULL OR t.used + r.amount <= t.max_credits
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
    ), ex AS (
      INSERT INTO executions (${columnList(executionColumns)})
      SELECT ${columnList(executionColumns, "r.")}
        FROM held JOIN jobs USING (i) CROSS JOIN LATERAL jsonb_populate_record(NULL::executions, jobs.job->'execution') r
    )
    SELECT req.i, held.i IS NOT NULL AS written, cap.i IS NOT NULL AS cap_ok, NULL AS ledger_id, NULL AS available
      FROM req LEFT JOIN held USING (i) LEFT JOIN cap USING (i) ORDER BY req.i`;
}

/**
 * Reserves for one Call (see `reserveSql`). A duplicate Idempotency-Key raises a unique violation
 * that undoes the whole statement.
 */
export async function reserveCall(db: Db, execution: ExecutionRow, amount: string, delegationJti?: string): Promise<ReserveResult> {
  const ex = columnJson(executions, { ...execution, status: "reserved", reservedCredits: amount });
  const job: Job = { account_id: execution.accountId, amount: creditsToSql(amount), jti: delegationJti, execution: ex.json };
  const r = await submit(db, "reserve", ex.columns, [], job);
  if (r.written) return { reserved: true };
  return { reserved: false, reason: r.cap_ok ? "insufficient_credits" : "delegation_cap" };
}
