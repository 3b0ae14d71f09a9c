import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { parseCsv } from "../testing/csv";
import { rows } from "../db/row-sql";
import { usageEvents } from "../db/schema";
import type { Database } from "../db/types";
import { newUuid } from "../ids";
import { type UsageEventInput, usageEventRow } from "./usage-event";
import { compactJsonText, compactSourceRefIdText, usageJsonCsvText, usageJsonText } from "./usage-compact";
import { getUsageEvent } from "./usage-history";
import { exportUsageCsv } from "./exports";

let database: Database;
let accountId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  accountId = (await seedAccount(database.db)).accountId;
});

const JSON_FIELDS = ["pre_settlement_bill", "settlement_result", "execution_outcome", "request_payload"] as const;
type Written = Pick<UsageEventInput, "eventType" | "success" | "settledAmount" | "reasonCode" | "sourceRefType" | "sourceRefId" | "executionId" | "searchId" | "toolId" | "billingSummary" | "cacheHit" | "preSettlementAmount"> & {
  preSettlementBill?: unknown;
  settlementResult?: unknown;
  executionOutcome?: UsageEventInput["executionOutcome"];
  requestPayload?: unknown;
};

// Events as the product's writers build them, and the edge cases of the rules.
const CASES: [string, Written][] = [
  [
    "charged Call",
    {
      eventType: "tool_execute", success: true, settledAmount: "2.5", reasonCode: "result.valid", sourceRefType: "execution", sourceRefId: "exe_a", executionId: "exe_a",
      searchId: "srch_a", toolId: "demo.tool", billingSummary: "2.5 credits (per call)", cacheHit: true,
      preSettlementBill: { execution_id: "exe_a", summary: "2.5 credits (per call)", list_amount_credits: 2.5 },
      settlementResult: { settled_amount_credits: 2.5, quote_exact: true },
      executionOutcome: { outcome: "success", reason_code: "result.valid", charge_outcome: "charged", http_status: 200, cache_hit: true },
      requestPayload: { tool_id: "demo.tool", parameters: { q: "x" }, search_id: "srch_a", session_id: null, model: null, respond_with: "full" },
    },
  ],
  [
    "refused Call (summary differs from billing_summary, no tool)",
    {
      eventType: "tool_execute", success: false, settledAmount: "0", reasonCode: "validation_error", sourceRefType: "execution", sourceRefId: "exe_b", executionId: "exe_b",
      toolId: null, billingSummary: "Not charged: validation_error",
      preSettlementBill: { execution_id: "exe_b", summary: "Not charged", list_amount_credits: 0 },
      executionOutcome: { outcome: "validation_error", reason_code: "validation_error", charge_outcome: "failed_not_charged", cache_hit: false },
      requestPayload: { tool_id: null, parameters: {} },
    },
  ],
  [
    "values that differ from their columns are kept",
    {
      eventType: "tool_execute", success: true, settledAmount: "1", reasonCode: "result.valid", sourceRefType: "execution", sourceRefId: "exe_other", executionId: "exe_c",
      toolId: "demo.tool", billingSummary: "1 credit", preSettlementAmount: "3",
      preSettlementBill: { execution_id: "exe_x", summary: "other", list_amount_credits: 1 },
      settlementResult: { settled_amount_credits: "1" },
      executionOutcome: { outcome: "success", reason_code: "result.partial_success", charge_outcome: "included", cache_hit: true },
      requestPayload: { tool_id: "demo.other", parameters: [] },
    },
  ],
  [
    "search (no bill, payload without tool_id)",
    {
      eventType: "search", success: true, settledAmount: "0", sourceRefType: "search", sourceRefId: "srch_d", searchId: "srch_d", billingSummary: "Included (free search)",
      requestPayload: { query: "weather", limit: 5 },
    },
  ],
  [
    "inspect of one tool: tool_id column set, payload of another shape",
    {
      eventType: "search_by_ids", success: true, settledAmount: "0", sourceRefType: "search", sourceRefId: "srch_e", searchId: "srch_e", toolId: "demo.tool",
      requestPayload: { tool_ids: ["demo.tool"], view: "full" },
    },
  ],
  [
    "six-decimal amount",
    {
      eventType: "model_call", success: true, settledAmount: "0.000001", reasonCode: "result.valid", billingSummary: "0.000001 credits",
      preSettlementBill: { summary: "0.000001 credits", list_amount_credits: 0.000001 },
      settlementResult: { settled_amount_credits: 0.000001 },
    },
  ],
];

