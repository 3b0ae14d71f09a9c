// audit verify finds each kind of broken money state: every check is shown failing on a database
// damaged the way that check exists to catch (bypassing the product, as a bug or an operator would).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { importDemoCatalog } from "../testing/catalog";
import { rows } from "../db/row-sql";
import type { Database } from "../db/types";
import { grantCredits } from "../billing/grant-credits";
import { setBudget } from "../billing/budgets";
import { verifyChecks, verifyLedger } from "./verify";
import { configurePayments, startFakeStripe, type FakeStripe } from "../testing/fake-stripe";
import { startCheckout } from "../payments/payments";
import { applyStripeEvent } from "../payments/stripe-events";

let database: Database;
let server: TestServer;

const COMPOUND = "builtin.finance.compound_interest";

let fakeStripe: FakeStripe;
let restorePayments: () => void;

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
  fakeStripe = await startFakeStripe();
  restorePayments = configurePayments(fakeStripe);
});

afterAll(async () => {
  restorePayments();
  await fakeStripe.close();
});

/** An account that bought 100 credits through Stripe (the product's own checkout and webhook code, against Stripe's stand-in). */
async function paidAccount(): Promise<{ accountId: string; paymentId: string; paymentIntentId: string }> {
  const seed = await seedAccount(database.db);
  const payment = await startCheckout(database.db, { accountId: seed.accountId, userId: seed.userId, credits: "100", actor: { type: "user", id: seed.userId, label: seed.email } });
  const paid = fakeStripe.pay(payment.stripe_checkout_session_id!);
  const applied = await applyStripeEvent(database.db, fakeStripe.event("checkout.session.completed", paid.session));
  expect(applied.outcome).toBe("granted");
  return { accountId: seed.accountId, paymentId: payment.payment_id, paymentIntentId: paid.paymentIntent.id as string };
}

/** An account with one charged Call (1 credit of 10) through the real API. */
async function chargedAccount(): Promise<{ accountId: string; executionId: string }> {
  const seed = await seedAccount(database.db, { credits: "10" });
  const res = await fetch(`${server.url}/api/v1/tools/execute`, {
    method: "POST",
    headers: { ...bearer(seed.apiKey), "Content-Type": "application/json" },
    body: JSON.stringify({ tool_id: COMPOUND, parameters: { principal: 100, annual_rate_percent: 5, years: 2 } }),
  });
  const body = (await res.json()) as { execution_id: string; execution_outcome: { charge_outcome: string } };
  expect(body.execution_outcome.charge_outcome).toBe("charged");
  return { accountId: seed.accountId, executionId: body.execution_id };
}

/** Checks seen failing in this file: the last test wants every check among them. */
const seen = new Set<string>();

async function checksFailing(accountId: string): Promise<string[]> {
  const failing = [...new Set((await verifyLedger(database.db, { accountId })).violations.map((v) => v.check))].sort();
  for (const check of failing) seen.add(check);
  return failing;
}

/** A ledger row appended by hand, chained after the account's last row unless `before` says otherwise. */
async function appendLedgerRow(accountId: string, row: { entryType: string; amount: string; executionId?: string; before?: string; metadata?: object }) {
  const last = rows<{ balance_after: string }>(
    await database.db.execute(sql`SELECT balance_after FROM credits_ledger WHERE account_id = ${accountId} ORDER BY seq DESC LIMIT 1`),
  )[0];
  const before = row.before ?? last.balance_after;
  await database.db.execute(sql`
    INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, execution_id, balance_before, balance_after, ledger_metadata, description)
    VALUES (${`led_test_${Math.random().toString(36).slice(2)}`}, ${accountId}, ${row.entryType}, ${row.amount}, 'test', ${row.executionId ?? null},
            ${before}, ${before}::numeric + ${row.amount}::numeric, ${JSON.stringify(row.metadata ?? { credit_kind: "bonus" })}::jsonb, 'by hand')`);
  await database.db.execute(sql`UPDATE credit_balances SET bonus_credits = bonus_credits + ${row.amount}::numeric WHERE account_id = ${accountId}`);
}

