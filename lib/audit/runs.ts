import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { creditsToNumber } from "../money";
import { UNCAPPED_DELEGATION_CREDITS } from "../oauth/token-exchange";
import type { RunItem, RunList } from "./run-schemas";
import { toIso } from "./usage-items";

const DELEGATIONS_SHOWN = 20;

interface RunRow {
  run_id: string;
  first_at: Date | string;
  last_at: Date | string;
  total: number;
  event_count: number;
  call_count: number;
  charged_call_count: number;
  settled_credits: string;
  model: string | null;
  oauth_client_id: string | null;
  oauth_client_name: string | null;
  delegation_count: number;
  delegations: { issued_at: string; expires_at: string; max_credits: string; spent_credits: string; reserved_credits: string }[] | string | null;
}

/** A token exchanged without `max_credits` is stored with the column's largest value: no cap. */
const capOf = (maxCredits: string) => (creditsToNumber(maxCredits) >= Number(UNCAPPED_DELEGATION_CREDITS) ? null : creditsToNumber(maxCredits));

/**
 * `GET /auth/runs`: the account's agent runs, newest activity first — a run being the usage events
 * and delegation tokens that share a `run_id`. The order and the page come from two index ranges
 * (usage_account_run_idx, delegation_spend_account_run_idx); counts, spend and the tokens' caps are
 * then read for the page's runs only.
 */
export async function listRuns(db: Db, accountId: string, input: { runId?: string; page: number; pageSize: number }): Promise<RunList> {
  const oneRun = (column: string) => (input.runId === undefined ? sql`` : sql`AND ${sql.raw(column)} = ${input.runId}`);
  const result = await db.execute(sql`
    WITH ev AS (
      SELECT e.run_id, min(e.created_at) AS first_at, max(e.created_at) AS last_at
        FROM usage_events e
       WHERE e.account_id = ${accountId} AND e.run_id IS NOT NULL ${oneRun("e.run_id")}
       GROUP BY e.run_id
    ), tok AS (
      SELECT d.run_id, min(d.created_at) AS first_at, max(d.created_at) AS last_at, count(*) AS n
        FROM delegation_spend d
       WHERE d.account_id = ${accountId} AND d.run_id IS NOT NULL ${oneRun("d.run_id")}
       GROUP BY d.run_id
    ), runs AS (
      SELECT coalesce(ev.run_id, tok.run_id) AS run_id, least(ev.first_at, tok.first_at) AS first_at,
             greatest(ev.last_at, tok.last_at) AS last_at, coalesce(tok.n, 0) AS delegation_count, count(*) OVER () AS total
        FROM ev FULL JOIN tok ON tok.run_id = ev.run_id
    ), page AS (
      SELECT * FROM runs ORDER BY last_at DESC, run_id LIMIT ${input.pageSize} OFFSET ${(input.page - 1) * input.pageSize}
    )
    SELECT p.run_id, p.first_at, p.last_at, p.total::float8 AS total, p.delegation_count::float8 AS delegation_count,
           coalesce(s.event_count, 0)::float8 AS event_count, coalesce(s.call_count, 0)::float8 AS call_count,
           coalesce(s.charged_call_count, 0)::float8 AS charged_call_count, coalesce(s.settled, 0)::text AS settled_credits,
           s.model, s.oauth_client_id, c.name AS oauth_client_name, dl.delegations
      FROM page p
      LEFT JOIN LATERAL (
        SELECT count(*) AS event_count,
               count(*) FILTER (WHERE e.event_type IN ('tool_execute', 'capabilities_query')) AS call_count,
               count(*) FILTER (WHERE e.charge_outcome IN ('charged', 'failed_charged_review')) AS charged_call_count,
               sum(e.actual_amount_credits) AS settled,
               (array_agg(e.model ORDER BY e.created_at DESC) FILTER (WHERE e.model IS NOT NULL))[1] AS model,
               (array_agg(e.oauth_client_id ORDER BY e.created_at DESC) FILTER (WHERE e.oauth_client_id IS NOT NULL))[1] AS oauth_client_id
          FROM usage_events e
         WHERE e.account_id = ${accountId} AND e.run_id = p.run_id
      ) s ON true
      LEFT JOIN oauth_clients c ON c.id = s.oauth_client_id
      LEFT JOIN LATERAL (
        SELECT json_agg(json_build_object('issued_at', d.created_at, 'expires_at', d.expires_at, 'max_credits', d.max_credits::text,
                                          'spent_credits', d.spent_credits::text, 'reserved_credits', d.reserved_credits::text)
                        ORDER BY d.created_at DESC, d.jti) AS delegations
          FROM (SELECT * FROM delegation_spend d
                 WHERE d.account_id = ${accountId} AND d.run_id = p.run_id
                 ORDER BY d.created_at DESC, d.jti LIMIT ${DELEGATIONS_SHOWN}) d
      ) dl ON true
     ORDER BY p.last_at DESC, p.run_id`);
  const found = rows<RunRow>(result);
  return { items: found.map(runItem), total: found[0]?.total ?? (await countRuns(db, accountId, input.runId)), page: input.page, page_size: input.pageSize };
}

/** The total when the page is past the end (no row carries it). */
async function countRuns(db: Db, accountId: string, runId: string | undefined): Promise<number> {
  if (runId !== undefined) return 0;
  const result = await db.execute(sql`
    SELECT count(*)::float8 AS n FROM (
      SELECT run_id FROM usage_events WHERE account_id = ${accountId} AND run_id IS NOT NULL
      UNION
      SELECT run_id FROM delegation_spend WHERE account_id = ${accountId} AND run_id IS NOT NULL) r`);
  return rows<{ n: number }>(result)[0].n;
}

function runItem(r: RunRow): RunItem {
  const delegations = (typeof r.delegations === "string" ? JSON.parse(r.delegations) : (r.delegations ?? [])) as Exclude<RunRow["delegations"], string | null>;
  const tokens = delegations.map((d) => ({
    issued_at: toIso(d.issued_at),
    expires_at: toIso(d.expires_at),
    max_credits: capOf(d.max_credits),
    spent_credits: creditsToNumber(d.spent_credits),
    reserved_credits: creditsToNumber(d.reserved_credits),
  }));
  return {
    run_id: r.run_id,
    first_at: toIso(r.first_at),
    last_at: toIso(r.last_at),
    event_count: r.event_count,
    call_count: r.call_count,
    charged_call_count: r.charged_call_count,
    settled_credits: creditsToNumber(r.settled_credits),
    model: r.model,
    oauth_client_id: r.oauth_client_id,
    oauth_client_name: r.oauth_client_name,
    max_credits: tokens[0]?.max_credits ?? null,
    delegation_count: r.delegation_count,
    delegations: tokens,
  };
}
