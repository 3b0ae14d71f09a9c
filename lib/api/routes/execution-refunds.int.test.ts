import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { callApi, seedAccount } from "../../testing/fixtures";
import { assertLedgerInvariants } from "../../testing/invariants";
import { writeReviewCase } from "../../testing/review-case";
import { createUser } from "../../accounts/create-user";
import { DEFAULT_SCOPE, issueAccessToken } from "../../auth/jwt";
import { rows } from "../../db/row-sql";
import type { Database } from "../../db/types";


let database: Database;
let server: TestServer;
let owner: Awaited<ReturnType<typeof seedAccount>>;
let memberToken: string;
let support: Awaited<ReturnType<typeof seedAccount>>;

const api = (method: string, path: string, token: string, body?: unknown) => callApi(server.url, method, path, token, body);

const refunds = (executionId: string) => `/auth/executions/${executionId}/refunds`;

const logRows = async () =>
  rows<{ user_id: string; target_account_id: string; resource: string; query: Record<string, unknown> }>(
    await database.db.execute(sql`SELECT user_id, target_account_id, resource, query FROM support_access_log WHERE user_id = ${support.userId} ORDER BY created_at, id`),
  );

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startTestServer(database);
  owner = await seedAccount(database.db, { credits: "10" });
  const member = await createUser(database.db, { accountId: owner.accountId, email: `member-${owner.accountId}@example.test`, password: "correct horse battery", role: "member" });
  memberToken = (await issueAccessToken(database.db, { userId: member.user_id, accountId: owner.accountId, role: "member", scope: DEFAULT_SCOPE, ttlSeconds: 600 })).accessToken;
  support = await seedAccount(database.db, { role: "support" });
});

describe("POST /auth/executions/{execution_id}/refunds", () => {
  it("support refunds another account's review case (201, access-logged); owner and member get 403 and change nothing", async () => {
    const review = await writeReviewCase(database.db, owner.accountId, "2");
    for (const token of [owner.accessToken, memberToken]) {
      const refused = await api("POST", refunds(review.executionId), token, { reason: "I want my credits back" });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ status: "failure", status_code: 403 });
    }
    const n0 = (await logRows()).length;
    const done = await api("POST", refunds(review.executionId), support.accessToken, { amount_credits: "0.5", reason: "Provider outage on our side" });
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ status: "success", status_code: 0 });
    expect(done.body.data).toMatchObject({
      refund: {
        entry_type: "refund_tool_execute",
        amount_credits: 0.5,
        execution_id: review.executionId,
        usage_event_id: review.usageEventId,
        // The refund names the tool of the Call it gives back (its execution's).
        tool_id: "builtin.finance.compound_interest",
        source_system: "support",
        balance_before: { total_available_credits: 8 },
        balance_after: { total_available_credits: 8.5 },
        ledger_metadata: { reason: "Provider outage on our side", support_user_id: support.userId, refunded_entry_id: review.ledgerEntryId },
      },
      execution: { execution_id: review.executionId, account_id: owner.accountId, charge_outcome: "failed_charged_review", settled_credits: 2, refunded_credits: 0.5, refundable_credits: 1.5 },
    });
    expect((await logRows()).slice(n0)).toEqual([
      {
        user_id: support.userId,
        target_account_id: owner.accountId,
        resource: "POST /auth/executions/:execution_id/refunds",
        query: { execution_id: review.executionId, amount_credits: "0.5", reason: "Provider outage on our side", ledger_entry_id: done.body.data.refund.id },
      },
    ]);
    // Without an amount: all that is left. A number is accepted too.
    expect((await api("POST", refunds(review.executionId), support.accessToken, { amount_credits: 1, reason: "more" })).body.data.execution.refundable_credits).toBe(0.5);
    const rest = await api("POST", refunds(review.executionId), support.accessToken, { reason: "the rest" });
    expect(rest.body.data).toMatchObject({ refund: { amount_credits: 0.5 }, execution: { refunded_credits: 2, refundable_credits: 0 } });
    expect((await api("GET", "/auth/credits", owner.accessToken)).body.data.total_credits).toBe(10);
    await assertLedgerInvariants(database.db, owner.accountId);
  });

  it("answers 409 when nothing or not that much is left, or the Call is not in review; 404 for an unknown id; 422 for a bad body", async () => {
    const review = await writeReviewCase(database.db, owner.accountId, "1");
    const charged = await writeReviewCase(database.db, owner.accountId, "1", { outcome: "charged" });
    const n0 = (await logRows()).length;
    const over = await api("POST", refunds(review.executionId), support.accessToken, { amount_credits: "1.5", reason: "too much" });
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ status: "failure", status_code: 409, message: expect.stringContaining("Only 1 credit of execution") });
    const notReview = await api("POST", refunds(charged.executionId), support.accessToken, { reason: "it worked" });
    expect(notReview.status).toBe(409);
    expect(notReview.body.message).toContain("only failed_charged_review charges can be refunded");
    expect((await api("POST", refunds("exe_doesnotexist"), support.accessToken, { reason: "x" })).status).toBe(404);
    for (const body of [{}, { reason: "" }, { reason: "x".repeat(501) }, { reason: "x", amount_credits: 0 }, { reason: "x", amount_credits: "-1" }, { reason: "x", amount_credits: "0.0000001" }, { reason: "x", amount_credits: 1e-7 }]) {
      const bad = await api("POST", refunds(review.executionId), support.accessToken, body);
      expect(bad.status, JSON.stringify(body)).toBe(422);
      expect(bad.body.detail[0].loc[0]).toBe("body");
    }
    expect((await logRows()).length).toBe(n0);
  });

  it("two concurrent refunds of the whole charge: one 201, one 409, credited once", async () => {
    const review = await writeReviewCase(database.db, owner.accountId, "1");
    const before = (await api("GET", "/auth/credits", owner.accessToken)).body.data.total_credits;
    const answers = await Promise.all([1, 2].map(() => api("POST", refunds(review.executionId), support.accessToken, { amount_credits: "1", reason: "race" })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect((await api("GET", "/auth/credits", owner.accessToken)).body.data.total_credits).toBe(before + 1);
    await assertLedgerInvariants(database.db, owner.accountId);
  });
});

