import * as oauth from "oauth4webapi";
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { bearer, callApi, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog } from "../../testing/catalog";
import { registerClient, startOAuthHarness, type OAuthHarness, type RegisteredClient } from "../../testing/oauth";
import { grantAt, writePastEvents, type PastEvent } from "../../audit/testing-history";
import { parseCsv } from "../../testing/csv";
import { createApiKey } from "../../auth/api-keys";
import { grantCredits } from "../../billing/grant-credits";
import { expireCreditGrants } from "../../billing/expire-grants";
import { ManualClock } from "../../clock";
import { apiAudience } from "../../auth/issuer";
import { issueAccessToken } from "../../auth/jwt";
import { ACCESS_TOKEN_TYPE } from "../../oauth/token-exchange";
import { rows } from "../../db/row-sql";
import type { Database } from "../../db/types";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const COMPOUND = "builtin.finance.compound_interest";
const TEMPERATURE = "builtin.convert.temperature";
const LOAN = "builtin.finance.loan_payment"; // 1 credit per successful call
const LOAN_PARAMS = { principal: 1000, annual_rate_percent: 5, months: 12 };

let database: Database;
let h: OAuthHarness;
let runtime: RegisteredClient;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let other: Awaited<ReturnType<typeof seedAccount>>;
let support: Awaited<ReturnType<typeof seedAccount>>;
let batchKeyId: string;
let crossing: { executionId: string | null; at: Date };
/** Midnight UTC today; the generated history lies in the six days before it. */
const today = new Date(Math.floor(Date.now() / DAY) * DAY);
const start = new Date(today.getTime() - 7 * DAY);

const api = (path: string, token = acct.accessToken) => callApi(h.server.url, "GET", path, token);

/** Sum of an exact-decimal SQL expression over the account's ledger rows of some types in [from, to). */
async function ledgerSum(accountId: string, types: string, from: Date, to: Date, expr = "-amount_credits"): Promise<number> {
  const r = rows<{ s: string | null }>(
    await database.db.execute(sql`SELECT sum(${sql.raw(expr)})::text AS s FROM credits_ledger
      WHERE account_id = ${accountId} AND entry_type LIKE ${types} AND created_at >= ${from.toISOString()}::timestamptz AND created_at < ${to.toISOString()}::timestamptz`),
  )[0];
  return Number(r.s ?? 0);
}

