import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { assertLedgerInvariants } from "../testing/invariants";
import { writeReviewCase } from "../testing/review-case";
import { createAccount } from "../accounts/create-account";
import { rows } from "../db/row-sql";
import type { Database } from "../db/types";
import { DomainError } from "../errors";
import { grantCredits } from "./grant-credits";
import { getBalance } from "./get-balance";
import { listExecutionRefunds } from "./list-execution-refunds";
import { type RefundInput, refundExecution } from "./refund-execution";

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase({ poolSize: 4 });
});

const SUPPORT = { userId: "usr_support_test", role: "support" as const };
const ACCESS = { resource: "POST /auth/executions/:execution_id/refunds", query: { via: "test" } };

const refund = (input: RefundInput, actor: { userId: string; role: "support" | "owner" | "member" } = SUPPORT) =>
  refundExecution(database.db, { actor, input, access: { ...ACCESS, query: { ...ACCESS.query, execution_id: input.executionId } } });

/** An account with 2 bonus, 1 reward and 7 paid credits (10 in all). */
async function fundedAccount(name: string) {
  const { account_id } = await createAccount(database.db, { name, credits: "2" });
  await grantCredits(database.db, { accountId: account_id, amount: "1", type: "invitation_reward" });
  await grantCredits(database.db, { accountId: account_id, amount: "7", type: "payment_recharge" });
  return account_id;
}

const kinds = async (accountId: string) => {
  const b = await getBalance(database.db, accountId);
  return { bonus: b.bonus_credits, reward: b.reward_credits, paid: b.paid_credits, total: b.total_credits };
};

const refundedCredits = async (executionId: string) =>
  rows<{ refunded: string }>(await database.db.execute(sql`SELECT refunded_credits::text AS refunded FROM executions WHERE id = ${executionId}`))[0].refunded;

const accessLog = async (accountId: string) =>
  rows<{ user_id: string; resource: string; query: Record<string, unknown> }>(
    await database.db.execute(sql`SELECT user_id, resource, query FROM support_access_log WHERE target_account_id = ${accountId} ORDER BY created_at, id`),
  );

