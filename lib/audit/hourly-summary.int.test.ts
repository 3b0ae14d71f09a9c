// The open day's sealed hours are summarised per hour (ledger_hourly_summary), so readiness and the
// settlement history check only the unsealed tail live, and answer exactly what a live check of
// the whole range answers. History is written with past created_at before the first seal; the
// first seal step (CHUNK_MS) is made to end inside a past day, which that step leaves open.
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { rows } from "../db/row-sql";
import type { Database } from "../db/types";
import { type UsageEventType } from "../db/schema";
import { credits, creditsToNumber } from "../money";
import { analytic } from "./analytic";
import { ledgerReadiness } from "./ledger-readiness";
import { type ReadinessRow, isReady, readinessQuery, utcDay, violationChecks } from "./readiness-checks";
import { readinessCoverage, withAnomalyScope } from "./ready-days";
import { CHUNK_MS, sealAuditHours } from "./seal";
import { settlementHistory } from "./settlement-history";
import { grantAt, writePastEvents, type PastEvent } from "./testing-history";
import { resolveWindow } from "./time-window";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const floor = (ms: number, unit: number) => Math.floor(ms / unit) * unit;
const isoUs = (ms: number) => new Date(ms).toISOString().replace("Z", "000Z");
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

let database: Database;
let now: number;
/** A past day whose first 15 hours the first seal step leaves open (then the next step completes it). */
let partDay: number;

beforeAll(async () => {
  database = await createTestDatabase();
  now = new Date(rows<{ now: Date | string }>(await database.db.execute(sql`SELECT now() AS now`))[0].now).getTime();
  partDay = floor(now, DAY) - 6 * DAY;
});

/**
 * An account whose history starts so that the first seal step ends at partDay 15:00: grants each
 * day, charged Calls, searches and model calls and uncharged Calls every 2 h 50 min, and one event
 * in the unsealed tail. `broken` are charges written without their ledger row.
 */
async function seededHistory(broken: Date[] = []) {
  const { accountId } = await seedAccount(database.db);
  const origin = partDay + 15 * HOUR + 20 * MIN - CHUNK_MS;
  await grantAt(database.db, accountId, new Date(origin), "500");
  const kinds: { eventType: UsageEventType; amount: string }[] = [
    { eventType: "tool_execute", amount: "1.25" },
    { eventType: "search", amount: "0.5" },
    { eventType: "tool_execute", amount: "0" },
    { eventType: "model_call", amount: "0.333333" },
  ];
  // Written in time order, so the balance chain by seq is also the chain by created_at.
  const timeline: ({ grant: true; at: Date } | (PastEvent & { grant?: false }))[] = [];
  for (let t = origin + 10 * MIN, i = 0; t < now - 2 * MIN; t += 170 * MIN, i++) timeline.push({ at: new Date(t), ...kinds[i % kinds.length] });
  for (let day = floor(origin, DAY) + DAY; day + 30 * MIN < now - 2 * MIN; day += DAY) timeline.push({ grant: true, at: new Date(day + 30 * MIN) });
  timeline.push({ at: new Date(now - MIN), eventType: "tool_execute", amount: "2" });
  timeline.sort((a, b) => a.at.getTime() - b.at.getTime());
  for (const e of timeline) {
    if (e.grant) await grantAt(database.db, accountId, e.at, "3.5");
    else await writePastEvents(database.db, accountId, [e]);
  }
  const wrong = await writePastEvents(database.db, accountId, broken.map((at) => ({ at, amount: "0.75", skipLedger: true })));
  await sealAuditHours(database.db, accountId);
  const sealedUntil = new Date(rows<{ t: Date | string }>(await database.db.execute(sql`SELECT sealed_until AS t FROM audit_seal_state WHERE account_id = ${accountId}`))[0].t).getTime();
  return { accountId, origin, sealedUntil, brokenIds: wrong.map((e) => e.id) };
}

async function hourlyRows(accountId: string): Promise<number[]> {
  return rows<{ h: Date | string }>(await database.db.execute(sql`SELECT hour_start AS h FROM ledger_hourly_summary WHERE account_id = ${accountId} ORDER BY 1`)).map((r) =>
    new Date(r.h).getTime(),
  );
}

const hoursOf = (from: number, to: number) => Array.from({ length: Math.max(0, (to - from) / HOUR) }, (_, i) => from + i * HOUR);

