import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import type { Database } from "../db/types";
import type { UsageEventType } from "../db/schema";
import { sealAuditHours } from "./seal";
import { grantAt, writePastEvents } from "./testing-history";
import { type ExportTuning, type UsageExportInput, USAGE_EXPORT, exportLedgerCsv, exportSlices, exportUsageCsv, ledgerSlices } from "./exports";
import { resolveWindow } from "./time-window";
import type { UsageFilters } from "./usage-filters";

const HOUR = 3_600_000;
let database: Database;
let accountId: string;
const start = Math.floor(Date.now() / HOUR) * HOUR - 3 * 24 * HOUR;

// Three days of history, a few events an hour (some hours empty, some sharing a timestamp), sealed,
// plus events in the unsealed last hour.
beforeAll(async () => {
  database = await createTestDatabase();
  const acct = await seedAccount(database.db, { credits: "10" });
  accountId = acct.accountId;
  const now = Date.now();
  await grantAt(database.db, accountId, new Date(start - HOUR), "100000");
  const events: Parameters<typeof writePastEvents>[2] = [];
  for (let h = 0; start + h * HOUR < now - 60_000; h++) {
    if (h % 7 === 2) continue;
    for (let k = 0; k < 1 + (h % 4); k++) {
      const at = new Date(Math.min(start + h * HOUR + (k === 2 ? 1_000 : k * 600_000 + 1_000), now - 60_000));
      const eventType: UsageEventType = k === 1 ? "search" : "tool_execute";
      const failed = eventType === "tool_execute" && h % 5 === 3;
      const amount = failed || eventType === "search" ? "0" : "0.5";
      events.push({ at, eventType, success: !failed, reasonCode: failed ? "provider.error" : undefined, amount, skipLedger: amount !== "0" && h % 11 === 4 });
    }
  }
  await writePastEvents(database.db, accountId, events);
  await sealAuditHours(database.db, accountId);
});

const PLAIN: ExportTuning = { method: "keyset", batchSize: 1000, sliceRows: Number.POSITIVE_INFINITY };
const iso = (ms: number) => new Date(ms).toISOString();

async function csv(input: UsageExportInput, tuning: ExportTuning): Promise<string> {
  return new Response((await exportUsageCsv(database.db, accountId, input, tuning))()).text();
}

const FILTERS: [string, UsageFilters][] = [
  ["no filter", {}],
  ["event_type=search", { eventType: "search" }],
  ["reason_code=provider.error", { reasonCode: "provider.error" }],
  ["charge_outcome=charged", { chargeOutcome: "charged" }],
  ["anomaly=missing_ledger_link (not countable by the rollups)", { anomaly: "missing_ledger_link" }],
];
const WINDOWS: [string, { startDate?: string; endDate?: string }][] = [
  ["whole history", {}],
  ["from the middle of an hour", { startDate: iso(start + 30 * HOUR + 1_234) }],
  ["ending in the middle of an hour, before the seal", { startDate: iso(start + 5 * HOUR), endDate: iso(start + 50 * HOUR + 17 * 60_000) }],
];

describe("exports in time slices", () => {
  it("cuts the window into slices that follow one another, newest first, about the asked size", async () => {
    const w = await resolveWindow(database.db, accountId, {});
    const slices = await exportSlices(database.db, accountId, w, {}, 7);
    expect(slices.length).toBeGreaterThan(15);
    expect(slices[0][1]).toBeNull();
    expect(slices.at(-1)![0]).toBeNull();
    for (let i = 1; i < slices.length; i++) expect(slices[i][1]).toBe(slices[i - 1][0]);
    expect(await exportSlices(database.db, accountId, w, {}, Number.POSITIVE_INFINITY)).toEqual([[null, null]]);
    // A filter the rollups cannot count: the whole window, or (COPY) slices by every event, a bound on its rows.
    const anomaly: UsageFilters = { anomaly: "missing_ledger_link" };
    expect(await exportSlices(database.db, accountId, w, anomaly, 7)).toEqual([[null, null]]);
    expect(await exportSlices(database.db, accountId, w, anomaly, 7, { upperBound: true })).toEqual(slices);
    const ledger = await ledgerSlices(database.db, accountId, w, 3);
    expect(ledger.length).toBeGreaterThan(15);
    for (let i = 1; i < ledger.length; i++) expect(ledger[i][1]).toBe(ledger[i - 1][0]);
  });

  it("ledger: the same CSV by COPY in slices of ~3 entries, by one COPY and by keyset batches", async () => {
    const ledger = async (tuning: Parameters<typeof exportLedgerCsv>[3]) =>
      new Response((await exportLedgerCsv(database.db, accountId, { filters: { direction: "any" } }, tuning))()).text();
    const plain = await ledger({ method: "keyset" });
    expect(plain.split("\n").length).toBeGreaterThan(50);
    expect(await ledger({ copySliceRows: 3 })).toBe(plain);
    expect(await ledger({ copySliceRows: Number.POSITIVE_INFINITY })).toBe(plain);
  });

  for (const [filterName, filters] of FILTERS) {
    it.each(WINDOWS)(`${filterName}, %s: the same CSV as one walk of the window`, async (_name, window) => {
      const input = { filters, includeDetails: false, ...window };
      const plain = await csv(input, PLAIN);
      // Slices of ~3 events read in batches of 2: slices span batches, batches span slices.
      expect(await csv(input, { method: "keyset", batchSize: 2, sliceRows: 3 })).toBe(plain);
      expect(await csv(input, { method: "keyset", batchSize: 5, sliceRows: 2 })).toBe(plain);
      // By COPY on PostgreSQL (keyset batches on PGlite): a statement per slice of ~3 events, and one for the window.
      expect(await csv(input, { ...USAGE_EXPORT, copySliceRows: 3 })).toBe(plain);
      expect(await csv(input, { ...USAGE_EXPORT, copySliceRows: Number.POSITIVE_INFINITY })).toBe(plain);
      expect(plain.split("\n").length).toBeGreaterThan(filterName === "no filter" ? 50 : 3);
    });
  }
});
