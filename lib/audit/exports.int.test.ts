import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { parseCsv } from "../testing/csv";
import { rows } from "../db/row-sql";
import type { Database } from "../db/types";
import { EXPORT_BATCH, exportLedgerCsv, exportUsageCsv } from "./exports";
import { grantAt, writePastEvents } from "./testing-history";
import { anomaliesOf } from "./usage-filters";

let database: Database;

const HOUR = 3_600_000;

beforeAll(async () => {
  database = await createTestDatabase();
});

async function usageCsv(accountId: string, includeDetails = false): Promise<string[][]> {
  const open = await exportUsageCsv(database.db, accountId, { filters: {}, includeDetails });
  return parseCsv(await new Response(open()).text());
}

describe("exportUsageCsv", () => {
  it("writes each event's anomalies as the list computes them", async () => {
    const acct = await seedAccount(database.db);
    await grantAt(database.db, acct.accountId, new Date(Date.now() - 24 * HOUR), "10");
    await writePastEvents(database.db, acct.accountId, [
      { at: new Date(Date.now() - 5 * HOUR), amount: "1" },
      { at: new Date(Date.now() - 4 * HOUR), amount: "1", skipLedger: true },
      { at: new Date(Date.now() - 3 * HOUR), amount: "1", success: false },
      { at: new Date(Date.now() - 2 * HOUR), amount: "0", billingSnapshotStatus: "missing" },
      { at: new Date(Date.now() - HOUR), amount: "2", success: false, skipLedger: true, billingSnapshotStatus: "missing" },
    ]);
    const expected = rows<{ id: string; anomalies: string }>(
      await database.db.execute(sql`SELECT e.id, array_to_string(${anomaliesOf}, ';') AS anomalies FROM usage_events e WHERE e.account_id = ${acct.accountId}`),
    );
    const [header, ...data] = await usageCsv(acct.accountId);
    const col = header.indexOf("anomalies");
    expect(new Map(data.map((r) => [r[0], r[col]]))).toEqual(new Map(expected.map((r) => [r.id, r.anomalies])));
    expect(new Set(expected.map((r) => r.anomalies))).toEqual(
      new Set(["", "missing_ledger_link", "failed_charged_review", "missing_billing_snapshot", "failed_charged_review;missing_ledger_link;missing_billing_snapshot"]),
    );
  });

  it("pages through more than a batch: every event once, newest first, ties at a batch boundary included", async () => {
    const acct = await seedAccount(database.db);
    await grantAt(database.db, acct.accountId, new Date(Date.now() - 24 * HOUR), "10");
    const [seed] = await writePastEvents(database.db, acct.accountId, [{ at: new Date(Date.now() - 2 * HOUR), amount: "1" }]);
    // Copies of the event, three to a timestamp, so a tie straddles the end of the first batch.
    const copies = EXPORT_BATCH + 200;
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`CREATE TEMP TABLE copies ON COMMIT DROP AS
                             SELECT e.*, g FROM usage_events e, generate_series(1, ${copies}::int) g WHERE e.id = ${seed.id}::uuid`);
      await tx.execute(sql`UPDATE copies SET id = gen_random_uuid(), created_at = created_at - (g / 3) * interval '1 millisecond'`);
      await tx.execute(sql`ALTER TABLE copies DROP COLUMN g`);
      await tx.execute(sql`INSERT INTO usage_events SELECT * FROM copies`);
    });
    const expected = rows<{ id: string }>(
      await database.db.execute(sql`SELECT id FROM usage_events WHERE account_id = ${acct.accountId} ORDER BY created_at DESC, id DESC`),
    );
    const [header, ...data] = await usageCsv(acct.accountId, true);
    expect(data.map((r) => r[0])).toEqual(expected.map((r) => r.id));
    expect(header.slice(-2)).toEqual(["request_payload", "response_payload_summary"]);
    expect(JSON.parse(data[0][header.indexOf("request_payload")])).toMatchObject({ parameters: { principal: 100 } });
  });
});

describe("exportLedgerCsv", () => {
  it("writes the account's ledger newest first, amounts as exact decimals", async () => {
    const acct = await seedAccount(database.db);
    const grant = await grantAt(database.db, acct.accountId, new Date(Date.now() - 3 * HOUR), "10");
    const [charge] = await writePastEvents(database.db, acct.accountId, [{ at: new Date(Date.now() - HOUR), amount: "0.25" }]);
    const open = await exportLedgerCsv(database.db, acct.accountId, { filters: { direction: "any" } });
    const [header, ...data] = parseCsv(await new Response(open()).text());
    expect(data.map((r) => r[0])).toEqual([charge.ledgerId, grant]);
    expect(data[0][header.indexOf("amount_credits")]).toBe("-0.25");
    expect(data[1][header.indexOf("balance_after")]).toBe("10");
  });
});