/** The readiness checks run live over [from, to), in `unit` buckets: the reference answer. */
async function liveChecks(accountId: string, from: number | string, to: number | string, unit: "all" | "day" | "hour" = "all"): Promise<ReadinessRow[]> {
  const f = typeof from === "number" ? isoUs(from) : from;
  const t = typeof to === "number" ? isoUs(to) : to;
  const step = `1 ${unit}`;
  return analytic<ReadinessRow>(
    database.db,
    readinessQuery({
      accountId,
      ranges: [[f, t]],
      bucket: unit === "all" ? () => sql`'all'` : unit === "day" ? utcDay : (col) => sql`to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":00:00Z"')`,
      buckets:
        unit === "all"
          ? sql`SELECT 'all'`
          : sql`SELECT to_char(b, ${sql.raw(unit === "day" ? `'YYYY-MM-DD'` : `'YYYY-MM-DD"T"HH24":00:00Z"'`)})
                  FROM generate_series(${f}::timestamptz AT TIME ZONE 'UTC', (${t}::timestamptz AT TIME ZONE 'UTC') - ${step}::interval, ${step}::interval) b`,
    }),
  );
}

/** What the readiness endpoint must report, from a live check of its whole range. */
function readinessFrom(live: ReadinessRow) {
  return {
    events_checked: live.events_checked,
    charged_events: live.charged_events,
    ledger_entries_checked: live.ledger_entries_checked,
    net_amount_credits: creditsToNumber(live.net_amount),
    checks: violationChecks.map((name) => ({ name, violations: live[name], sample_ids: [...(live.samples[name] ?? [])].sort() })),
  };
}

async function readinessAnswer(accountId: string, input: { startDate?: string; endDate?: string }) {
  const r = await ledgerReadiness(database.db, accountId, input);
  const live = (await liveChecks(accountId, r.start_date!, r.end_date))[0];
  const got = {
    events_checked: r.events_checked,
    charged_events: r.charged_events,
    ledger_entries_checked: r.ledger_entries_checked,
    net_amount_credits: r.net_amount_credits,
    checks: r.checks.filter((c) => (violationChecks as readonly string[]).includes(c.name)).map((c) => ({ name: c.name, violations: c.violations, sample_ids: [...c.sample_ids].sort() })),
  };
  return { r, got, want: readinessFrom(live) };
}

/** A settlement item computed from a live check of its whole day (scope `all`). */
function settlementFrom(d: ReadinessRow) {
  let consumeCount = 0;
  let grantCount = 0;
  let consumed = credits(0);
  let granted = credits(0);
  for (const [type, v] of Object.entries(d.by_entry_type)) {
    if (type.startsWith("consume_")) {
      consumeCount += v.count;
      consumed = consumed.minus(v.amount);
    } else {
      grantCount += v.count;
      granted = granted.plus(v.amount);
    }
  }
  return {
    day: d.b,
    entry_count: d.entry_count,
    consume_count: consumeCount,
    grant_count: grantCount,
    consumed_credits: creditsToNumber(consumed),
    granted_credits: creditsToNumber(granted),
    net_amount_credits: creditsToNumber(granted.minus(consumed)),
    balance_open: d.balance_open === null ? null : creditsToNumber(d.balance_open),
    balance_close: d.balance_close === null ? null : creditsToNumber(d.balance_close),
    ready: isReady(d),
  };
}

async function settlementAnswer(accountId: string, origin: number) {
  const history = await settlementHistory(database.db, accountId, { scope: "all", pageSize: 50 });
  const days = await liveChecks(accountId, floor(origin, DAY), floor(now, DAY) + DAY, "day");
  const want = days
    .filter((d) => !isReady(d) || d.entry_count > 0)
    .map(settlementFrom)
    .reverse();
  const got = history.items.map(({ bucket_start: _b, source: _s, ...rest }) => rest);
  return { history, got, want };
}

