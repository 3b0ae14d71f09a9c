import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { callApi, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog } from "../../testing/catalog";
import { parseCsv } from "../../testing/csv";
import { ledgerRowAt, writePastEvents } from "../../audit/testing-history";
import { canonicalJson } from "../../audit/canonical-json";
import { statementHash, type StatementBody } from "../../audit/credit-statements";
import { rows } from "../../db/row-sql";
import type { Database } from "../../db/types";

let database: Database;
let server: TestServer;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let broken: Awaited<ReturnType<typeof seedAccount>>;
let other: Awaited<ReturnType<typeof seedAccount>>;
let support: Awaited<ReturnType<typeof seedAccount>>;

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const COMPOUND = "builtin.finance.compound_interest";
const TEMPERATURE = "builtin.convert.temperature";
const now = new Date();
/** The month before last (M): over and sealed; M + 1 (last month) too; and the current month, open. */
const S = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 1);
const E = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1);
const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const M = monthOf(S);
const NEXT = monthOf(E);
const PREV = monthOf(S - 10 * DAY);
const CURRENT = monthOf(now.getTime());
const at = (ms: number) => new Date(ms);

const get = (path: string, token: string = acct.accessToken) => callApi(server.url, "GET", path, token);

let refundedExecution: string;
let boundaryExecution: string;
let breakRow: string;

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
  acct = await seedAccount(database.db, { credits: "0", name: "Statement Co" });
  broken = await seedAccount(database.db, { credits: "0" });
  other = await seedAccount(database.db, { credits: "3" });
  support = await seedAccount(database.db, { role: "support" });
  const db = database.db;
  const a = acct.accountId;

  // Month M − 1: a recharge, a bonus and a charge: opening of M = paid 46, bonus 10.
  await ledgerRowAt(db, a, { at: at(S - 10 * DAY), entryType: "grant_payment_recharge", amount: "50", kind: "paid" });
  await ledgerRowAt(db, a, { at: at(S - 9 * DAY), entryType: "grant_welcome_bonus", amount: "10", kind: "bonus" });
  await writePastEvents(db, a, [{ at: at(S - 5 * DAY), amount: "4" }]);
  // Month M.
  await ledgerRowAt(db, a, { at: at(S + DAY), entryType: "grant_invitation_reward", amount: "5", kind: "reward" });
  await ledgerRowAt(db, a, { at: at(S + 2 * DAY), entryType: "grant_payment_recharge", amount: "20", kind: "paid" });
  const [charged] = await writePastEvents(db, a, [{ at: at(S + 3 * DAY), amount: "2", toolId: COMPOUND }]);
  refundedExecution = charged.executionId!;
  await writePastEvents(db, a, [{ at: at(S + 3 * DAY + 60 * MIN), amount: "1.5", toolId: TEMPERATURE }]);
  // A charge drawn from the bonus, attributed by ledger_metadata.tool_id (no execution row).
  await ledgerRowAt(db, a, { at: at(S + 4 * DAY), entryType: "consume_tool_execute", amount: "-3", split: { bonus: "3" }, metadata: { tool_id: COMPOUND } });
  await writePastEvents(db, a, [{ at: at(S + 5 * DAY), eventType: "search", amount: "0.25" }]);
  await ledgerRowAt(db, a, { at: at(S + 6 * DAY), entryType: "refund_tool_execute", amount: "1", split: { paid: "-1" }, executionId: refundedExecution });
  await ledgerRowAt(db, a, { at: at(S + 7 * DAY), entryType: "expire_welcome_bonus", amount: "-2", kind: "bonus" });
  await writePastEvents(db, a, [{ at: at(S + 8 * DAY), eventType: "model_call", amount: "0.5", model: "gpt-test" }]);
  // The month's last second, and a Call that started before midnight and settled after it (it counts when it settled).
  await writePastEvents(db, a, [{ at: at(E - 1000), amount: "0.1", toolId: COMPOUND }]);
  const [boundary] = await writePastEvents(db, a, [{ at: at(E + 3 * MIN), amount: "0.75", toolId: COMPOUND }]);
  boundaryExecution = boundary.executionId!;
  await db.execute(sql`UPDATE executions SET created_at = ${new Date(E - 2 * MIN).toISOString()}::timestamptz WHERE id = ${boundaryExecution}`);

  // An account whose chain breaks in M: 2.5 credits reach its balance without a ledger row.
  const b = broken.accountId;
  await ledgerRowAt(db, b, { at: at(S + DAY), entryType: "grant_payment_recharge", amount: "10", kind: "paid" });
  await writePastEvents(db, b, [{ at: at(S + 2 * DAY), amount: "1" }]);
  breakRow = await ledgerRowAt(db, b, { at: at(S + 3 * DAY), entryType: "grant_payment_recharge", amount: "5", kind: "paid", offLedger: "2.5" });
  await writePastEvents(db, b, [{ at: at(S + 4 * DAY), amount: "0.5" }]);
});