describe("audit verify", () => {
  it("is clean after real Calls, for one account and for all", async () => {
    const { accountId } = await chargedAccount();
    const one = await verifyLedger(database.db, { accountId });
    expect(one).toMatchObject({ ok: true, accounts_checked: 1, violations: [], truncated: [] });
    const all = await verifyLedger(database.db);
    expect(all.ok, JSON.stringify(all.violations)).toBe(true);
    expect(all.accounts_checked).toBeGreaterThanOrEqual(1);
  });

  it("a balance that drifted from its ledger", async () => {
    const { accountId } = await chargedAccount();
    await database.db.execute(sql`UPDATE credit_balances SET paid_credits = paid_credits + 1 WHERE account_id = ${accountId}`);
    expect(await checksFailing(accountId)).toEqual(["balance_equals_ledger"]);
    const report = await verifyLedger(database.db, { accountId });
    expect(report.ok).toBe(false);
    expect(report.violations).toEqual([{ account_id: accountId, check: "balance_equals_ledger", message: expect.stringMatching(/^balance 10\.0+ \(paid 1\.0+, .* but the ledger sums to 9\.0+ \(paid 0/) }]);
  });

  it("a broken balance chain, and a row that names no credit kind", async () => {
    const { accountId } = await chargedAccount();
    await appendLedgerRow(accountId, { entryType: "grant_payment_recharge", amount: "2", before: "100" });
    expect(await checksFailing(accountId)).toEqual(["ledger_chain"]);
    const other = await chargedAccount();
    await appendLedgerRow(other.accountId, { entryType: "grant_payment_recharge", amount: "2", metadata: {} });
    expect(await checksFailing(other.accountId)).toEqual(["balance_equals_ledger", "ledger_row_kind"]);
  });

  it("an execution charged twice", async () => {
    const { accountId, executionId } = await chargedAccount();
    await appendLedgerRow(accountId, { entryType: "consume_bonus", amount: "-1", executionId });
    expect(await checksFailing(accountId)).toEqual(["consume_row_has_one_event", "one_consume_row_per_execution"]);
  });

  it("a charged event without its ledger row, and an outcome that does not follow from the amount", async () => {
    const { accountId, executionId } = await chargedAccount();
    await database.db.execute(sql`UPDATE usage_events SET credits_ledger_entry_id = NULL WHERE execution_id = ${executionId}`);
    expect(await checksFailing(accountId)).toEqual(["charged_event_has_its_row", "consume_row_has_one_event"]);
    const other = await chargedAccount();
    await database.db.execute(sql`UPDATE usage_events SET charge_outcome = 'included' WHERE execution_id = ${other.executionId}`);
    expect(await checksFailing(other.accountId)).toEqual(["charge_outcome", "uncharged_event_has_no_row"]);
  });

  it("a finished Call without its usage event", async () => {
    const { accountId } = await chargedAccount();
    await database.db.execute(sql`
      INSERT INTO executions (id, account_id, tool_id, session_id, status, success, reason_code, charge_outcome, settled_credits, settled_at)
      VALUES ('exe_test_no_event', ${accountId}, ${COMPOUND}, 'exe_test_no_event', 'settled', true, 'result.valid', 'included', 0, now())`);
    expect(await checksFailing(accountId)).toEqual(["finished_execution_has_one_event"]);
    expect((await verifyLedger(database.db, { accountId })).violations).toEqual([
      { account_id: accountId, check: "finished_execution_has_one_event", message: "settled execution exe_test_no_event has 0 usage events" },
    ]);
  });

  it("a reservation left behind, and reserved credits nothing holds", async () => {
    const { accountId, executionId } = await chargedAccount();
    await database.db.execute(sql`UPDATE executions SET status = 'reserved', reserved_credits = 2, reservation_expires_at = now() - interval '10 minutes' WHERE id = ${executionId}`);
    expect(await checksFailing(accountId)).toEqual(["no_reservation_left_behind", "reserved_equals_live_reservations"]);
    await database.db.execute(sql`UPDATE credit_balances SET reserved_credits = 2 WHERE account_id = ${accountId}`);
    expect(await checksFailing(accountId)).toEqual(["no_reservation_left_behind"]);
    // Within the grace period (the sweeper has not had its turn yet) it is not counted.
    expect((await verifyLedger(database.db, { accountId, graceSeconds: 3600 })).ok).toBe(true);
  });

  it("expiring grants holding more than their kind's balance, and an expired one still holding credits", async () => {
    const { accountId } = await chargedAccount();
    await grantCredits(database.db, { accountId, amount: "5", type: "welcome_bonus", expiresAt: new Date(Date.now() + 3_600_000) });
    expect(await checksFailing(accountId)).toEqual([]);
    await database.db.execute(sql`
      INSERT INTO credit_grants (id, account_id, kind, amount_credits, remaining_credits, expires_at)
      VALUES (${`led_test_${accountId}`}, ${accountId}, 'bonus', 100, 100, now() + interval '1 day')`);
    expect(await checksFailing(accountId)).toEqual(["grant_lots_within_balance"]);
    expect((await verifyLedger(database.db, { accountId })).violations[0].message).toMatch(/^live bonus grants hold 105\.0+ credits but the bonus balance is 14\.0+$/);
    await database.db.execute(sql`UPDATE credit_grants SET expired_at = now() WHERE id = ${`led_test_${accountId}`}`);
    expect((await verifyLedger(database.db, { accountId })).violations).toEqual([
      { account_id: accountId, check: "grant_lots_within_balance", message: "1 expired bonus grant(s) still hold credits" },
    ]);
  });

  it("a budget whose spend or hold the ledger and the executions in flight do not bear out", async () => {
    const { accountId } = await chargedAccount();
    const budget = await setBudget(database.db, { accountId, scope: "account", limitCredits: "5", period: "month" });
    // Set after the Call: its spend is the opening, so the budget agrees with the ledger.
    expect(budget.spent_credits).toBe(1);
    expect(await checksFailing(accountId)).toEqual([]);
    await database.db.execute(sql`UPDATE budgets SET spent_credits = 3, reserved_credits = 2 WHERE id = ${budget.budget_id}`);
    expect(await checksFailing(accountId)).toEqual(["budget_reserved_equals_holds", "budget_spent_equals_ledger"]);
    const messages = (await verifyLedger(database.db, { accountId })).violations.map((v) => v.message).sort();
    expect(messages).toEqual([
      expect.stringMatching(new RegExp(`^budget ${budget.budget_id} counts 3\\.0+ credits spent since .* but the ledger holds 1\\.0+$`)),
      expect.stringMatching(new RegExp(`^budget ${budget.budget_id} holds 2\\.0+ credits but its reserved executions hold 0$`)),
    ]);
  });

  it("an activity log entry written around recordActivity (a number skipped, its chain broken)", async () => {
    const { accountId } = await chargedAccount();
    expect(await checksFailing(accountId)).toEqual([]);
    await database.db.execute(sql`
      INSERT INTO account_activity (account_id, seq, id, actor_type, action, hash)
      VALUES (${accountId}, 1000, ${`act_test_${accountId}`}, 'user', 'budget.removed', 'forged')`);
    expect(await checksFailing(accountId)).toEqual(["activity_log_continuity"]);
  });

  it("ledger rows and activity entries numbered 0 and below, by a writer who dropped the constraint, are each named with their row", async () => {
    const { accountId } = await chargedAccount();
    // A row at 0 that moves no balance, so that only its number is wrong; activity entries before number 1.
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`ALTER TABLE credits_ledger DROP CONSTRAINT credits_ledger_seq_positive`);
      await tx.execute(sql`ALTER TABLE account_activity DROP CONSTRAINT account_activity_seq_positive`);
      await tx.execute(sql`
        INSERT INTO credits_ledger (id, seq, account_id, entry_type, amount_credits, source_system, balance_before, balance_after, ledger_metadata, description)
        VALUES ('led_test_seq_zero', 0, ${accountId}, 'grant_welcome_bonus', 0, 'test', 0, 0, '{"credit_kind": "bonus"}', 'by hand')`);
      for (const seq of [-6, 0]) {
        await tx.execute(sql`
          INSERT INTO account_activity (account_id, seq, id, actor_type, action, hash)
          VALUES (${accountId}, ${seq}, ${`act_test_${seq}_${accountId}`}, 'user', 'credits.granted', 'forged')`);
      }
      await tx.execute(sql`ALTER TABLE credits_ledger ADD CONSTRAINT credits_ledger_seq_positive CHECK (seq > 0) NOT VALID`);
      await tx.execute(sql`ALTER TABLE account_activity ADD CONSTRAINT account_activity_seq_positive CHECK (seq > 0) NOT VALID`);
    });
    expect(await checksFailing(accountId)).toEqual(["seq_positive"]);
    expect((await verifyLedger(database.db, { accountId })).violations).toEqual([
      {
        account_id: accountId,
        check: "seq_positive",
        row: { log: "ledger", seq: 0, id: "led_test_seq_zero" },
        message: `ledger row led_test_seq_zero (account ${accountId}, seq 0) is numbered 0 or below: the log is numbered from 1, so it was written around the database's numbering`,
      },
      ...[-6, 0].map((seq) => ({
        account_id: accountId,
        check: "seq_positive",
        row: { log: "activity", seq, id: `act_test_${seq}_${accountId}` },
        message: `activity log entry act_test_${seq}_${accountId} (account ${accountId}, number ${seq}) is numbered 0 or below: the log is numbered from 1, so it was written around the database's numbering`,
      })),
    ]);
  });

  it("a support user made a member of a customer account around the product (separation of duties)", async () => {
    const { accountId } = await chargedAccount();
    const support = await seedAccount(database.db, { role: "support" });
    await database.db.execute(sql`INSERT INTO account_members (account_id, user_id, role) VALUES (${accountId}, ${support.userId}, 'support')`);
    expect(await checksFailing(accountId)).toEqual(["support_not_customer_member"]);
  });

  it("a Stripe grant whose payment says otherwise, and a succeeded payment without its grant", async () => {
    const { accountId, paymentId } = await paidAccount();
    expect(await checksFailing(accountId)).toEqual([]);
    await database.db.execute(sql`UPDATE payments SET credits = credits + 1 WHERE id = ${paymentId}`);
    expect(await checksFailing(accountId)).toEqual(["payment_grant_has_payment"]);
    expect((await verifyLedger(database.db, { accountId })).violations[0].message).toMatch(new RegExp(`^Stripe grant led_\\w+ \\(100\\.0+ credits\\) does not match payment ${paymentId} \\(account ${accountId}, succeeded, 101\\.0+ credits`));
    const other = await paidAccount();
    await database.db.execute(sql`
      INSERT INTO payments (id, account_id, status, credits, amount_minor, currency, ledger_entry_id)
      VALUES ('pay_test_without_grant', ${other.accountId}, 'succeeded', 5, 5, 'usd', 'led_test_missing')`);
    expect(await checksFailing(other.accountId)).toEqual(["payment_has_one_grant"]);
    expect((await verifyLedger(database.db, { accountId: other.accountId })).violations[0].message).toMatch(/^succeeded payment pay_test_without_grant \(5\.0+ credits\) has 0 grants in the ledger$/);
  });

  it("a reversal whose record and ledger rows disagree, and a Stripe reversal row with no reversal", async () => {
    const { accountId, paymentIntentId } = await paidAccount();
    const refund = fakeStripe.refund(paymentIntentId, 30);
    expect((await applyStripeEvent(database.db, fakeStripe.event("refund.created", refund))).outcome).toBe("reversed");
    expect(await checksFailing(accountId)).toEqual([]);
    await database.db.execute(sql`UPDATE payment_reversals SET credits_recovered = 20 WHERE stripe_id = ${refund.id as string}`);
    expect(await checksFailing(accountId)).toEqual(["payment_reversal_matches_ledger"]);
    expect((await verifyLedger(database.db, { accountId })).violations[0].message).toMatch(new RegExp(`\\(${refund.id as string}\\) owes 30\\.0+ credits and says 20\\.0+ were taken, but its ledger rows took 30\\.0+$`));

    const other = await paidAccount();
    const last = rows<{ balance_after: string }>(await database.db.execute(sql`SELECT balance_after FROM credits_ledger WHERE account_id = ${other.accountId} ORDER BY seq DESC LIMIT 1`))[0];
    await database.db.execute(sql`
      INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, source_ref_type, source_ref_id, balance_before, balance_after, ledger_metadata, description)
      VALUES ('led_test_orphan_reversal', ${other.accountId}, 'consume_payment_refund', -10, 'stripe', 'payment_reversal', 'rev_test_none',
              ${last.balance_after}, ${last.balance_after}::numeric - 10, '{"credit_split": {"bonus": "0", "reward": "0", "paid": "10"}}'::jsonb, 'by hand')`);
    await database.db.execute(sql`UPDATE credit_balances SET paid_credits = paid_credits - 10 WHERE account_id = ${other.accountId}`);
    expect(await checksFailing(other.accountId)).toEqual(["payment_refund_row_has_reversal"]);
  });

  it("a failed refund's undone reversal counts as netting to zero; reinstated around the product while its undo grant stays, or an undo grant naming no reversal, is found", async () => {
    const { accountId, paymentIntentId } = await paidAccount();
    const refund = fakeStripe.refund(paymentIntentId, 30);
    expect((await applyStripeEvent(database.db, fakeStripe.event("refund.created", refund))).outcome).toBe("reversed");
    const failed = fakeStripe.failRefund(refund.id as string);
    expect((await applyStripeEvent(database.db, fakeStripe.event("refund.failed", failed))).outcome).toBe("reversal_undone");
    // The reversal's -30 and its undo's +30 (a Stripe grant that names no payment) are both accounted for.
    expect(await checksFailing(accountId)).toEqual([]);
    await database.db.execute(sql`UPDATE payment_reversals SET failed_at = NULL, undo_ledger_entry_id = NULL WHERE stripe_id = ${refund.id as string}`);
    expect(await checksFailing(accountId)).toEqual(["payment_reversal_matches_ledger"]);
    expect((await verifyLedger(database.db, { accountId })).violations[0].message).toMatch(new RegExp(`\\(${refund.id as string}\\) stands, but undo grant led_\\w+ gave back 30\\.0+ credits$`));

    const other = await paidAccount();
    const last = rows<{ balance_after: string }>(await database.db.execute(sql`SELECT balance_after FROM credits_ledger WHERE account_id = ${other.accountId} ORDER BY seq DESC LIMIT 1`))[0];
    await database.db.execute(sql`
      INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, source_ref_type, source_ref_id, balance_before, balance_after, ledger_metadata, description)
      VALUES ('led_test_orphan_undo', ${other.accountId}, 'grant_payment_recharge', 10, 'stripe', 'payment_reversal_undo', 'rev_test_no_such',
              ${last.balance_after}, ${last.balance_after}::numeric + 10, '{"credit_kind": "paid"}'::jsonb, 'by hand')`);
    await database.db.execute(sql`UPDATE credit_balances SET paid_credits = paid_credits + 10 WHERE account_id = ${other.accountId}`);
    expect(await checksFailing(other.accountId)).toEqual(["payment_refund_row_has_reversal"]);
    expect((await verifyLedger(database.db, { accountId: other.accountId })).violations[0].message).toBe(
      "grant_payment_recharge row led_test_orphan_undo (10.000000 credits) names reversal rev_test_no_such, which is not the account's",
    );
  });

  it("every check was shown failing above", () => {
    expect([...seen].sort()).toEqual([...verifyChecks].sort());
  });
});
