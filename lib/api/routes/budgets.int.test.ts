import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { callApi, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog } from "../../testing/catalog";
import { runCommand } from "../../cli/commands";
import type { Database } from "../../db/types";
import { sql } from "drizzle-orm";
import { rows } from "../../db/row-sql";
import { createOAuthClient } from "../../oauth/create-client";

let database: Database;
let server: TestServer;

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
});

const api = (method: string, path: string, token: string, body?: unknown) => callApi(server.url, method, path, token, body);

describe("/auth/budgets", () => {
  it("an owner sets, reads and removes budgets; an API key reads them; a Call over one is refused with its reason", async () => {
    const a = await seedAccount(database.db, { credits: "50" });
    const set = await api("PUT", "/auth/budgets", a.accessToken, { scope: "api_key", scope_id: a.apiKeyId, limit_credits: "1.5", period: "week", time_zone: "Asia/Shanghai" });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ scope: "api_key", scope_id: a.apiKeyId, scope_name: "test", limit_credits: 1.5, period: "week", time_zone: "Asia/Shanghai", spent_credits: 0, reserved_credits: 0, remaining_credits: 1.5, used_percent: 0 });
    // Weeks start on Monday at midnight in the budget's time zone.
    const start = new Date(set.body.data.period_start);
    expect(start.getUTCHours()).toBe(16);
    expect(new Date(start.getTime() + 8 * 3600_000).getUTCDay()).toBe(1);
    expect(new Date(set.body.data.resets_at).getTime() - start.getTime()).toBe(7 * 86400_000);

    const call = () => api("POST", "/tools/execute", a.apiKey, { tool_id: "builtin.finance.compound_interest", parameters: { principal: 100, annual_rate_percent: 5, years: 2 } });
    expect((await call()).status).toBe(200);
    const refused = await call();
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({
      success: false,
      cost: 0,
      execution_outcome: { reason_code: "billing.budget_exceeded", charge_outcome: "failed_not_charged" },
      details: [{ type: "budget_exceeded", loc: ["budget", set.body.data.budget_id], input: { budget_id: set.body.data.budget_id, limit_credits: "1.500000", spent_credits: "1.000000", period: "week", scope: "api_key", scope_id: a.apiKeyId, scope_name: "test" } }],
    });
    // Probe says so before a Call: the tightest budget that would count it, and that the quote is over it.
    const probe = (key: string) =>
      fetch(`${server.url}/api/v1/tools/probe?tool_id=builtin.finance.compound_interest`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ parameters: { principal: 100, annual_rate_percent: 5, years: 2 } }),
      }).then(async (res) => ({ status: res.status, body: await res.json() }));
    const probed = await probe(a.apiKey);
    expect(probed.status).toBe(200);
    expect(probed.body.quote).toMatchObject({
      estimate_credits: 1,
      budget: { budget_id: set.body.data.budget_id, scope: "api_key", scope_id: a.apiKeyId, scope_name: "test", period: "week", time_zone: "Asia/Shanghai", limit_credits: 1.5, remaining_credits: 0.5, would_refuse: true },
    });
    expect(probed.body.quote.budget.resets_at).toBe(set.body.data.resets_at);
    // Another key of the account: no budget counts its Calls.
    const other = await api("POST", "/auth/api-keys", a.accessToken, { name: "other" });
    expect((await probe(other.body.data.api_key)).body.quote.budget).toBeNull();

    // What the Call needed, for a client to say by how much it was over.
    expect(Number(refused.body.details[0].input.needed_credits)).toBe(1);
    expect(refused.body.error_message).toContain(`API key "test" (${a.apiKeyId})'s weekly budget ${set.body.data.budget_id} of 1.5 credits has 0.5 credits left, and this call may cost 1 credit`);

    const read = await api("GET", "/auth/budgets", a.apiKey);
    expect(read.status).toBe(200);
    expect(read.body.data.items).toEqual([expect.objectContaining({ budget_id: set.body.data.budget_id, spent_credits: 1, remaining_credits: 0.5 })]);

    // An API key cannot change budgets; the owner's JWT can.
    expect((await api("PUT", "/auth/budgets", a.apiKey, { scope: "account", limit_credits: 1, period: "day" })).status).toBe(401);
    expect((await api("DELETE", `/auth/budgets/${set.body.data.budget_id}`, a.accessToken)).body.data).toEqual({ budget_id: set.body.data.budget_id, removed: true });
    expect((await call()).status).toBe(200);
    expect((await api("DELETE", `/auth/budgets/${set.body.data.budget_id}`, a.accessToken)).status).toBe(404);
  });

  it("the first refusal of a budget's period tells the account once: a budget_refusing notification and a budget.refusing webhook", async () => {
    const b = await seedAccount(database.db, { credits: "20" });
    const hook = await api("POST", "/auth/webhooks", b.accessToken, { url: "https://93.184.215.14/hooks", events: ["budget.refusing"] });
    expect(hook.status).toBe(200);
    const set = await api("PUT", "/auth/budgets", b.accessToken, { scope: "account", limit_credits: "1", period: "day", time_zone: "UTC" });
    const call = () => api("POST", "/tools/execute", b.apiKey, { tool_id: "builtin.finance.compound_interest", parameters: { principal: 100, annual_rate_percent: 5, years: 2 } });
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(402);
    expect((await call()).status).toBe(402);
    const items = (await api("GET", "/auth/notifications", b.accessToken)).body.data.items.filter((n: { kind: string }) => n.kind === "budget_refusing");
    expect(items).toHaveLength(1);
    expect(items[0].payload).toMatchObject({ budget_id: set.body.data.budget_id, scope: "account", scope_id: null, limit_credits: "1.000000", period: "day", tool_id: "builtin.finance.compound_interest", api_key_id: b.apiKeyId });
    expect(Number(items[0].payload.needed_credits)).toBe(1);
    const deliveries = rows<{ event_type: string; payload: { type: string; data: { budget_id: string } } }>(
      await database.db.execute(sql`SELECT event_type, payload FROM webhook_deliveries WHERE account_id = ${b.accountId}`),
    );
    expect(deliveries).toEqual([{ event_type: "budget.refusing", payload: expect.objectContaining({ type: "budget.refusing", data: expect.objectContaining({ budget_id: set.body.data.budget_id }) }) }]);
  });

  it("names what each budget limits: the key's and the OAuth client's names beside their ids, none for the account", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const client = await createOAuthClient(database.db, { name: "Nightly report agent", type: "public", grants: ["device_code"] });
    for (const body of [
      { scope: "account", limit_credits: 3, period: "month" },
      { scope: "api_key", scope_id: a.apiKeyId, limit_credits: 2, period: "month" },
      { scope: "oauth_client", scope_id: client.client_id, limit_credits: 1, period: "month" },
    ]) {
      expect((await api("PUT", "/auth/budgets", a.accessToken, body)).status).toBe(200);
    }
    const items = (await api("GET", "/auth/budgets", a.accessToken)).body.data.items as { scope: string; scope_id: string | null; scope_name: string | null }[];
    expect(items.map(({ scope, scope_id, scope_name }) => ({ scope, scope_id, scope_name }))).toEqual([
      { scope: "oauth_client", scope_id: client.client_id, scope_name: "Nightly report agent" },
      { scope: "api_key", scope_id: a.apiKeyId, scope_name: "test" },
      { scope: "account", scope_id: null, scope_name: null },
    ]);
  });

  it("refuses bad input with a clear error", async () => {
    const a = await seedAccount(database.db, { credits: "1" });
    const bad = async (body: unknown) => api("PUT", "/auth/budgets", a.accessToken, body);
    // Schema failures are 422 (HTTPValidationError); values the schema cannot judge are 400 (status_code -7).
    expect((await bad({ scope: "account", limit_credits: 1, period: "year" })).status).toBe(422);
    expect((await bad({ scope: "account", limit_credits: -1, period: "day" })).status).toBe(422);
    const tz = await bad({ scope: "account", limit_credits: 1, period: "day", time_zone: "Mars/Olympus" });
    expect(tz).toMatchObject({ status: 400, body: { status_code: -7, message: expect.stringContaining("Unknown time zone") } });
    expect((await bad({ scope: "account", limit_credits: "1.1234567", period: "day" })).body).toMatchObject({ status_code: -7, message: expect.stringContaining("at most 6 decimals") });
    expect((await bad({ scope: "api_key", limit_credits: 1, period: "day" })).body).toMatchObject({ status_code: -7, message: expect.stringContaining("needs the API key id") });
    expect((await bad({ scope: "account", scope_id: "x", limit_credits: 1, period: "day" })).body).toMatchObject({ status_code: -7 });
    expect((await bad({ scope: "oauth_client", scope_id: "cli_nope", limit_credits: 1, period: "day" })).status).toBe(404);
  });
});

describe("budgets CLI", () => {
  it("sets by key (the account from the key), lists and removes, with --json output objects", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const set = (await runCommand(database.db, ["budgets", "set", "--key", a.apiKeyId, "--credits", "10", "--period", "month", "--tz", "Europe/Berlin"])) as { budget_id: string; scope: string };
    expect(set).toMatchObject({ scope: "api_key", scope_id: a.apiKeyId, limit_credits: 10, time_zone: "Europe/Berlin" });
    const listed = (await runCommand(database.db, ["budgets", "list", "--account", a.accountId])) as { items: { budget_id: string; account_id: string }[] };
    expect(listed.items).toEqual([expect.objectContaining({ budget_id: set.budget_id, account_id: a.accountId })]);
    await expect(runCommand(database.db, ["budgets", "set", "--client", "cli_x", "--credits", "1", "--period", "day"])).rejects.toThrow(/--client needs --account/);
    await expect(runCommand(database.db, ["budgets", "set", "--account", a.accountId, "--credits", "1", "--period", "fortnight"])).rejects.toThrow(/--period must be one of/);
    expect(await runCommand(database.db, ["budgets", "remove", "--id", set.budget_id])).toEqual({ budget_id: set.budget_id, removed: true });
  });
});