describe("hourly settlement summaries of the open day", () => {
  let good: Awaited<ReturnType<typeof seededHistory>>;

  beforeAll(async () => {
    good = await seededHistory();
  });

  it("the seal writes one hourly row per sealed hour of the day it leaves open, and none for the days it completes", async () => {
    const openDay = floor(good.sealedUntil, DAY);
    expect(await hourlyRows(good.accountId)).toEqual([...hoursOf(partDay, partDay + 15 * HOUR), ...hoursOf(openDay, good.sealedUntil)]);
    // Every day from the first one to the one before the open day has its daily row (partDay included, once completed).
    const days = rows<{ day: string }>(await database.db.execute(sql`SELECT day::text AS day FROM ledger_daily_summary WHERE account_id = ${good.accountId} ORDER BY day`)).map((r) => r.day);
    const firstDay = floor(good.origin, DAY);
    expect(days).toEqual(Array.from({ length: (openDay - firstDay) / DAY }, (_, i) => isoDay(firstDay + i * DAY)));
  });

  it("an hourly row holds what a live check of that hour finds", async () => {
    const sealed = rows<{ h: Date | string; entry_count: number; by_entry_type: unknown; first_seq: string | null; last_seq: string | null; balance_open: string | null; balance_close: string | null; events_checked: number; charged_events: number }>(
      await database.db.execute(sql`SELECT hour_start AS h, entry_count, by_entry_type, first_seq::text, last_seq::text, balance_open::text, balance_close::text, events_checked, charged_events
                                       FROM ledger_hourly_summary WHERE account_id = ${good.accountId} AND hour_start < ${isoUs(partDay + DAY)}::timestamptz ORDER BY hour_start`),
    );
    const live = await liveChecks(good.accountId, partDay, partDay + 15 * HOUR, "hour");
    expect(sealed.map((s) => s.entry_count).reduce((a, b) => a + b)).toBeGreaterThan(0);
    expect(sealed.map((s) => ({ ...s, h: new Date(s.h).toISOString().replace(".000", "") }))).toEqual(
      live.map((l) => ({
        h: l.b,
        entry_count: l.entry_count,
        by_entry_type: l.by_entry_type,
        first_seq: l.first_seq === null ? null : String(l.first_seq),
        last_seq: l.last_seq === null ? null : String(l.last_seq),
        balance_open: l.balance_open === null ? null : credits(l.balance_open).toFixed(6),
        balance_close: l.balance_close === null ? null : credits(l.balance_close).toFixed(6),
        events_checked: l.events_checked,
        charged_events: l.charged_events,
      })),
    );
    await expect(database.db.execute(sql`UPDATE ledger_hourly_summary SET entry_count = 0 WHERE account_id = ${good.accountId}`)).rejects.toThrow();
    await expect(database.db.execute(sql`DELETE FROM ledger_hourly_summary WHERE account_id = ${good.accountId}`)).rejects.toThrow();
  });

  it("readiness of a fully sealed history checks only the unsealed tail live", async () => {
    const w = await resolveWindow(database.db, good.accountId, {});
    const coverage = await readinessCoverage(database.db, good.accountId, w);
    expect(coverage.uncovered).toEqual([[isoUs(w.sealedUntil!.getTime()), coverage.end]]);
    const openDay = floor(w.sealedUntil!.getTime(), DAY);
    expect(coverage.ready.filter((s) => s.unit === "hour").map((s) => Date.parse(s.start))).toEqual(hoursOf(openDay, w.sealedUntil!.getTime()));

    const { r, got, want } = await readinessAnswer(good.accountId, {});
    expect(r.ready).toBe(true);
    expect(got).toEqual(want);
    expect(r).toMatchObject({ sealed_days: (openDay - floor(good.origin, DAY)) / DAY, sealed_hours: (w.sealedUntil!.getTime() - openDay) / HOUR });
  });

  it("readiness of a range ending inside a day takes that day's sealed hours and the same answer as a live check", async () => {
    // partDay's first 15 hours have hourly rows (the first seal step ended there); the day also has its daily row.
    const input = { startDate: isoDay(partDay - 3 * DAY), endDate: new Date(partDay + 12 * HOUR).toISOString() };
    const { r, got, want } = await readinessAnswer(good.accountId, input);
    expect(r).toMatchObject({ ready: true, sealed_days: 3, sealed_hours: 12 });
    expect(got).toEqual(want);
    const coverage = await readinessCoverage(database.db, good.accountId, await resolveWindow(database.db, good.accountId, input));
    expect(coverage.uncovered).toEqual([[isoUs(partDay + 12 * HOUR), r.end_date]]);

    // No whole day: sealed hours on both sides of midnight, the partial hours at the edges live.
    const around = { startDate: new Date(partDay - 4 * HOUR - 30 * MIN).toISOString(), endDate: new Date(partDay + 5 * HOUR + 10 * MIN).toISOString() };
    const a = await readinessAnswer(good.accountId, around);
    expect(a.r).toMatchObject({ ready: true, sealed_days: 0, sealed_hours: 5 });
    expect(a.got).toEqual(a.want);
  });

  it("the settlement history merges the open day's sealed hours with its live tail into the same items as a live check", async () => {
    const { history, got, want } = await settlementAnswer(good.accountId, good.origin);
    expect(got).toEqual(want);
    expect(history.items[0]).toMatchObject({ day: isoDay(now), source: "live", ready: true });
    expect(history.items.slice(1).every((i) => i.source === "summary")).toBe(true);
    expect(history.ready).toBe(true);
  });

  describe("a charge without its ledger row in a sealed hour", () => {
    let bad: Awaited<ReturnType<typeof seededHistory>>;
    let brokenHours: number[];

    beforeAll(async () => {
      const sealable = floor(now - 10 * MIN, HOUR);
      // In partDay's hour-sealed part, and in the open day's sealed hours when it has any yet.
      const todayBroken = sealable > floor(sealable, DAY) ? floor(sealable, DAY) + 35 * MIN : now - 3 * MIN;
      brokenHours = [partDay + 3 * HOUR, floor(todayBroken, HOUR)];
      bad = await seededHistory([new Date(partDay + 3 * HOUR + 5 * MIN), new Date(todayBroken)]);
    });

    it("gets no hourly row (its neighbours do), and its day no daily row", async () => {
      const openDay = floor(bad.sealedUntil, DAY);
      const expected = [...hoursOf(partDay, partDay + 15 * HOUR), ...hoursOf(openDay, bad.sealedUntil)].filter((h) => !brokenHours.includes(h));
      expect(await hourlyRows(bad.accountId)).toEqual(expected);
      const dayRow = await database.db.execute(sql`SELECT 1 FROM ledger_daily_summary WHERE account_id = ${bad.accountId} AND day = ${isoDay(partDay)}::date`);
      expect(rows(dayRow)).toHaveLength(0);
    });

    it("is reported by readiness with its sample id, exactly as a live check finds it", async () => {
      const { r, got, want } = await readinessAnswer(bad.accountId, {});
      expect(r.ready).toBe(false);
      expect(got).toEqual(want);
      expect(r.checks.find((c) => c.name === "missing_ledger_links")).toMatchObject({ passed: false, violations: 2, sample_ids: expect.arrayContaining(bad.brokenIds) });
      // The live part: the failed day, the failed hour of the open day and the unsealed tail.
      const w = await resolveWindow(database.db, bad.accountId, {});
      const { uncovered } = await readinessCoverage(database.db, bad.accountId, w);
      const sealedUntil = w.sealedUntil!.getTime();
      const todayBroken = brokenHours[1];
      const ranges: string[][] = [
        [isoUs(partDay), isoUs(partDay + DAY)],
        ...(todayBroken < sealedUntil ? [[isoUs(todayBroken), isoUs(todayBroken + HOUR)]] : []),
        [isoUs(sealedUntil), uncovered.at(-1)![1]],
      ];
      // Adjacent ranges come back as one (in the open day's first sealed hour, the failed hour ends where the tail starts).
      const merged = ranges.reduce<string[][]>((out, [from, to]) => {
        const last = out.at(-1);
        if (last && last[1] === from) last[1] = to;
        else out.push([from, to]);
        return out;
      }, []);
      expect(uncovered).toEqual(merged);
      const scoped = await withAnomalyScope(database.db, bad.accountId, w, { anomaly: "missing_ledger_link" });
      expect(scoped.within).toEqual(uncovered);
    });

    it("makes its day a live, not-ready settlement item with the same totals as a live check", async () => {
      const { history, got, want } = await settlementAnswer(bad.accountId, bad.origin);
      expect(got).toEqual(want);
      const byDay = Object.fromEntries(history.items.map((i) => [i.day, i]));
      expect(byDay[isoDay(partDay)]).toMatchObject({ source: "live", ready: false });
      expect(byDay[isoDay(brokenHours[1])]).toMatchObject({ source: "live", ready: false });
      expect(history.ready).toBe(false);
    });
  });
});
