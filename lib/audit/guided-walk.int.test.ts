import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { createApiKey } from "../auth/api-keys";
import { rows } from "../db/row-sql";
import type { Database } from "../db/types";
import type { UsageEventType } from "../db/schema";
import { sealAuditHours } from "./seal";
import { grantAt, writePastEvents } from "./testing-history";
import { listUsageEvents, usageFeed } from "./usage-history";
import { guidedRanges } from "./guided-walk";
import { resolveWindow } from "./time-window";
import type { UsageFilters } from "./usage-filters";

const HOUR = 3_600_000;
const RARE_TOOL = "builtin.convert.temperature";
let database: Database;
let accountId: string;
let otherKey: string;

// Nine days of history, a few events an hour: mostly successful searches and Calls, and rare ones
// (a model call every 31 hours, a provider error every 17, a second API key every 23) whose pages
// lie far apart in time, plus events in the unsealed last hour and in the partial first hour of a window.
beforeAll(async () => {
  database = await createTestDatabase();
  const acct = await seedAccount(database.db, { credits: "10" });
  accountId = acct.accountId;
  otherKey = (await createApiKey(database.db, { accountId, name: "second" })).api_key_id;
  const now = Date.now();
  const start = Math.floor(now / HOUR) * HOUR - 9 * 24 * HOUR;
  await grantAt(database.db, accountId, new Date(start - HOUR), "100000");
  const events: Parameters<typeof writePastEvents>[2] = [];
  for (let h = 0, i = 0; start + h * HOUR < now - 60_000; h++) {
    for (let k = 0; k < 3; k++, i++) {
      const at = new Date(Math.min(start + h * HOUR + k * 997_000 + 1_000, now - 60_000));
      const eventType: UsageEventType = h % 31 === 5 && k === 0 ? "model_call" : k === 1 ? "search" : "tool_execute";
      const failed = eventType === "tool_execute" && h % 17 === 3;
      events.push({
        at,
        eventType,
        success: !failed,
        reasonCode: failed ? "provider.error" : undefined,
        amount: !failed && eventType !== "search" ? "0.5" : "0",
        apiKeyId: h % 23 === 7 ? otherKey : acct.apiKeyId,
        // Spend attribution: a rare tool every 19 hours, a rare model every 29, MCP every 13.
        toolId: eventType === "tool_execute" && h % 19 === 4 ? RARE_TOOL : undefined,
        model: h % 29 === 11 ? "rare-model" : null,
        channel: h % 13 === 2 ? "mcp" : "api",
      });
    }
  }
  await writePastEvents(database.db, accountId, events);
  await sealAuditHours(database.db, accountId);
});

const FILTERS: [string, UsageFilters][] = [
  ["event_type=model_call", { eventType: "model_call" }],
  ["kind=model", { kind: "model" }],
  ["reason_code=provider.error", { reasonCode: "provider.error" }],
  ["api_key_id=<rare key>", { get apiKeyId() { return otherKey; } }],
  ["success=false", { success: false }],
  ["charge_outcome=charged", { chargeOutcome: "charged" }],
  ["event_type=search + success=true", { eventType: "search", success: true }],
  // Guided by the spend rollups.
  ["tool_id=<rare tool>", { toolId: RARE_TOOL }],
  ["model=<rare model> + channel=api", { model: "rare-model", channel: "api" }],
  ["channel=mcp + success=true", { channel: "mcp", success: true }],
];

/** The page as the plain walk of the list index finds it. */
async function expected(f: UsageFilters, start: string | null, page: number, pageSize: number): Promise<string[]> {
  const where: ReturnType<typeof sql>[] = [sql`account_id = ${accountId}`];
  if (start) where.push(sql`created_at >= ${start}::timestamptz`);
  if (f.eventType) where.push(sql`event_type = ${f.eventType}`);
  if (f.kind) where.push(sql`event_type = 'model_call'`);
  if (f.reasonCode) where.push(sql`reason_code = ${f.reasonCode}`);
  if (f.apiKeyId) where.push(sql`api_key_id = ${f.apiKeyId}::uuid`);
  if (f.success !== undefined) where.push(sql`success = ${f.success}`);
  if (f.chargeOutcome) where.push(sql`charge_outcome = ${f.chargeOutcome}`);
  if (f.toolId) where.push(sql`tool_id = ${f.toolId}`);
  if (f.model) where.push(sql`model = ${f.model}`);
  if (f.channel) where.push(sql`channel = ${f.channel}`);
  return rows<{ id: string }>(
    await database.db.execute(sql`SELECT id FROM usage_events WHERE ${sql.join(where, sql` AND `)}
      ORDER BY created_at DESC, id DESC LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`),
  ).map((r) => r.id);
}

describe("lists filtered without an index of their own visit only the hours the rollups say hold a match", () => {
  for (const [name, f] of FILTERS) {
    it(`${name}: every page equals the plain walk's, with and without a start in the middle of an hour`, async () => {
      for (const start of [null, new Date(Date.now() - 4 * 24 * HOUR - 20 * 60_000).toISOString()]) {
        for (const [page, pageSize] of [[1, 5], [2, 5], [3, 7], [1, 50], [2, 50]]) {
          const got = await listUsageEvents(database.db, accountId, {
            filters: { ...f },
            page,
            pageSize,
            includeDetails: false,
            summary: false,
            startDate: start ?? undefined,
          });
          expect(got.items.map((i) => i.id), `${name} start=${start} page ${page} of ${pageSize}`).toEqual(await expected(f, start, page, pageSize));
        }
      }
    });
  }

  it("walks the feed by cursor to the same sequence as the plain walk", async () => {
    const f: UsageFilters = { reasonCode: "provider.error" };
    const all = await expected(f, null, 1, 10_000);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const page = await usageFeed(database.db, accountId, { filters: f, pageSize: 3, cursor });
      seen.push(...page.items.map((i) => i.id));
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
    }
    expect(seen).toEqual(all);
    expect(all.length).toBeGreaterThan(6);
  });

  it("visits a bounded number of hours for a rare value, and none of the history the page does not reach", async () => {
    const w = await resolveWindow(database.db, accountId, {});
    const ranges = await guidedRanges(database.db, accountId, w, { eventType: "model_call" }, 2);
    expect(ranges).not.toBeNull();
    // The unsealed tail, then sealed hours with a model call until they hold two of them.
    expect(ranges!.length).toBeLessThanOrEqual(3);
    for (const [from, to] of ranges!.slice(1)) expect(to!.getTime() - from!.getTime()).toBe(HOUR);
    // A rare tool is found through the spend rollups the same way.
    const byTool = await guidedRanges(database.db, accountId, w, { toolId: RARE_TOOL }, 2);
    expect(byTool).not.toBeNull();
    expect(byTool!.length).toBeLessThanOrEqual(3);
    for (const [from, to] of byTool!.slice(1)) expect(to!.getTime() - from!.getTime()).toBe(HOUR);
    // Filters with an index of their own are not guided.
    expect(await guidedRanges(database.db, accountId, w, { runId: "run-1" }, 2)).toBeNull();
    expect(await guidedRanges(database.db, accountId, w, { chargeOutcome: "failed_charged_review" }, 2)).toBeNull();
    expect(await guidedRanges(database.db, accountId, w, {}, 2)).toBeNull();
  });
});