beforeAll(async () => {
  database = await createTestDatabase({ poolSize: 10 });
  await importDemoCatalog(database.db);
  h = await startOAuthHarness(database);
  runtime = await registerClient(database.db, { name: "Agent runtime", type: "confidential", agentRuntime: true });
  acct = await seedAccount(database.db, { credits: "100" });
  other = await seedAccount(database.db, { credits: "10" });
  support = await seedAccount(database.db, { role: "support" });
  batchKeyId = (await createApiKey(database.db, { accountId: acct.accountId, name: "batch" })).api_key_id;

  await grantAt(database.db, acct.accountId, new Date(start.getTime() - HOUR), "500");
  const past: PastEvent[] = [];
  for (let d = 1; d <= 6; d++) {
    const day = today.getTime() - d * DAY;
    for (let i = 0; i < 6; i++) {
      past.push({
        at: new Date(day + (i * 3 + 1) * HOUR + 17_000),
        toolId: i % 2 === 0 ? COMPOUND : TEMPERATURE,
        apiKeyId: i % 3 === 0 ? acct.apiKeyId : i % 3 === 1 ? batchKeyId : null,
        amount: i === 5 ? "0" : i === 4 ? "2.25" : "1.5",
        success: i !== 3,
        billableSuccess: i === 3 ? false : undefined,
        model: i % 2 === 0 ? "model-a" : "model-b",
        runId: i < 2 ? `run-${d}` : null,
        oauthClientId: i < 2 ? runtime.client.client_id : null,
        channel: i === 2 ? "mcp" : "api",
      });
    }
    past.push({ at: new Date(day + 20 * HOUR), eventType: "search", amount: "0.1" });
  }
  await writePastEvents(database.db, acct.accountId, past);
  // A Call reserved just before midnight and settled just after: it counts on the settlement's day, as its ledger row does.
  const boundary = new Date(today.getTime() - 3 * DAY);
  const [written] = await writePastEvents(database.db, acct.accountId, [{ at: new Date(boundary.getTime() + 1000), toolId: COMPOUND, apiKeyId: acct.apiKeyId, amount: "3" }]);
  await database.db.execute(sql`UPDATE executions SET created_at = ${new Date(boundary.getTime() - 1000).toISOString()}::timestamptz WHERE id = ${written.executionId}`);
  crossing = { executionId: written.executionId, at: boundary };

  // Today: Calls through the API (a key, and an agent's delegation token), a refund of a review case, an expiry.
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${h.server.url}/api/v1/tools/execute`, { method: "POST", headers: { ...bearer(acct.apiKey), "content-type": "application/json" }, body: JSON.stringify({ tool_id: LOAN, parameters: LOAN_PARAMS }) });
    expect(res.status).toBe(200);
  }
  const subject = (await issueAccessToken(database.db, { userId: acct.userId, accountId: acct.accountId, role: "owner", scope: "tools:execute", ttlSeconds: 600 })).accessToken;
  const params = Object.entries({ subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, resource: apiAudience(), scope: "tools:execute", model: "agent-model", run_id: "run-live", max_credits: "5" });
  const tokenRes = await oauth.genericTokenEndpointRequest(h.as, runtime.client, runtime.auth, "urn:ietf:params:oauth:grant-type:token-exchange", params, h.http);
  const { access_token } = await oauth.processGenericTokenEndpointResponse(h.as, runtime.client, tokenRes);
  const delegated = await h.fetch(`${apiAudience()}/tools/execute`, { method: "POST", headers: { ...bearer(access_token), "content-type": "application/json" }, body: JSON.stringify({ tool_id: LOAN, parameters: LOAN_PARAMS }) });
  expect(delegated.status).toBe(200);

  const [review] = await writePastEvents(database.db, acct.accountId, [{ at: new Date(Date.now() - 60_000), toolId: TEMPERATURE, apiKeyId: batchKeyId, amount: "4", success: false, billableSuccess: false }]);
  const refund = await callApi(h.server.url, "POST", `/auth/executions/${review.executionId}/refunds`, support.accessToken, { amount_credits: "2.5", reason: "provider outage" });
  expect(refund.status).toBe(201);
  const clock = new ManualClock(new Date());
  await grantCredits(database.db, { accountId: acct.accountId, amount: "5", type: "welcome_bonus", expiresAt: new Date(Date.now() + 1000) }, clock);
  clock.advance(HOUR);
  expect(await expireCreditGrants(database.db, clock)).toBe(1);
});

describe("GET /auth/usage/breakdown", () => {
  it("totals equal the usage summary's and the ledger's, in UTC and in a half-hour time zone, with every group and bucket adding up", async () => {
    const end = new Date();
    // Two dimensions (counted from the events), and one (sealed days from the spend rollup, split
    // into the zone's days or into hours by their running sums), in day and hour buckets.
    const shapes = [
      ["tool,api_key", "day"],
      ["tool", "day"],
      ["run_id", "day"],
      ["model", "hour"],
    ];
    for (const [tz, [groupBy, bucket]] of ["UTC", "Asia/Kolkata", "Europe/Paris"].flatMap((tz) => shapes.map((shape) => [tz, shape] as const))) {
      const window = `start_date=${start.toISOString()}&end_date=${end.toISOString()}&tz=${tz}`;
      const b = await api(`/auth/usage/breakdown?${window}&group_by=${groupBy}&bucket=${bucket}&limit=3`);
      expect(b.status).toBe(200);
      const s = await api(`/auth/usage/history/v2?${window}&summary=true&bucket=${bucket}&page_size=1`);
      expect(s.status).toBe(200);
      const data = b.body.data;
      const summary = s.body.data.summary;
      expect(data.tz).toBe(tz);
      expect(data.totals.calls).toBe(summary.total_count);
      expect(data.totals.charge_outcome_counts).toEqual(summary.charge_outcome_counts);
      expect(data.totals.settled_credits).toBeCloseTo(summary.settled_credits, 6);
      expect(data.totals.pre_settlement_credits).toBeCloseTo(summary.pre_settlement_credits, 6);
      // The ledger's consumption and refunds over the same instants; expiries are neither.
      const endExclusive = new Date(end.getTime() + 1);
      expect(data.totals.settled_credits).toBeCloseTo(await ledgerSum(acct.accountId, "consume%", start, endExclusive), 6);
      expect(data.totals.refunded_credits).toBeCloseTo(await ledgerSum(acct.accountId, "refund%", start, endExclusive, "amount_credits"), 6);
      expect(data.totals.refunded_credits).toBe(2.5);
      expect(await ledgerSum(acct.accountId, "expire%", start, endExclusive)).toBe(5);
      // 3 groups and the rest as `other`, which sum to the totals.
      expect(data.group_count).toBeGreaterThan(3);
      expect(data.groups).toHaveLength(4);
      expect(data.groups.map((g: { other: boolean }) => g.other)).toEqual([false, false, false, true]);
      const sum = (f: (g: { calls: number; settled_credits: number }) => number) => data.groups.reduce((a: number, g: { calls: number; settled_credits: number }) => a + f(g), 0);
      expect(sum((g) => g.calls)).toBe(data.totals.calls);
      expect(sum((g) => g.settled_credits)).toBeCloseTo(data.totals.settled_credits, 6);
      const settled = data.groups.map((g: { settled_credits: number }) => g.settled_credits).slice(0, 3);
      expect([...settled].sort((x, y) => y - x)).toEqual(settled);
      // Each bucket summed over the groups is the summary's bucket.
      expect(data.buckets.map((x: { bucket_start: string }) => x.bucket_start)).toEqual(summary.buckets.map((x: { bucket_start: string }) => x.bucket_start));
      summary.buckets.forEach((sb: { total_count: number; settled_credits: number }, i: number) => {
        const calls = data.groups.reduce((a: number, g: { buckets: { calls: number }[] }) => a + g.buckets[i].calls, 0);
        const credits = data.groups.reduce((a: number, g: { buckets: { settled_credits: number }[] }) => a + g.buckets[i].settled_credits, 0);
        expect(calls).toBe(sb.total_count);
        expect(credits).toBeCloseTo(sb.settled_credits, 6);
      });
    }
    // Month buckets in a half-hour zone (hours a local month boundary cuts are read raw) add up to the same totals.
    const monthly = (await api(`/auth/usage/breakdown?start_date=${start.toISOString()}&end_date=${end.toISOString()}&tz=Asia/Kolkata&group_by=channel&bucket=month`)).body.data;
    const inBuckets = monthly.groups.flatMap((g: { buckets: { calls: number }[] }) => g.buckets.map((b) => b.calls)).reduce((a: number, n: number) => a + n, 0);
    expect(inBuckets).toBe(monthly.totals.calls);
    // The reads sealed the past days: the sealed part came from the spend rollups.
    const sealed = rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM usage_spend_day WHERE account_id = ${acct.accountId}`))[0];
    expect(sealed.n).toBeGreaterThan(0);
  });

  it("groups as the raw events do, by tool and by provider, with names", async () => {
    const window = `start_date=${start.toISOString()}`;
    const raw = rows<{ tool_id: string | null; n: number; settled: string }>(
      await database.db.execute(sql`SELECT tool_id, count(*)::int AS n, sum(settled_amount_credits)::text AS settled FROM usage_events
        WHERE account_id = ${acct.accountId} AND created_at >= ${start.toISOString()}::timestamptz GROUP BY tool_id`),
    );
    const b = await api(`/auth/usage/breakdown?${window}&group_by=tool`);
    expect(b.status).toBe(200);
    const byTool = new Map(b.body.data.groups.map((g: { key: { tool: string | null } }) => [g.key.tool, g]));
    expect(byTool.size).toBe(raw.length);
    for (const r of raw) {
      const g = byTool.get(r.tool_id) as { calls: number; settled_credits: number; label: { tool: string | null } };
      expect(g.calls).toBe(r.n);
      expect(g.settled_credits).toBeCloseTo(Number(r.settled), 6);
    }
    expect((byTool.get(LOAN) as { label: { tool: string } }).label.tool).toBe("Loan and mortgage payment calculator");
    expect((byTool.get(null) as { label: { tool: null } }).label.tool).toBeNull();

    // The usage summary answers the same filters from the spend rollup (sealed days) and raw rows (the rest), exactly.
    for (const r of raw.filter((x) => x.tool_id !== null)) {
      const s = (await api(`/auth/usage/history/v2?${window}&end_date=${new Date().toISOString()}&summary=true&page_size=1&tool_id=${r.tool_id}`)).body.data.summary;
      expect([s.total_count, s.settled_credits]).toEqual([r.n, Number(r.settled)]);
    }
    const byModel = await api(`/auth/usage/history/v2?${window}&end_date=${new Date().toISOString()}&summary=true&page_size=1&model=model-a&channel=api`);
    const modelRaw = rows<{ n: number }>(
      await database.db.execute(sql`SELECT count(*)::int AS n FROM usage_events WHERE account_id = ${acct.accountId} AND created_at >= ${start.toISOString()}::timestamptz AND model = 'model-a' AND channel = 'api'`),
    )[0];
    expect(byModel.body.data.summary.total_count).toBe(modelRaw.n);

    const p = await api(`/auth/usage/breakdown?${window}&group_by=provider`);
    const providers = p.body.data.groups.map((g: { key: { provider: string | null }; label: { provider: string | null } }) => [g.key.provider, g.label.provider]);
    expect(providers).toContainEqual(["tollgate-builtin", "Tollgate Builtins"]);
    expect(p.body.data.totals).toEqual(b.body.data.totals);
  });

  it("attributes a Call settled after midnight to the settlement's day, as its ledger row", async () => {
    const day = crossing.at.toISOString().slice(0, 10);
    const prev = new Date(crossing.at.getTime() - DAY).toISOString().slice(0, 10);
    const b = await api(`/auth/usage/breakdown?start_date=${prev}&end_date=${day}&group_by=tool&bucket=day&tool_id=${COMPOUND}&api_key_id=${acct.apiKeyId}`);
    const g = b.body.data.groups[0];
    expect(b.body.data.buckets.map((x: { bucket_start: string }) => x.bucket_start.slice(0, 10))).toEqual([prev, day]);
    const ledgerDay = await ledgerSum(acct.accountId, "consume%", crossing.at, new Date(crossing.at.getTime() + DAY));
    const summaryDay = (await api(`/auth/usage/history/v2?start_date=${day}&end_date=${day}&summary=true&page_size=1`)).body.data.summary.settled_credits;
    expect(ledgerDay).toBeCloseTo(summaryDay, 6);
    // Day `day` holds the crossing Call's 3 credits besides the day's own charges by this key and tool (1.5).
    expect(g.buckets[1].settled_credits).toBe(4.5);
    expect(g.buckets[0].settled_credits).toBe(1.5);
  });

  it("records and groups the OAuth client, agent run and model of a delegated Call, and filters the usage list by run", async () => {
    const byClient = await api(`/auth/usage/breakdown?group_by=oauth_client&kind=call`);
    const client = byClient.body.data.groups.find((g: { key: { oauth_client: string | null } }) => g.key.oauth_client === runtime.client.client_id);
    expect(client.label.oauth_client).toBe("Agent runtime");
    expect(client.calls).toBe(13); // 2 a day for six days, and the live Call

    const byRun = await api(`/auth/usage/breakdown?group_by=run_id,model&run_id=run-live`);
    expect(byRun.body.data.groups).toMatchObject([{ key: { run_id: "run-live", model: "agent-model" }, calls: 1, settled_credits: 1, charged_calls: 1 }]);

    const list = await api(`/auth/usage/history/v2?run_id=run-live`);
    expect(list.body.data.items).toMatchObject([{ run_id: "run-live", oauth_client_id: runtime.client.client_id, model: "agent-model", tool_id: LOAN }]);
    const byChannel = await api(`/auth/usage/breakdown?start_date=${start.toISOString()}&group_by=channel`);
    expect(byChannel.body.data.groups.map((g: { key: { channel: string } }) => g.key.channel).sort()).toEqual(["api", "mcp"]);
  });

  it("exports the same groups as CSV", async () => {
    const window = `start_date=${start.toISOString()}&group_by=api_key&limit=2`;
    const json = (await api(`/auth/usage/breakdown?${window}`)).body.data;
    const csv = await api(`/auth/usage/breakdown/export?${window}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const table = parseCsv(csv.body as string);
    expect(table[0]).toEqual(expect.arrayContaining(["api_key", "api_key_label", "calls", "settled_credits", "refunded_credits"]));
    expect(table.slice(1).map((r) => Number(r[table[0].indexOf("calls")]))).toEqual(json.groups.map((g: { calls: number }) => g.calls));
    expect(table.at(-1)![table[0].indexOf("api_key")]).toBe("(other)");
  });

  it("answers bad input with the contract's 400 -7 and keeps accounts apart", async () => {
    for (const q of ["group_by=colour", "group_by=tool,api_key,model", "group_by=tool,tool", "group_by=tool&tz=Mars/Base", "group_by=tool&start_date=2026-13-01"]) {
      const r = await api(`/auth/usage/breakdown?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.status_code, q).toBe(-7);
    }
    expect((await api(`/auth/usage/breakdown?group_by=tool&bucket=year`)).status).toBe(422);
    expect((await api(`/auth/usage/breakdown?group_by=tool&limit=101`)).status).toBe(422);
    const mine = await api(`/auth/usage/breakdown?group_by=tool`, other.accessToken);
    expect(mine.body.data.totals.calls).toBe(0);
    const refused = await api(`/auth/usage/breakdown?group_by=tool&account_id=${acct.accountId}`, other.accessToken);
    expect(refused.status).toBe(403);
  });

  it("lets support read an account's breakdown, and logs the read", async () => {
    const count = async () => rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM support_access_log WHERE target_account_id = ${acct.accountId}`))[0].n;
    const before = await count();
    const r = await api(`/auth/usage/breakdown?group_by=api_key&account_id=${acct.accountId}`, support.accessToken);
    expect(r.status).toBe(200);
    expect(r.body.data.totals.calls).toBeGreaterThan(0);
    expect(await count()).toBe(before + 1);
  });
});
