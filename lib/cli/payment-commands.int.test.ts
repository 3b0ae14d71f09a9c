// `payments reconcile --csv` through the real CLI process, as an operator runs it: a database this
// file seeded (PostgreSQL by DATABASE_URL, or the embedded one held here behind the admin channel,
// as a running server holds it) and Stripe's stand-in started here, named by the environment.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { testDbKind } from "../testing/database";
import { cliDatabase, runCli } from "../testing/cli-process";
import { rows } from "../db/row-sql";
import { startTestServer } from "../testing/server";
import { callApi, seedAccount } from "../testing/fixtures";
import { parseCsv } from "../testing/csv";
import { configurePayments, deliverStripeEvent, startFakeStripe, TEST_WEBHOOK_SECRET, type FakeStripe } from "../testing/fake-stripe";
import { RECONCILIATION_CSV_COLUMNS } from "../payments/reconciliation-csv";
import type { Database } from "../db/types";


let env: Record<string, string>;
let database: Database;
let fake: FakeStripe;

/** The real CLI in a child process, with this run's database and Stripe's stand-in (configurePayments set them in process.env). */
const cli = (...args: string[]) => runCli(env, args);

beforeAll(async () => {
  fake = await startFakeStripe();
  const restore = configurePayments(fake);
  afterAll(async () => {
    restore();
    await fake.close();
  });
  ({ database, env } = await cliDatabase());
}, 120_000);

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

// Each case starts the CLI (about 3 s on an idle machine, several times that on a busy one).
describe(`payments reconcile through the real CLI (${testDbKind()})`, { timeout: 180_000 }, () => {
  it("--csv prints the header and a matched purchase's line with both sides' ids, then a total per currency", async () => {
    const server = await startTestServer(database);
    const owner = await seedAccount(database.db);
    const started = await callApi(server.url, "POST", "/auth/billing/checkout", owner.accessToken, { credits: 120 });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const paid = fake.pay(started.body.data.stripe_checkout_session_id);
    const granted = await deliverStripeEvent(`${server.url}/api/v1/billing/stripe/webhook`, fake.event("payment_intent.succeeded", paid.paymentIntent), { secret: TEST_WEBHOOK_SECRET });
    expect(granted.body.data.outcome).toBe("granted");
    const paymentId = started.body.data.payment_id as string;
    const txn = [...fake.balanceTransactions.values()].find((t) => t.source === paid.charge.id)!;
    const grant = rows<{ id: string }>(await database.db.execute(sql`SELECT id FROM credits_ledger WHERE entry_type = 'grant_payment_recharge' AND source_ref_id = ${paymentId}`));

    const r = await cli("payments", "reconcile", "--from", day(-1), "--to", day(2), "--csv");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe(
      "record,status,kind,created_at,account_id,currency,amount_minor,fee_minor,net_minor,stripe_source_amount_minor,ledger_amount_minor,credits," +
        "payment_id,reversal_id,ledger_entry_ids,stripe_balance_transaction_id,stripe_source_id,stripe_payment_intent_id,stripe_event_id,detail",
    );
    const [header, ...records] = parseCsv(r.stdout);
    expect(header).toEqual([...RECONCILIATION_CSV_COLUMNS]);
    const byColumn = records.map((rec) => Object.fromEntries(header.map((h, i) => [h, rec[i]])));
    const fee = String(Math.round(120 * 0.029) + 30);
    expect(byColumn.filter((rec) => rec.record === "line")).toEqual([
      {
        record: "line",
        status: "matched",
        kind: "charge",
        created_at: new Date(Number(txn.created) * 1000).toISOString(),
        account_id: owner.accountId,
        currency: "usd",
        amount_minor: "120",
        fee_minor: fee,
        net_minor: String(120 - Number(fee)),
        stripe_source_amount_minor: "120",
        ledger_amount_minor: "120",
        credits: "120",
        payment_id: paymentId,
        reversal_id: "",
        ledger_entry_ids: grant[0].id,
        stripe_balance_transaction_id: txn.id,
        stripe_source_id: paid.charge.id,
        stripe_payment_intent_id: paid.paymentIntent.id,
        stripe_event_id: "",
        detail: "",
      },
    ]);
    expect(byColumn.filter((rec) => rec.record === "total")).toEqual([
      expect.objectContaining({ currency: "usd", amount_minor: "120", fee_minor: fee, net_minor: String(120 - Number(fee)), detail: expect.stringContaining("credits_granted=120; credits_reversed=0; lines=1; unmatched=0") }),
    ]);
  });

  it("bad input exits non-zero with a clear message on stderr and prints no CSV", async () => {
    const reversed = await cli("payments", "reconcile", "--from", day(2), "--to", day(-1), "--csv");
    expect(reversed.code).toBe(1);
    expect(reversed.stderr).toContain("error: to must be after from (the period is [from, to))");
    expect(reversed.stdout).toBe("");
    const notADate = await cli("payments", "reconcile", "--from", "2026-13-01", "--to", day(1), "--csv");
    expect(notADate.code).toBe(1);
    expect(notADate.stderr).toContain('from must be a date (YYYY-MM-DD, UTC) or an ISO-8601 time, got "2026-13-01"');
    const missing = await cli("payments", "reconcile", "--from", day(-1), "--csv");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--to is required/);
  });
});
