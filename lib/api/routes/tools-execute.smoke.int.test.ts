import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { bearer, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog } from "../../testing/catalog";
import type { Database } from "../../db/types";

let database: Database;
let server: TestServer;
let seed: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
  seed = await seedAccount(database.db, { credits: "10" });
});

const call = (body: unknown, headers: Record<string, string> = {}, query = "") =>
  fetch(`${server.url}/api/v1/tools/execute${query}`, { method: "POST", headers: { ...bearer(seed.apiKey), "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("Call smoke", () => {
  it("charges a priced builtin call", async () => {
    const res = await call({ tool_id: "builtin.finance.compound_interest", parameters: { principal: 100, annual_rate_percent: 5, years: 2 } });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ success: true, cost: 1, remaining_credits: 9, billing: { list_amount_credits: 1 } });
    expect(body.execution_outcome).toMatchObject({ reason_code: "result.valid", charge_outcome: "charged" });
  });

  it("free call is included", async () => {
    const res = await call({ parameters: { value: 100, from: "C", to: "F" } }, {}, "?tool_id=builtin.convert.temperature");
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ success: true, cost: 0, remaining_credits: 9 });
  });

  it("idempotent retry charges once", async () => {
    const req = { tool_id: "builtin.finance.compound_interest", parameters: { principal: 100, annual_rate_percent: 5, years: 3 } };
    const a = await (await call(req, { "Idempotency-Key": "k1" })).json();
    const b = await (await call(req, { "Idempotency-Key": "k1" })).json();
    expect(a.execution_id).toBe(b.execution_id);
    expect(a.remaining_credits).toBe(8);
    const c = await call({ ...req, parameters: { principal: 1, annual_rate_percent: 5, years: 3 } }, { "Idempotency-Key": "k1" });
    expect(c.status).toBe(422);
  });

  it("probe validates and quotes", async () => {
    const res = await fetch(`${server.url}/api/v1/tools/probe?tool_id=builtin.crypto.hash`, {
      method: "POST",
      headers: { ...bearer(seed.apiKey), "content-type": "application/json" },
      body: JSON.stringify({ parameters: { text: "x".repeat(2500), algorithm: "sha256" } }),
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.quote).toMatchObject({ estimate_credits: 0.3, exact: true, currency: "credits" });
  });
});