describe("GET /auth/executions/{execution_id}/refunds", () => {
  it("the account's users read their Call's refunds; support reads any account's, logged; others get 404", async () => {
    const review = await writeReviewCase(database.db, owner.accountId, "3");
    await api("POST", refunds(review.executionId), support.accessToken, { amount_credits: "1", reason: "first part" });
    for (const token of [owner.accessToken, memberToken]) {
      const own = await api("GET", refunds(review.executionId), token);
      expect(own.status).toBe(200);
      expect(own.body.data).toMatchObject({
        items: [{ entry_type: "refund_tool_execute", amount_credits: 1, ledger_metadata: { reason: "first part" } }],
        execution: { settled_credits: 3, refunded_credits: 1, refundable_credits: 2 },
      });
    }
    const n0 = (await logRows()).length;
    expect((await api("GET", refunds(review.executionId), support.accessToken)).body.data.items).toHaveLength(1);
    expect((await logRows()).slice(n0)).toEqual([
      { user_id: support.userId, target_account_id: owner.accountId, resource: "GET /auth/executions/:execution_id/refunds", query: { execution_id: review.executionId } },
    ]);
    const stranger = await seedAccount(database.db, { credits: "1" });
    expect((await api("GET", refunds(review.executionId), stranger.accessToken)).status).toBe(404);
  });
});

describe("a refunded case in the audit trail", () => {
  it("leaves the review queue once fully refunded, shows in the lookup timeline and the ledger, and the ledger stays ready", async () => {
    const review = await writeReviewCase(database.db, owner.accountId, "2");
    const inReview = async () =>
      ((await api("GET", `/auth/usage/history/v2?anomaly=failed_charged_review&execution_id=${review.executionId}`, owner.accessToken)).body.data.items as { id: string; anomalies: string[] }[]).map(
        (i) => [i.id, i.anomalies],
      );
    expect(await inReview()).toEqual([[review.usageEventId, ["failed_charged_review"]]]);
    await api("POST", refunds(review.executionId), support.accessToken, { amount_credits: "1", reason: "half" });
    expect(await inReview()).toEqual([[review.usageEventId, ["failed_charged_review"]]]);
    let trace = (await api("GET", `/auth/lookup?id=${review.executionId}`, owner.accessToken)).body.data;
    expect(trace.calls[0]).toMatchObject({ execution: { refunded_credits: 1 }, reconciliation: { status: "review", missing_links: [] } });

    const last = await api("POST", refunds(review.executionId), support.accessToken, { reason: "the rest" });
    expect(await inReview()).toEqual([]);
    // The event keeps its recorded outcome: the contract's charge_outcome filter still finds it.
    const byOutcome = (await api("GET", `/auth/usage/history/v2?charge_outcome=failed_charged_review&execution_id=${review.executionId}`, owner.accessToken)).body.data.items;
    expect(byOutcome.map((i: { id: string; anomalies: string[] }) => [i.id, i.anomalies])).toEqual([[review.usageEventId, []]]);

    trace = (await api("GET", `/auth/lookup?id=${review.executionId}`, owner.accessToken)).body.data;
    expect(trace.reconciliation).toMatchObject({ status: "refunded", problems: [] });
    expect(trace.calls[0]).toMatchObject({
      execution: { settled_credits: 2, refunded_credits: 2 },
      reconciliation: { status: "refunded", missing_links: [] },
      ledger_entries: [{ id: review.ledgerEntryId, amount_credits: -2 }, { amount_credits: 1 }, { id: last.body.data.refund.id, amount_credits: 1 }],
    });
    expect(trace.calls[0].balance_changes.every((b: { continuous: boolean }) => b.continuous)).toBe(true);
    const refundSteps = trace.timeline.filter((s: { step: string }) => s.step === "refund");
    expect(refundSteps.map((s: { ref_id: string; summary: string }) => [s.ref_id, s.summary])).toEqual([
      [expect.any(String), "Refund +1 credit by support: half"],
      [last.body.data.refund.id, "Refund +1 credit by support: the rest"],
    ]);

    const ledger = (await api("GET", "/auth/credits/ledger?entry_type=refund_tool_execute&direction=grant", owner.accessToken)).body.data.items;
    expect(ledger.map((l: { id: string }) => l.id)).toContain(last.body.data.refund.id);
    expect((await api("GET", "/auth/credits/ledger?entry_type=refund_tool_execute&direction=consume", owner.accessToken)).body.data.items).toEqual([]);
    const readiness = (await api("GET", "/auth/credits/ledger-readiness", owner.accessToken)).body.data;
    expect(readiness.checks.filter((c: { passed: boolean }) => !c.passed)).toEqual([]);
    expect(readiness.ready).toBe(true);
    await assertLedgerInvariants(database.db, owner.accountId);
  });
});
