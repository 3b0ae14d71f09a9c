import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { importDemoCatalog } from "../testing/catalog";
import { createApiKey } from "../auth/api-keys";
import type { Database } from "../db/types";
import { resetRateLimits } from "./rate-limit";
import { rateLimits } from "./rate-limits";

let database: Database;
let server: TestServer;

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
});
beforeEach(() => resetRateLimits());

const actions = {
  search: { path: "/api/v1/search", body: { query: "temperature", limit: 1 } },
  inspect: { path: "/api/v1/tools/by-ids", body: { tool_ids: ["builtin.convert.temperature"], view: "lean" } },
  probe: { path: "/api/v1/tools/probe?tool_id=builtin.convert.temperature", body: { parameters: { value: 1, from: "C", to: "F" }, checks: ["schema"] } },
  execute: { path: "/api/v1/tools/execute", body: { tool_id: "builtin.convert.temperature", parameters: { value: 1, from: "C", to: "F" } } },
} as const;

function post(path: string, key: string, body: unknown) {
  return fetch(`${server.url}${path}`, { method: "POST", headers: { ...bearer(key), "content-type": "application/json" }, body: JSON.stringify(body) });
}

describe("rate limits of the four actions (contract section 8)", () => {
  for (const [action, { path, body }] of Object.entries(actions) as [keyof typeof actions, (typeof actions)[keyof typeof actions]][]) {
    it(`${action}: ${rateLimits[action]} per minute per account, shared by its keys; then 429 with the headers and Retry-After`, async () => {
      const a = await seedAccount(database.db, { credits: "1000" });
      const second = await createApiKey(database.db, { accountId: a.accountId, name: "second" });
      const limit = rateLimits[action];
      // Half through each key: the bucket belongs to the account, not to the key.
      for (let i = 0; i < limit; i += 20) {
        const batch = await Promise.all(Array.from({ length: Math.min(20, limit - i) }, (_, j) => post(path, (i + j) % 2 ? second.api_key : a.apiKey, body)));
        for (const res of batch) expect(res.status).toBe(200);
      }
      const last = await post(path, a.apiKey, body);
      expect(last.status).toBe(429);
      expect(await last.json()).toMatchObject({ status: "failure", status_code: 429, message: expect.stringContaining("Rate limit") });
      expect(last.headers.get("x-ratelimit-limit")).toBe(String(limit));
      expect(last.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(Number(last.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
      expect(Number(last.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

      // Another account is not affected.
      const b = await seedAccount(database.db, { credits: "1000" });
      const other = await post(path, b.apiKey, body);
      expect(other.status).toBe(200);
      expect(other.headers.get("x-ratelimit-remaining")).toBe(String(limit - 1));
    });
  }
});
