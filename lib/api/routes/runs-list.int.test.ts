import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { callApi, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog } from "../../testing/catalog";
import { registerClient, type RegisteredClient } from "../../testing/oauth";
import { apiAudience } from "../../auth/issuer";
import { ACCESS_TOKEN_TYPE } from "../../oauth/token-exchange";
import type { Database } from "../../db/types";

const COMPOUND = ["builtin.finance.compound_interest", { principal: 100, annual_rate_percent: 5, years: 2 }] as const; // 1 credit
const LOAN = ["builtin.finance.loan_payment", { principal: 1000, annual_rate_percent: 5, months: 12 }] as const; // 1 credit
const EVALUATE = ["builtin.math.evaluate", { expression: "6 * 7" }] as const; // 0.5 credit

let database: Database;
let server: TestServer;
let owner: Awaited<ReturnType<typeof seedAccount>>;
let other: Awaited<ReturnType<typeof seedAccount>>;
let runtime: RegisteredClient;

const api = (method: string, path: string, token: string, body?: unknown) => callApi(server.url, method, path, token, body);

/** An Agent Runtime exchanges the owner's token for a delegation token of one run, as RFC 8693 says (HTTP Basic, form body). */
async function delegation(runId: string, maxCredits?: number, subject = owner.accessToken): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/oauth/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${runtime.client.client_id}:${runtime.secret}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      subject_token: subject,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: apiAudience(),
      scope: "tools:execute",
      model: "test-model",
      run_id: runId,
      ...(maxCredits !== undefined ? { max_credits: String(maxCredits) } : {}),
    }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function call(token: string, [toolId, parameters]: readonly [string, Record<string, unknown>]) {
  const res = await api("POST", "/tools/execute", token, { tool_id: toolId, parameters });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
  owner = await seedAccount(database.db, { credits: "20" });
  other = await seedAccount(database.db, { credits: "20" });
  runtime = await registerClient(database.db, { name: "Runs runtime", type: "confidential", agentRuntime: true });
  // r-capped: a token capped at 5 (two Calls), then a second token of the same run capped at 3 (one Call).
  const first = await delegation("r-capped", 5);
  await call(first, COMPOUND);
  await call(first, LOAN);
  await call(await delegation("r-capped", 3), COMPOUND);
  // r-open: a token without a cap, one Call. r-idle: a token issued last, never used.
  await call(await delegation("r-open"), EVALUATE);
  await delegation("r-idle", 2);
  // An API key's Call belongs to no run; the same run id in another account is that account's run only.
  await call(owner.apiKey, EVALUATE);
  await call(await delegation("r-capped", 1, other.accessToken), EVALUATE);
});

describe("GET /auth/runs", () => {
  it("lists the account's runs newest first, each with its Calls, spend and its tokens' caps (the newest token's cap as max_credits)", async () => {
    const res = await api("GET", "/auth/runs", owner.accessToken);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ total: 3, page: 1, page_size: 20 });
    expect(d.items.map((r: { run_id: string }) => r.run_id)).toEqual(["r-idle", "r-open", "r-capped"]);
    const [idle, open, capped] = d.items;
    expect(capped).toMatchObject({
      run_id: "r-capped",
      event_count: 3,
      call_count: 3,
      charged_call_count: 3,
      settled_credits: 3,
      model: "test-model",
      oauth_client_id: runtime.client.client_id,
      oauth_client_name: "Runs runtime",
      max_credits: 3,
      delegation_count: 2,
      delegations: [
        { max_credits: 3, spent_credits: 1, reserved_credits: 0 },
        { max_credits: 5, spent_credits: 2, reserved_credits: 0 },
      ],
    });
    expect(Date.parse(capped.first_at)).toBeLessThanOrEqual(Date.parse(capped.last_at));
    expect(Date.parse(capped.delegations[0].expires_at)).toBeGreaterThan(Date.parse(capped.delegations[0].issued_at));
    expect(open).toMatchObject({ call_count: 1, settled_credits: 0.5, max_credits: null, delegation_count: 1, delegations: [{ max_credits: null, spent_credits: 0.5 }] });
    // A token with no request yet is a run already: its cap, nothing spent, dated by the token.
    expect(idle).toMatchObject({ event_count: 0, call_count: 0, settled_credits: 0, max_credits: 2, model: null, oauth_client_id: null, delegation_count: 1 });
    expect(idle.first_at).toBe(idle.delegations[0].issued_at);
  });

  it("reads one run with run_id (none for a run of no event or token), and pages", async () => {
    const one = await api("GET", "/auth/runs?run_id=r-open", owner.accessToken);
    expect(one.body.data).toMatchObject({ total: 1, items: [{ run_id: "r-open" }] });
    expect((await api("GET", "/auth/runs?run_id=nope", owner.accessToken)).body.data).toMatchObject({ total: 0, items: [] });
    const page1 = (await api("GET", "/auth/runs?page_size=2", owner.accessToken)).body.data;
    const page2 = (await api("GET", "/auth/runs?page_size=2&page=2", owner.accessToken)).body.data;
    const past = (await api("GET", "/auth/runs?page_size=2&page=3", owner.accessToken)).body.data;
    expect([page1.items.length, page2.items.length, past.items.length]).toEqual([2, 1, 0]);
    expect([page1.total, page2.total, past.total]).toEqual([3, 3, 3]);
    expect(page2.items[0].run_id).toBe("r-capped");
  });

  it("validates its query (422), and another account sees only its own run of the same id", async () => {
    for (const q of ["page_size=0", "page_size=101", "page=0", `run_id=${"x".repeat(129)}`]) expect((await api("GET", `/auth/runs?${q}`, owner.accessToken)).status).toBe(422);
    const theirs = (await api("GET", "/auth/runs", other.accessToken)).body.data;
    expect(theirs).toMatchObject({ total: 1, items: [{ run_id: "r-capped", call_count: 1, settled_credits: 0.5, max_credits: 1, delegation_count: 1 }] });
    expect((await api("GET", "/auth/runs", owner.apiKey)).status).toBe(401);
  });
});