function input(w: Written): UsageEventInput {
  return { accountId, id: newUuid(), ...w } as UsageEventInput;
}

/** What the writer gave, in the item's snake_case: the read must return exactly this. */
function expected(w: Written, stored: typeof usageEvents.$inferInsert) {
  return {
    source_ref_id: w.sourceRefId ?? null,
    pre_settlement_bill: w.preSettlementBill ?? null,
    settlement_result: w.settlementResult ?? { settled_amount_credits: Number(stored.settledAmountCredits) },
    execution_outcome: w.executionOutcome ?? null,
    request_payload: w.requestPayload ?? null,
  };
}

describe("usage event JSON: stored without the keys that repeat a column, read as written", () => {
  it.each(CASES)("%s: the API item and the CSV export return what was written", async (_name, w) => {
    const row = usageEventRow(input(w));
    await database.db.insert(usageEvents).values(row);
    const want = expected(w, row);

    const item = await getUsageEvent(database.db, accountId, row.id as string);
    expect({
      source_ref_id: item.source_ref_id,
      pre_settlement_bill: item.pre_settlement_bill,
      settlement_result: item.settlement_result,
      execution_outcome: item.execution_outcome,
      request_payload: item.request_payload,
    }).toEqual(want);

    const csv = parseCsv(await new Response((await exportUsageCsv(database.db, accountId, { filters: {}, includeDetails: true }))()).text());
    const line = csv.find((r) => r[0] === row.id)!;
    const cell = (name: string) => line[csv[0].indexOf(name)];
    expect(cell("source_ref_id")).toBe(want.source_ref_id ?? "");
    for (const f of JSON_FIELDS) expect(cell(f) === "" ? null : JSON.parse(cell(f)), f).toEqual(want[f]);
  });

  it("the export's text of each JSON column is jsonb's, byte for byte (the direct path and the jsonb path)", async () => {
    // Stored values no writer of the product makes, for both paths and jsonb's key order: keys
    // around and between the repeated ones (shorter, equal length, non-ASCII, longer), nested
    // values, strings with quotes, escapes and control characters, numbers as written, and values
    // that are not objects (before, a scalar made the direct path's `-` fail, and the export with it).
    const odd: [Record<string, unknown> | unknown[] | string | number, Partial<Written>][] = [
      [{ a: 1, zz: "x", outcome: "kept", "é": "ü", "reason_cod": [1, { b: "}" }], "charge_outcomeZ": null, "ﬀﬀﬀﬀﬀﬀﬀﬀﬀﬀ": true }, {}],
      [{ note: 'say "hi" \\ then\nnew line \u0001 tab\t', n: 1.50, big: 12345678901234567890, neg: -0.000001, e: 1e-7, deep: { x: [{ y: "],}" }] } }, {}],
      [{ "": 0, summary: "kept, with a comma", cache_hit: false }, { cacheHit: true }],
      [[1, "two", { three: 3 }], {}],
      ["just text", {}],
      [7, {}],
    ];
    for (const [stored, w] of odd) {
      const row = usageEventRow(input({ ...CASES[0][1], ...w }));
      Object.assign(row, { preSettlementBill: stored, settlementResult: stored, executionOutcome: stored, requestPayload: stored });
      await database.db.insert(usageEvents).values(row);
    }
    const all = rows<Record<string, string | null>>(
      await database.db.execute(
        sql.raw(`SELECT e.id, ${JSON_FIELDS.map((c) => `e.${c}::text AS stored_${c}, (${usageJsonText(c)})::text AS read_${c}, (${usageJsonCsvText(c)}) AS csv_${c}`).join(", ")}
                   FROM usage_events e WHERE e.account_id = '${accountId}'`),
      ),
    );
    let direct = 0;
    for (const r of all) {
      for (const c of JSON_FIELDS) {
        expect(r[`csv_${c}`], `${c} of ${r[`stored_${c}`]}`).toBe(r[`read_${c}`]);
        if (r[`stored_${c}`] === "{}") direct++;
      }
    }
    expect(direct).toBeGreaterThan(0);

    // And through the export's CSV fields.
    const csv = parseCsv(await new Response((await exportUsageCsv(database.db, accountId, { filters: {}, includeDetails: true }))()).text());
    const byId = new Map(all.map((r) => [r.id, r]));
    for (const line of csv.slice(1)) {
      const r = byId.get(line[0])!;
      for (const c of JSON_FIELDS) expect(line[csv[0].indexOf(c)], c).toBe(r[`read_${c}`] ?? "");
    }
  });

  it("stores less: the repeated keys are not in the row", async () => {
    const row = usageEventRow(input(CASES[0][1]));
    expect(row.preSettlementBill).toEqual({});
    expect(row.settlementResult).toEqual({ quote_exact: true });
    expect(row.executionOutcome).toEqual({ http_status: 200 });
    expect(row.requestPayload).toEqual({ parameters: { q: "x" }, search_id: "srch_a", session_id: null, model: null, respond_with: "full" });
    expect(row.sourceRefId).toBeNull();
  });

  it("keeps an empty execution_outcome, so has_execution_outcome still tells events apart", () => {
    const row = usageEventRow(input(CASES[1][1]));
    expect(row.executionOutcome).toEqual({});
  });

  it("a row stored whole (written before compaction) reads the same", async () => {
    const w = CASES[0][1];
    const full = usageEventRow({ ...input(w) });
    Object.assign(full, { preSettlementBill: w.preSettlementBill, settlementResult: w.settlementResult, executionOutcome: w.executionOutcome, requestPayload: w.requestPayload, sourceRefId: w.sourceRefId });
    await database.db.insert(usageEvents).values(full);
    const item = await getUsageEvent(database.db, accountId, full.id as string);
    expect(item.pre_settlement_bill).toEqual(w.preSettlementBill);
    expect(item.execution_outcome).toEqual(w.executionOutcome);
    expect(item.request_payload).toEqual(w.requestPayload);
    expect(item.source_ref_id).toBe("exe_a");
  });

  it.each(CASES)("%s: the SQL compaction (sweeper, bulk loads) stores what the writer's compaction stores", async (_name, w) => {
    const row = usageEventRow(input(w));
    const full = expected(w, row);
    const r = rows<Record<string, unknown>>(
      await database.db.execute(sql`
        SELECT ${sql.raw(compactSourceRefIdText("f"))} AS source_ref_id,
               ${sql.raw(JSON_FIELDS.map((c) => `${compactJsonText(c, "f")} AS ${c}`).join(", "))}
          FROM (SELECT ${row.eventType}::text AS event_type, ${w.sourceRefType ?? null}::text AS source_ref_type, ${full.source_ref_id}::text AS source_ref_id,
                       ${row.executionId}::text AS execution_id, ${row.searchId}::text AS search_id, ${row.toolId}::text AS tool_id,
                       ${row.billingSummary}::text AS billing_summary, ${row.outcome}::text AS outcome, ${row.reasonCode}::text AS reason_code,
                       ${row.chargeOutcome}::text AS charge_outcome, ${row.cacheHit}::boolean AS cache_hit,
                       ${row.preSettlementAmountCredits}::numeric(20, 6) AS pre_settlement_amount_credits,
                       ${row.settledAmountCredits}::numeric(20, 6) AS settled_amount_credits,
                       ${json(full.pre_settlement_bill)}::jsonb AS pre_settlement_bill, ${json(full.settlement_result)}::jsonb AS settlement_result,
                       ${json(full.execution_outcome)}::jsonb AS execution_outcome, ${json(full.request_payload)}::jsonb AS request_payload) f`),
    )[0];
    expect(r).toEqual({
      source_ref_id: row.sourceRefId ?? null,
      pre_settlement_bill: row.preSettlementBill ?? null,
      settlement_result: row.settlementResult ?? null,
      execution_outcome: row.executionOutcome ?? null,
      request_payload: row.requestPayload ?? null,
    });
  });
});

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
