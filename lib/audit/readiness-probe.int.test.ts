// The readiness checks have two plans for finding an event's ledger rows: set-based joins (the
// seal's day-sized ranges) and index probes event by event (`probe`: the live tail, an open day's
// hours). Both must find the same violations, with the same evidence, in every bucket.
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { rows } from "../db/row-sql";
import type { Database } from "../db/types";
import { newId } from "../ids";
import { analytic } from "./analytic";
import { type ReadinessRow, type TimeRange, readinessQuery, violationChecks } from "./readiness-checks";
import { grantAt, ledgerRowAt, writePastEvents } from "./testing-history";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

let database: Database;
let accountId: string;
/** The start of the hour the violations are written in (three days ago). */
let t: number;

beforeAll(async () => {
  database = await createTestDatabase();
  const now = new Date(rows<{ now: Date | string }>(await database.db.execute(sql`SELECT now() AS now`))[0].now).getTime();
  t = Math.floor(now / HOUR) * HOUR - 3 * DAY;
  ({ accountId } = await seedAccount(database.db));
  const db = database.db;
  const at = (minutes: number) => new Date(t + minutes * MIN);
  await grantAt(db, accountId, at(-3 * 60), "100");
  // Sound history: a Call, a paid search and a model call (both linked by the row's usage_event_id), an included Call.
  await writePastEvents(db, accountId, [
    { at: at(-2 * 60), amount: "1" },
    { at: at(5), amount: "1.5" },
    { at: at(6), eventType: "search", amount: "0.5" },
    { at: at(7), eventType: "model_call", amount: "0.25" },
    { at: at(8), amount: "0" },
  ]);
  // A charge without its ledger row (missing_ledger_links).
  await writePastEvents(db, accountId, [{ at: at(10), amount: "2", skipLedger: true }]);
  // A charge whose consume row says another amount (amount_mismatches).
  const [mismatch] = await writePastEvents(db, accountId, [{ at: at(12), amount: "2", skipLedger: true }]);
  await ledgerRowAt(db, accountId, { at: at(12), entryType: "consume_tool_execute", amount: "-3", split: { paid: "3" }, executionId: mismatch.executionId });
  // A charge with a second consume row of its execution (duplicate_ledger_links).
  const [twice] = await writePastEvents(db, accountId, [{ at: at(14), amount: "1" }]);
  await ledgerRowAt(db, accountId, { at: at(14), entryType: "consume_tool_execute", amount: "-1", split: { paid: "1" }, executionId: twice.executionId });
  // An included Call with a consume row (uncharged_with_ledger; that row has no charged event: consume_without_event).
  const [included] = await writePastEvents(db, accountId, [{ at: at(16), amount: "0" }]);
  await ledgerRowAt(db, accountId, { at: at(16), entryType: "consume_tool_execute", amount: "-0.5", split: { paid: "0.5" }, executionId: included.executionId });
  // A consume row of no event at all (consume_without_event).
  await ledgerRowAt(db, accountId, { at: at(18), entryType: "consume_tool_execute", amount: "-1", split: { paid: "1" }, executionId: newId("exe") });
  // One consume row claimed by two charged events of one execution (consume_duplicate_events).
  const [first, second] = await writePastEvents(db, accountId, [
    { at: at(20), amount: "1", skipLedger: true },
    { at: at(21), amount: "1", skipLedger: true },
  ]);
  await db.execute(sql`UPDATE usage_events SET execution_id = ${first.executionId} WHERE id = ${second.id}::uuid`);
  await ledgerRowAt(db, accountId, { at: at(21), entryType: "consume_tool_execute", amount: "-1", split: { paid: "1" }, executionId: first.executionId });
  // Credits that moved without a ledger row (chain_breaks).
  await ledgerRowAt(db, accountId, { at: at(25), entryType: "grant_payment_recharge", amount: "5", kind: "paid", offLedger: "7" });
  // In the next hour: a consume row whose Call's event was written 50 minutes earlier, in the hour before.
  const [early] = await writePastEvents(db, accountId, [{ at: at(40), amount: "0.75", skipLedger: true }]);
  await ledgerRowAt(db, accountId, { at: at(90), entryType: "consume_tool_execute", amount: "-0.75", split: { paid: "0.75" }, executionId: early.executionId });
  await writePastEvents(db, accountId, [{ at: at(95), amount: "1.25" }]);
});

const iso = (ms: number) => new Date(ms).toISOString();

async function checks(ranges: TimeRange[], unit: "all" | "hour", probe: boolean): Promise<ReadinessRow[]> {
  const hour = (col: ReturnType<typeof sql>) => sql`to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":00:00Z"')`;
  return analytic<ReadinessRow>(
    database.db,
    readinessQuery({
      accountId,
      ranges,
      probe,
      bucket: unit === "all" ? () => sql`'all'` : hour,
      buckets:
        unit === "all"
          ? sql`SELECT 'all'`
          : sql`SELECT to_char(b, 'YYYY-MM-DD"T"HH24":00:00Z"') FROM generate_series(${iso(t - 3 * HOUR)}::timestamptz AT TIME ZONE 'UTC',
                                                                               ${iso(t + HOUR)}::timestamptz AT TIME ZONE 'UTC', interval '1 hour') b`,
    }),
  );
}

/** Sample ids are any five offenders, in no set order: compared as sets. */
const comparable = (r: ReadinessRow[]) =>
  r.map((row) => ({ ...row, samples: Object.fromEntries(Object.entries(row.samples).map(([k, ids]) => [k, [...(ids ?? [])].sort()])) }));

describe("readiness checks by index probe", () => {
  it("find every kind of violation the set-based checks find, with the same evidence", async () => {
    const ranges: TimeRange[] = [[iso(t - 3 * HOUR), iso(t + 2 * HOUR)]];
    const probed = await checks(ranges, "all", true);
    expect(comparable(probed)).toEqual(comparable(await checks(ranges, "all", false)));
    const [all] = probed;
    expect(Object.fromEntries(violationChecks.map((c) => [c, all[c]]))).toEqual({
      missing_ledger_links: 1,
      duplicate_ledger_links: 1,
      amount_mismatches: 1,
      uncharged_with_ledger: 1,
      consume_without_event: 2,
      consume_duplicate_events: 1,
      chain_breaks: 1,
    });
    expect(all).toMatchObject({ events_checked: 13, charged_events: 11 });
  });

  it("agree hour by hour, and over several ranges at once", async () => {
    const hours: TimeRange[] = [[iso(t - 3 * HOUR), iso(t + 2 * HOUR)]];
    expect(comparable(await checks(hours, "hour", true))).toEqual(comparable(await checks(hours, "hour", false)));
    const split: TimeRange[] = [
      [iso(t - 3 * HOUR), iso(t + 11 * MIN)],
      [iso(t + 13 * MIN), iso(t + 60 * MIN)],
      [iso(t + 80 * MIN), null],
    ];
    expect(comparable(await checks(split, "all", true))).toEqual(comparable(await checks(split, "all", false)));
  });

  it("find a ledger row's event written before the range, within a day of the row", async () => {
    // [t + 60 min, t + 2 h) holds the consume row of the event at t + 40 min, and one sound Call.
    const [r] = await checks([[iso(t + HOUR), iso(t + 2 * HOUR)]], "all", true);
    expect(r).toMatchObject({ events_checked: 1, ledger_entries_checked: 2, consume_without_event: 0, chain_breaks: 0 });
  });
});