const kinds = (paid: number, bonus: number, reward: number, total = paid + bonus + reward) => ({ paid, bonus, reward, total });

describe("GET /auth/credits/statements/{month}", () => {
  it("states a month's figures from the ledger and reconciles them (grants of two kinds, charges, a refund, an expiry, a Call across midnight)", async () => {
    const { status, body } = await get(`/auth/credits/statements/${M}`);
    expect(status).toBe(200);
    const s = body.data;
    const [tool] = rows<{ tool_name: string; provider_id: string; provider_name: string }>(
      await database.db.execute(sql`SELECT t.name AS tool_name, p.id AS provider_id, p.name AS provider_name FROM tools t JOIN providers p ON p.id = t.provider_id WHERE t.id = ${COMPOUND}`),
    );
    expect(s).toMatchObject({
      account_id: acct.accountId,
      account_name: "Statement Co",
      month: M,
      time_zone: "UTC",
      period_start: new Date(S).toISOString().replace(".000Z", ".000000Z"),
      period_end: new Date(E).toISOString().replace(".000Z", ".000000Z"),
      entry_count: 10,
      opening: kinds(46, 10, 0),
      closing: kinds(62.65, 5, 5, 72.65),
    });
    expect(s.grants.lines).toEqual([
      expect.objectContaining({ entry_type: "grant_payment_recharge", kind: "paid", entry_count: 1, amount_credits: 20 }),
      expect.objectContaining({ entry_type: "grant_invitation_reward", kind: "reward", entry_count: 1, amount_credits: 5 }),
    ]);
    expect(s.grants.total).toEqual(kinds(20, 0, 5));
    expect(s.consumption.lines).toEqual([
      { entry_type: "consume_tool_execute", kind: null, provider_id: tool.provider_id, provider_name: tool.provider_name, tool_id: COMPOUND, tool_name: tool.tool_name, entry_count: 3, amount_credits: 5.1 },
      expect.objectContaining({ entry_type: "consume_tool_execute", tool_id: TEMPERATURE, entry_count: 1, amount_credits: 1.5 }),
      expect.objectContaining({ entry_type: "consume_model_call", tool_id: null, entry_count: 1, amount_credits: 0.5 }),
      expect.objectContaining({ entry_type: "consume_tool_search", tool_id: null, entry_count: 1, amount_credits: 0.25 }),
    ]);
    expect(s.consumption.total).toEqual(kinds(4.35, 3, 0, 7.35));
    expect(s.refunds.lines).toEqual([expect.objectContaining({ entry_type: "refund_tool_execute", tool_id: COMPOUND, provider_id: tool.provider_id, amount_credits: 1 })]);
    expect(s.refunds.total).toEqual(kinds(1, 0, 0));
    expect(s.expiries.lines).toEqual([expect.objectContaining({ entry_type: "expire_welcome_bonus", kind: "bonus", amount_credits: 2 })]);
    expect(s.reconciliation).toEqual({
      opening_credits: 56,
      grants_credits: 25,
      consumption_credits: 7.35,
      refunds_credits: 1,
      expiries_credits: 2,
      expected_closing_credits: 72.65,
      closing_credits: 72.65,
      difference_credits: 0,
      reconciled: true,
      problems: [],
      problem_rows: 0,
    });
    // The Call settled after midnight opens the next month's consumption.
    const next = (await get(`/auth/credits/statements/${NEXT}`)).body.data;
    expect(next.opening).toEqual(kinds(62.65, 5, 5, 72.65));
    expect(next.consumption.lines).toEqual([expect.objectContaining({ tool_id: COMPOUND, entry_count: 1, amount_credits: 0.75 })]);
    expect(next.reconciliation).toMatchObject({ reconciled: true, expected_closing_credits: 71.9, closing_credits: 71.9 });
  });

  it("cuts the month at midnight in tz: in Asia/Tokyo the month's last UTC hours belong to the next month", async () => {
    const s = (await get(`/auth/credits/statements/${M}?tz=Asia/Tokyo`)).body.data;
    expect(s.time_zone).toBe("Asia/Tokyo");
    expect(s.period_end).toBe(new Date(E - 9 * 3_600_000).toISOString().replace(".000Z", ".000000Z"));
    expect(s.consumption.total.total).toBe(7.25);
    expect(s.reconciliation.reconciled).toBe(true);
  });

  it("names the row that breaks the chain and the difference it makes", async () => {
    const s = (await get(`/auth/credits/statements/${M}`, broken.accessToken)).body.data;
    expect(s.opening.total).toBe(0);
    // The kinds are the ledger's sums (13.5 paid); the total is the chain's, which holds the 2.5 that came without a row.
    expect(s.closing).toEqual(kinds(13.5, 0, 0, 16));
    expect(s.reconciliation).toMatchObject({ expected_closing_credits: 13.5, closing_credits: 16, difference_credits: 2.5, reconciled: false, problem_rows: 1 });
    expect(s.reconciliation.problems).toEqual([
      expect.objectContaining({ ledger_entry_id: breakRow, entry_type: "grant_payment_recharge", problem: "balance_before_mismatch", balance_before: 11.5, expected_credits: 9, difference_credits: 2.5 }),
    ]);
  });

  it("stores a past sealed month once: the same body and hash on every read, and the database refuses to change it", async () => {
    const first = (await get(`/auth/credits/statements/${M}`, broken.accessToken)).body.data;
    expect(first.final).toBe(true);
    expect(first.content_hash).toMatch(/^[0-9a-f]{64}$/);
    const [kept] = rows<{ body: StatementBody; content_hash: string; n: number }>(
      await database.db.execute(sql`SELECT body, content_hash, count(*) OVER ()::int AS n FROM credit_statements WHERE account_id = ${broken.accountId} AND month = ${M}`),
    );
    expect(kept.n).toBe(1);
    expect(kept.content_hash).toBe(first.content_hash);
    expect(statementHash(kept.body)).toBe(kept.content_hash);
    expect(canonicalJson(kept.body)).toContain(`"closing":{"bonus":"0","paid":"13.5","reward":"0","total":"16"}`);

    // A row written into the sealed month afterwards (a backfill) does not change the stored statement.
    await ledgerRowAt(database.db, broken.accountId, { at: at(S + 5 * DAY), entryType: "grant_payment_recharge", amount: "100", kind: "paid" });
    const again = (await get(`/auth/credits/statements/${M}`, broken.accessToken)).body.data;
    expect(again).toEqual(first);

    const failure = async (statement: Promise<unknown>) => {
      const err = await statement.then(() => undefined, (e: Error & { cause?: Error }) => e);
      return err?.cause?.message ?? err?.message;
    };
    expect(await failure(database.db.execute(sql`UPDATE credit_statements SET content_hash = 'x' WHERE account_id = ${broken.accountId}`))).toMatch(/immutable: UPDATE/);
    expect(await failure(database.db.execute(sql`DELETE FROM credit_statements WHERE account_id = ${broken.accountId}`))).toMatch(/immutable: DELETE/);
  });

  it("computes the current month live: not final, no hash, nothing stored", async () => {
    const s = (await get(`/auth/credits/statements/${CURRENT}`)).body.data;
    expect(s).toMatchObject({ month: CURRENT, final: false, content_hash: null, finalized_at: null, entry_count: 0, opening: kinds(61.9, 5, 5, 71.9) });
    expect(s.reconciliation.reconciled).toBe(true);
    const stored = rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM credit_statements WHERE account_id = ${acct.accountId} AND month = ${CURRENT}`));
    expect(stored[0].n).toBe(0);
  });

  it("answers a bad month or tz with the 400 -7 wrapper, and a month that has not started or precedes the ledger with 404", async () => {
    for (const path of [`/auth/credits/statements/2026-13`, `/auth/credits/statements/26-01`, `/auth/credits/statements/${M}?tz=Not/AZone`, `/auth/credits/statements/${M}/export?tz=Mars/Olympus`]) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.body, path).toMatchObject({ status: "failure", status_code: -7 });
    }
    const future = `${now.getUTCFullYear() + 1}-01`;
    expect((await get(`/auth/credits/statements/${future}`)).status).toBe(404);
    expect((await get(`/auth/credits/statements/2001-01`)).status).toBe(404);
    expect((await get(`/auth/credits/statements?tz=Nowhere/Land`)).status).toBe(400);
  });

  it("lets support read any account's statement (logged) and refuses other users another account's", async () => {
    const res = await get(`/auth/credits/statements/${M}?account_id=${acct.accountId}`, support.accessToken);
    expect(res.status).toBe(200);
    expect(res.body.data.account_id).toBe(acct.accountId);
    const log = rows<{ target_account_id: string; resource: string; query: Record<string, string> }>(
      await database.db.execute(sql`SELECT target_account_id, resource, query FROM support_access_log WHERE user_id = ${support.userId}`),
    );
    expect(log).toEqual([{ target_account_id: acct.accountId, resource: "GET /auth/credits/statements/:month", query: { month: M, account_id: acct.accountId } }]);

    for (const path of [`/auth/credits/statements/${M}?account_id=${acct.accountId}`, `/auth/credits/statements?account_id=${acct.accountId}`, `/auth/credits/statements/${M}/export?account_id=${acct.accountId}`]) {
      const denied = await get(path, other.accessToken);
      expect(denied.status, path).toBe(403);
      expect(JSON.stringify(denied.body)).not.toContain("72.65");
    }
    // The statements are a user's read (lib/api/access.ts): an API key is not accepted.
    expect((await get(`/auth/credits/statements/${M}`, other.apiKey)).status).toBe(401);
    // Another account's own statement shows its own ledger only.
    expect((await get(`/auth/credits/statements/${CURRENT}`, other.accessToken)).body.data.closing.total).toBe(3);
  });
});

describe("GET /auth/credits/statements", () => {
  it("lists the months from the first ledger month to the current one, newest first, past months final with their hash", async () => {
    const { status, body } = await get("/auth/credits/statements");
    expect(status).toBe(200);
    const months = [CURRENT, NEXT, M, PREV].filter((m, i, all) => all.indexOf(m) === i);
    expect(body.data.time_zone).toBe("UTC");
    expect(body.data.items.map((i: { month: string }) => i.month)).toEqual(months);
    expect(body.data.items[0]).toMatchObject({ month: CURRENT, status: "open", content_hash: null });
    for (const item of body.data.items.slice(1)) expect(item).toMatchObject({ status: "final", content_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const stmt = (await get(`/auth/credits/statements/${M}`)).body.data;
    expect(body.data.items.find((i: { month: string }) => i.month === M).content_hash).toBe(stmt.content_hash);
  });
});

describe("GET /auth/credits/statements/{month}/export", () => {
  it("writes one CSV line per figure with the exact amounts and the hash", async () => {
    const res = await get(`/auth/credits/statements/${M}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toContain(`credit-statement-${M}`);
    const table = parseCsv(res.body as string);
    expect(table[0]).toEqual(["section", "item", "kind", "amount_credits", "entry_count", "detail"]);
    const stmt = (await get(`/auth/credits/statements/${M}`)).body.data;
    const find = (section: string, item: string, kind: string) => table.find((r) => r[0] === section && r[1] === item && r[2] === kind);
    expect(find("statement", "content_hash", "")?.[5]).toBe(stmt.content_hash);
    expect(find("statement", "time_zone", "")?.[5]).toBe("UTC");
    expect(find("opening", "balance", "paid")?.[3]).toBe("46");
    expect(find("grants", "grant_invitation_reward", "reward")?.[3]).toBe("5");
    expect(find("consumption", `consume_tool_execute:${COMPOUND}`, "total")?.slice(3, 5)).toEqual(["5.1", "3"]);
    expect(find("consumption", "total", "bonus")?.[3]).toBe("3");
    expect(find("refunds", `refund_tool_execute:${COMPOUND}`, "total")?.[3]).toBe("1");
    expect(find("expiries", "expire_welcome_bonus", "bonus")?.[3]).toBe("2");
    expect(find("closing", "balance", "total")?.[3]).toBe("72.65");
    expect(find("reconciliation", "difference", "total")?.[3]).toBe("0");
    expect(find("reconciliation", "reconciled", "")?.[5]).toBe("true");
  });
});
