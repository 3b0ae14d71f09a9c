import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { startCallFixture } from "../../testing/call-fixture";
import type { TestServer } from "../../testing/server";
import { bearer, seedAccount } from "../../testing/fixtures";
import { fakeTool, type FakeUpstream } from "../../testing/fake-upstream";
import { rows } from "../../db/row-sql";
import type { Database } from "../../db/types";

let database: Database;
let server: TestServer;
let upstream: FakeUpstream;
let seed: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  ({ database, server, upstream } = await startCallFixture());
  seed = await seedAccount(database.db, { credits: "10" });
});

async function probe(toolId: string | null, body?: unknown, apiKey: string | null = seed.apiKey) {
  const res = await fetch(`${server.url}/api/v1/tools/probe${toolId === null ? "" : `?tool_id=${encodeURIComponent(toolId)}`}`, {
    method: "POST",
    headers: { ...(apiKey ? bearer(apiKey) : {}), "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe("Probe: schema check", () => {
  it("accepts valid parameters", async () => {
    const { status, body } = await probe("builtin.finance.compound_interest", { parameters: { principal: 100, annual_rate_percent: 5, years: 2 } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ tool_id: "builtin.finance.compound_interest", checks: ["schema", "quote"], schema: { valid: true, details: [] }, executed: false, charged: false });
  });

  it("reports field errors in the shape Call uses", async () => {
    const { status, body } = await probe("builtin.health.bmi", { checks: ["schema"], parameters: { weight_kg: "heavy", standard: "mars", shoe_size: 44 } });
    expect(status).toBe(200);
    expect(body.schema.valid).toBe(false);
    expect(body).not.toHaveProperty("quote");
    const details = body.schema.details as { type: string; loc: unknown[]; msg: string; input?: unknown }[];
    expect(details).toEqual(
      expect.arrayContaining([
        { type: "value_error", loc: ["body", "parameters", "weight_kg"], msg: expect.stringContaining("number"), input: "heavy" },
        { type: "value_error", loc: ["body", "parameters", "standard"], msg: expect.stringContaining('"who", "china"'), input: "mars" },
        { type: "extra_forbidden", loc: ["body", "parameters", "shoe_size"], msg: expect.stringContaining("unknown parameter"), input: 44 },
        // Every detail has an input: for an unsatisfied group, the parameters that lack it.
        { type: "one_of_required", loc: ["body", "parameters"], msg: "one of height_cm, height_in is required", input: { weight_kg: "heavy", standard: "mars", shoe_size: 44 } },
      ]),
    );
  });

  it("reports missing required parameters", async () => {
    const { body } = await probe("builtin.finance.loan_payment", { parameters: { principal: 1000 } });
    expect(body.schema.valid).toBe(false);
    expect(body.schema.details.map((d: { loc: string[] }) => d.loc.at(-1)).sort()).toEqual(["annual_rate_percent", "months"]);
    expect(body.schema.details.every((d: { type: string }) => d.type === "missing")).toBe(true);
    expect(body.schema.details.every((d: { input: unknown }) => JSON.stringify(d.input) === '{"principal":1000}')).toBe(true);
  });
});

describe("Probe: quote", () => {
  it("quotes a per-call price exactly", async () => {
    const { body } = await probe("builtin.finance.compound_interest", { checks: ["quote"], parameters: {} });
    expect(body.quote).toEqual({ estimate_credits: 1, currency: "credits", exact: true, basis: "per call", budget: null });
    expect(body).not.toHaveProperty("schema");
  });

  it("quotes a price from a parameter's length exactly", async () => {
    const { body } = await probe("builtin.crypto.hash", { checks: ["quote"], parameters: { text: "x".repeat(2001) } });
    expect(body.quote).toMatchObject({ estimate_credits: 0.3, currency: "credits", exact: true });
    expect(body.quote.basis).toMatch(/3 units$/);
  });

  it("quotes a price that depends on the result as its upper bound, not exact", async () => {
    const { body } = await probe("builtin.regex.extract", { checks: ["quote"], parameters: { pattern: "a", text: "aaa" } });
    expect(body.quote).toMatchObject({ estimate_credits: 1, currency: "credits", exact: false });
    expect(body.quote.basis).toMatch(/at most$/);
  });

  it("quotes a free tool at 0", async () => {
    const { body } = await probe("builtin.convert.temperature", { checks: ["quote"], parameters: { value: 1, from: "C", to: "F" } });
    expect(body.quote).toEqual({ estimate_credits: 0, currency: "credits", exact: true, basis: "free", budget: null });
  });
});

describe("Probe: coverage and sample", () => {
  it("answer an explicit unknown verdict", async () => {
    const { status, body } = await probe("builtin.finance.compound_interest", { checks: ["coverage", "sample"], parameters: {} });
    expect(status).toBe(200);
    expect(body.coverage).toMatchObject({ verdict: "unknown", reason: expect.any(String) });
    expect(body.sample).toMatchObject({ verdict: "unknown", reason: expect.any(String) });
    expect(body.checks).toEqual(["coverage", "sample"]);
  });
});

describe("Probe: errors", () => {
  const expectPublicError = (body: unknown, status: number) =>
    expect(body).toMatchObject({ status: "failure", status_code: status, message: expect.any(String) });

  it("400 for a missing or malformed tool_id", async () => {
    const missing = await probe(null, { parameters: {} });
    expect(missing.status).toBe(400);
    expectPublicError(missing.body, 400);
    const empty = await probe("", { parameters: {} });
    expect(empty.status).toBe(400);
    const malformed = await probe("no spaces allowed", { parameters: {} });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/Malformed tool_id/);
  });

  it("400 for an invalid body: unknown check, parameters not an object, a live budget", async () => {
    for (const body of [{ checks: ["vibes"] }, { parameters: [1, 2] }, { parameters: {}, live_budget: "1 credit" }]) {
      const res = await probe("builtin.finance.compound_interest", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expectPublicError(res.body, 400);
    }
  });

  it("404 for an unknown or retired capability", async () => {
    for (const id of ["builtin.nothing.here", "builtin.text.rot13"]) {
      const res = await probe(id, { parameters: {} });
      expect(res.status).toBe(404);
      expectPublicError(res.body, 404);
      expect(res.body.message).toMatch(/Discover/);
    }
  });

  it("401 without an API key", async () => {
    const res = await probe("builtin.finance.compound_interest", { parameters: {} }, null);
    expect(res.status).toBe(401);
    expectPublicError(res.body, 401);
  });

  it("accepts a request without a body (defaults: schema and quote of no parameters)", async () => {
    const res = await fetch(`${server.url}/api/v1/tools/probe?tool_id=builtin.convert.temperature`, { method: "POST", headers: bearer(seed.apiKey) });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.schema.valid).toBe(false);
    expect(body.quote.estimate_credits).toBe(0);
  });

  it("400 (not 500) for a JSON content type with a body that is not JSON", async () => {
    for (const text of ["", "{oops"]) {
      const res = await fetch(`${server.url}/api/v1/tools/probe?tool_id=builtin.convert.temperature`, { method: "POST", headers: { ...bearer(seed.apiKey), "content-type": "application/json" }, body: text });
      expect(res.status).toBe(400);
      expectPublicError(await res.json(), 400);
    }
  });
});

describe("Probe never executes and never charges", () => {
  it("leaves the ledger, the balance, executions, usage events and the provider untouched", async () => {
    const counts = async () =>
      rows<Record<string, string | number>>(
        await database.db.execute(sql`SELECT
          (SELECT count(*)::int FROM credits_ledger) AS ledger,
          (SELECT count(*)::int FROM executions) AS executions,
          (SELECT count(*)::int FROM usage_events) AS events,
          (SELECT paid_credits + bonus_credits + reward_credits FROM credit_balances WHERE account_id = ${seed.accountId}) AS total,
          (SELECT reserved_credits FROM credit_balances WHERE account_id = ${seed.accountId}) AS reserved`),
      )[0];
    const before = await counts();
    const requestsBefore = upstream.count();
    const all = ["schema", "quote", "coverage", "sample"];
    for (const [toolId, parameters] of [
      [fakeTool("fake-upstream", "ok"), { city: "Oslo" }],
      [fakeTool("fake-upstream", "echo"), { city: "Oslo", units: "metric" }],
      [fakeTool("fake-upstream", "items"), { n: 3 }],
      ["builtin.finance.compound_interest", { principal: 1, annual_rate_percent: 1, years: 1 }],
      ["builtin.crypto.hash", { text: "abc" }],
    ] as const) {
      const res = await probe(toolId, { checks: all, parameters, live_budget: "none" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ executed: false, charged: false, schema: { valid: true } });
    }
    expect(await counts()).toEqual(before);
    expect(upstream.count()).toBe(requestsBefore);
    expect(upstream.count()).toBe(0);
  });
});
