// The contract's region_restricted (docs/connections.md, Region): tools that declare regions are
// refused, before anything is held or sent, to accounts elsewhere or without a region; Discover
// and Probe say so. And `vault rekey` re-seals every stored secret under a new key.
import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { callApi, seedAccount } from "../testing/fixtures";
import { importManifest } from "../testing/catalog";
import { accountActivity, connections, creditsLedger } from "../db/schema";
import { createUser } from "../accounts/create-user";
import { DEFAULT_SCOPE, issueAccessToken } from "../auth/jwt";
import { generateVaultKeyText, open, seal, vault } from "../vault/vault";
import { rekeyVault } from "../vault/rekey";
import { tokenContext } from "./connections";
import type { Database } from "../db/types";

let database: Database;
let server: TestServer;
const EU_TOOL = "regional.eu_interest";

beforeAll(async () => {
  database = await createTestDatabase();
  await importManifest(database.db, {
    providers: [
      {
        id: "regional",
        name: "Regional finance",
        transport: "builtin",
        regions: ["eu", "uk"],
        tools: [
          {
            id: EU_TOOL,
            name: "EU compound interest",
            description: "Compound interest, offered in the EU and the UK only.",
            params: [
              { name: "principal", type: "number", required: true, description: "Starting amount." },
              { name: "annual_rate_percent", type: "number", required: true, description: "Rate." },
              { name: "years", type: "number", required: true, description: "Years." },
            ],
            billing_rule: { unit: "call", amount_credits: 1 },
            execution: { handler: "finance.compound_interest" },
          },
        ],
      },
    ],
  });
  server = await startTestServer(database);
});

const PARAMS = { principal: 100, annual_rate_percent: 5, years: 2 };

describe("region_restricted", () => {
  it("refuses a Call from an account without a region or outside the tool's, charges nothing, and Discover and Probe mark it", async () => {
    const owner = await seedAccount(database.db, { credits: "10" });
    const refused = await callApi(server.url, "POST", "/tools/execute", owner.apiKey, { tool_id: EU_TOOL, parameters: PARAMS });
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ success: false, cost: 0, execution_outcome: { reason_code: "region_restricted", charge_outcome: "failed_not_charged" }, result: { regions: ["eu", "uk"] } });
    expect(refused.body.error_message).toMatch(/no region set/);
    expect(await database.db.select().from(creditsLedger).where(eq(creditsLedger.executionId, refused.body.execution_id))).toEqual([]);

    const found = await callApi(server.url, "POST", "/search", owner.apiKey, { query: "EU compound interest" });
    expect(found.body.results.find((r: { tool_id: string }) => r.tool_id === EU_TOOL)).toMatchObject({ regions: ["eu", "uk"], region_restricted: true });
    const probe = await fetch(`${server.url}/api/v1/tools/probe?tool_id=${EU_TOOL}`, { method: "POST", headers: { authorization: `Bearer ${owner.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ parameters: PARAMS }) });
    expect(await probe.json()).toMatchObject({ readiness: { callable: false, reason_code: "region_restricted", regions: ["eu", "uk"] } });

    const setUs = await callApi(server.url, "PUT", "/auth/account/region", owner.accessToken, { region: "us" });
    expect(setUs.body.data).toEqual({ account_id: owner.accountId, region: "us" });
    const outside = await callApi(server.url, "POST", "/tools/execute", owner.apiKey, { tool_id: EU_TOOL, parameters: PARAMS });
    expect(outside.body.error_message).toMatch(/region is us/);

    await callApi(server.url, "PUT", "/auth/account/region", owner.accessToken, { region: "eu" });
    expect((await callApi(server.url, "GET", "/auth/account/region", owner.accessToken)).body.data).toEqual({ account_id: owner.accountId, region: "eu" });
    const inside = await callApi(server.url, "POST", "/tools/execute", owner.apiKey, { tool_id: EU_TOOL, parameters: PARAMS });
    expect(inside.body).toMatchObject({ success: true, cost: 1 });
    const again = await callApi(server.url, "POST", "/search", owner.apiKey, { query: "EU compound interest" });
    expect(again.body.results.find((r: { tool_id: string }) => r.tool_id === EU_TOOL)).toMatchObject({ region_restricted: false });
    // Tools without regions carry no mark.
    expect(again.body.results.find((r: { tool_id: string }) => r.tool_id !== EU_TOOL)?.region_restricted).toBeUndefined();
    const log = await database.db.select().from(accountActivity).where(eq(accountActivity.accountId, owner.accountId)).orderBy(accountActivity.seq);
    expect(log.filter((e) => e.action === "account.region_set").map((e) => e.after)).toEqual([{ region: "us" }, { region: "eu" }]);
  });

  it("is the owner's to set, in a region code's shape", async () => {
    const owner = await seedAccount(database.db, { credits: "1" });
    const { user_id } = await createUser(database.db, { accountId: owner.accountId, email: `m-${owner.accountId}@example.test`, password: "correct horse battery", role: "member" });
    const { accessToken } = await issueAccessToken(database.db, { userId: user_id, accountId: owner.accountId, role: "member", scope: DEFAULT_SCOPE, ttlSeconds: 600 });
    expect((await callApi(server.url, "PUT", "/auth/account/region", accessToken, { region: "eu" })).status).toBe(403);
    expect((await callApi(server.url, "PUT", "/auth/account/region", owner.accessToken, { region: "Europe!" })).status).toBe(422);
    expect((await callApi(server.url, "PUT", "/auth/account/region", owner.accessToken, { region: null })).body.data.region).toBeNull();
  });
});

describe("vault rekey", () => {
  it("re-seals every token under the new key; afterwards the old key is no longer needed", async () => {
    const saved = { key: process.env.VAULT_KEY, previous: process.env.VAULT_PREVIOUS_KEYS };
    const oldKey = generateVaultKeyText();
    const newKey = generateVaultKeyText();
    try {
      process.env.VAULT_KEY = oldKey;
      const owner = await seedAccount(database.db, { credits: "1" });
      await database.db.insert(connections).values({
        id: "con_rekey",
        accountId: owner.accountId,
        userId: owner.userId,
        providerId: "regional",
        kind: "secret",
        accessToken: seal("sk_rekey_me", tokenContext("access_token", "con_rekey")),
        createdBy: owner.userId,
      });
      const oldId = vault().current.id;
      process.env.VAULT_KEY = newKey;
      process.env.VAULT_PREVIOUS_KEYS = oldKey;
      const result = await rekeyVault(database.db);
      expect(result.resealed).toBeGreaterThanOrEqual(1);
      delete process.env.VAULT_PREVIOUS_KEYS;
      const [row] = await database.db.select().from(connections).where(eq(connections.id, "con_rekey"));
      expect(row.accessToken!.split(".")[1]).not.toBe(oldId);
      expect(open(row.accessToken!, tokenContext("access_token", "con_rekey"))).toBe("sk_rekey_me");
      expect((await rekeyVault(database.db)).resealed).toBe(0);
    } finally {
      if (saved.key === undefined) delete process.env.VAULT_KEY;
      else process.env.VAULT_KEY = saved.key;
      if (saved.previous === undefined) delete process.env.VAULT_PREVIOUS_KEYS;
      else process.env.VAULT_PREVIOUS_KEYS = saved.previous;
    }
  });
});