async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe("refundExecution", () => {
  it("a full refund gives the whole charge back to the kinds it came from, in one linked refund row, logged", async () => {
    const a = await fundedAccount("full");
    const review = await writeReviewCase(database.db, a, "4");
    expect(review.split).toEqual({ bonus: "2.000000", reward: "1.000000", paid: "1.000000" });
    expect(await kinds(a)).toEqual({ bonus: 0, reward: 0, paid: 6, total: 6 });

    const { entry, execution } = await refund({ accountId: a, executionId: review.executionId, reason: "Provider outage" });
    expect(execution).toEqual({
      execution_id: review.executionId,
      account_id: a,
      charge_outcome: "failed_charged_review",
      settled_credits: "4",
      refunded_credits: "4",
      refundable_credits: "0",
    });
    expect(entry).toMatchObject({
      entry_type: "refund_tool_execute",
      amount_credits: "4.000000",
      source_system: "support",
      execution_id: review.executionId,
      usage_event_id: review.usageEventId,
      balance_before: "6.000000",
      balance_after: "10.000000",
      ledger_metadata: {
        reason: "Provider outage",
        support_user_id: SUPPORT.userId,
        refunded_entry_id: review.ledgerEntryId,
        credit_split: { paid: "-1.000000", reward: "-1.000000", bonus: "-2.000000" },
      },
    });
    expect(await kinds(a)).toEqual({ bonus: 2, reward: 1, paid: 7, total: 10 });
    expect(await refundedCredits(review.executionId)).toBe("4.000000");
    expect(await accessLog(a)).toEqual([
      { user_id: SUPPORT.userId, resource: ACCESS.resource, query: { via: "test", execution_id: review.executionId, ledger_entry_id: entry.id } },
    ]);
    await assertLedgerInvariants(database.db, a);
  });

  it("partial refunds give back paid, then reward, then bonus, up to the charge and never beyond", async () => {
    const a = await fundedAccount("partial");
    const review = await writeReviewCase(database.db, a, "5");
    expect(review.split).toEqual({ bonus: "2.000000", reward: "1.000000", paid: "2.000000" });
    const steps: [string, Record<string, string>, Awaited<ReturnType<typeof kinds>>, string][] = [
      ["1.5", { paid: "-1.500000", reward: "0.000000", bonus: "0.000000" }, { bonus: 0, reward: 0, paid: 6.5, total: 6.5 }, "3.5"],
      ["1", { paid: "-0.500000", reward: "-0.500000", bonus: "0.000000" }, { bonus: 0, reward: 0.5, paid: 7, total: 7.5 }, "2.5"],
      ["2.499999", { paid: "0.000000", reward: "-0.500000", bonus: "-1.999999" }, { bonus: 1.999999, reward: 1, paid: 7, total: 9.999999 }, "0.000001"],
    ];
    for (const [amount, split, after, left] of steps) {
      const { entry, execution } = await refund({ accountId: a, executionId: review.executionId, amount, reason: `part ${amount}` });
      expect((entry.ledger_metadata as { credit_split: unknown }).credit_split).toEqual(split);
      expect(await kinds(a)).toEqual(after);
      expect(execution.refundable_credits).toBe(left);
      await assertLedgerInvariants(database.db, a);
    }
    const over = await rejection(refund({ accountId: a, executionId: review.executionId, amount: "0.000002", reason: "one micro-credit too many" }));
    expect(over.code).toBe("conflict");
    expect(over.message).toContain("Only 0.000001 credits of execution");
    const { execution } = await refund({ accountId: a, executionId: review.executionId, reason: "the rest" });
    expect(execution).toMatchObject({ refunded_credits: "5", refundable_credits: "0" });
    expect(await kinds(a)).toEqual({ bonus: 2, reward: 1, paid: 7, total: 10 });
    const done = await rejection(refund({ accountId: a, executionId: review.executionId, reason: "again" }));
    expect(done.message).toBe(`Execution ${review.executionId} is already fully refunded (5 credits)`);

    const listed = await listExecutionRefunds(database.db, { accountId: a, executionId: review.executionId });
    expect(listed.entries.map((e) => e.amount_credits)).toEqual(["1.500000", "1.000000", "2.499999", "0.000001"]);
    expect(listed.execution).toMatchObject({ settled_credits: "5", refunded_credits: "5", refundable_credits: "0" });
    expect(await accessLog(a)).toHaveLength(4);
    await assertLedgerInvariants(database.db, a);
  });

  it("refuses more than the charge and changes nothing", async () => {
    const a = await fundedAccount("over");
    const review = await writeReviewCase(database.db, a, "1");
    const err = await rejection(refund({ accountId: a, executionId: review.executionId, amount: "1.000001", reason: "too much" }));
    expect(err.code).toBe("conflict");
    expect(await refundedCredits(review.executionId)).toBe("0.000000");
    expect((await kinds(a)).total).toBe(9);
    expect(await accessLog(a)).toEqual([]);
    await assertLedgerInvariants(database.db, a);
  });

  it("two concurrent refunds of the whole charge: exactly one succeeds", async () => {
    const a = await fundedAccount("race");
    const review = await writeReviewCase(database.db, a, "3");
    const results = await Promise.allSettled([
      refund({ accountId: a, executionId: review.executionId, amount: "3", reason: "first" }),
      refund({ accountId: a, executionId: review.executionId, amount: "3", reason: "second" }),
      refund({ accountId: a, executionId: review.executionId, reason: "all that is left" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect((r.reason as DomainError).code).toBe("conflict");
    expect(await refundedCredits(review.executionId)).toBe("3.000000");
    expect((await kinds(a)).total).toBe(10);
    expect(await accessLog(a)).toHaveLength(1);
    await assertLedgerInvariants(database.db, a);
  });

  it("ten concurrent partial refunds of a 4-credit charge: eight succeed, and each kind gets back exactly what it gave", async () => {
    const a = await fundedAccount("race-kinds");
    const review = await writeReviewCase(database.db, a, "4");
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => refund({ accountId: a, executionId: review.executionId, amount: "0.5", reason: `part ${i}` })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(8);
    expect(await refundedCredits(review.executionId)).toBe("4.000000");
    expect(await kinds(a)).toEqual({ bonus: 2, reward: 1, paid: 7, total: 10 });
    await assertLedgerInvariants(database.db, a);
  });

  it("an execution of another account, or no execution at all, is not found", async () => {
    const a = await fundedAccount("owner");
    const b = await fundedAccount("other");
    const review = await writeReviewCase(database.db, a, "1");
    for (const input of [
      { accountId: b, executionId: review.executionId },
      { accountId: a, executionId: "exe_doesnotexist" },
    ]) {
      const err = await rejection(refund({ ...input, reason: "wrong account" }));
      expect(err.code).toBe("not_found");
    }
    expect(await refundedCredits(review.executionId)).toBe("0.000000");
    expect(await accessLog(b)).toEqual([]);
  });

  it("refuses a Call that is not failed_charged_review", async () => {
    const a = await fundedAccount("charged");
    const charged = await writeReviewCase(database.db, a, "1", { outcome: "charged" });
    const err = await rejection(refund({ accountId: a, executionId: charged.executionId, reason: "not a review case" }));
    expect(err.code).toBe("conflict");
    expect(err.message).toContain("its charge outcome is charged; only failed_charged_review charges can be refunded");
    await assertLedgerInvariants(database.db, a);
  });

  it("refuses anyone but support, and malformed amounts or reasons, before touching the database", async () => {
    const a = await fundedAccount("input");
    const review = await writeReviewCase(database.db, a, "1");
    for (const role of ["owner", "member"] as const) {
      expect((await rejection(refund({ accountId: a, executionId: review.executionId, reason: "mine" }, { userId: "usr_x", role }))).code).toBe("forbidden");
    }
    for (const amount of ["0", "-1", "0.0000001", "1e-3", "abc", ""]) {
      expect((await rejection(refund({ accountId: a, executionId: review.executionId, amount, reason: "bad amount" }))).code, amount).toBe("invalid_input");
    }
    for (const reason of ["", "   ", "x".repeat(501)]) {
      expect((await rejection(refund({ accountId: a, executionId: review.executionId, reason }))).code).toBe("invalid_input");
    }
    expect(await refundedCredits(review.executionId)).toBe("0.000000");
  });
});
