import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SMTPServer } from "smtp-server";
import { simpleParser } from "mailparser";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { callApi, seedAccount } from "../../testing/fixtures";
import { parseCsv } from "../../testing/csv";
import { writeReviewCase } from "../../testing/review-case";
import { rows } from "../../db/row-sql";
import type { Database } from "../../db/types";
import { acceptInvitation } from "../../accounts/members";
import { issueAccessToken, DEFAULT_SCOPE } from "../../auth/jwt";
import { expireCreditGrants } from "../../billing/expire-grants";
import { runCommand } from "../../cli/commands";

interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
}

// A local SMTP receiver: the invitations of this file are mailed to it (SMTP_URL is read once, at the first env()).
const inbox: ReceivedMail[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  logger: false,
  onRcptTo(address, _session, callback) {
    // An address the receiver refuses: the invitation must stand without its mail.
    if (address.address.startsWith("bounce@")) return callback(new Error("550 no such mailbox"));
    callback();
  },
  onData(stream, _session, callback) {
    simpleParser(stream)
      .then((mail) => {
        const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
        inbox.push({ to: to?.value[0]?.address ?? "", subject: mail.subject ?? "", text: mail.text ?? "" });
        callback();
      })
      .catch(callback);
  },
});
await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
process.env.SMTP_URL = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
process.env.MAIL_FROM = "Tollgate Test <noreply@tollgate.test>";
process.env.PUBLIC_URL = "https://tollgate.example";
afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

let database: Database;
let server: TestServer;
let owner: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startTestServer(database);
  owner = await seedAccount(database.db, { credits: "50" });
});

const api = (method: string, path: string, token: string, body?: unknown) => callApi(server.url, method, path, token, body);

interface Entry {
  activity_id: string;
  seq: number;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  object_type: string | null;
  object_id: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  ip_address: string | null;
}

async function activity(token: string, query = ""): Promise<Entry[]> {
  const res = await api("GET", `/auth/account/activity${query ? `?${query}` : ""}`, token);
  expect(res.status).toBe(200);
  return res.body.data.items as Entry[];
}

/** The token in an invitation mail's link. */
function linkToken(text: string): string {
  const match = /https:\/\/tollgate\.example\/invite\/(tgi_[A-Za-z0-9_-]+)/.exec(text);
  if (!match) throw new Error(`no invitation link in: ${text}`);
  return decodeURIComponent(match[1]);
}

async function waitForMail(to: string): Promise<ReceivedMail> {
  for (let i = 0; i < 100; i++) {
    const found = inbox.find((m) => m.to === to);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no mail to ${to}`);
}

/** Invites `email` through the API as `owner`, reads the mail and joins through its link; returns the new member with a token. */
async function joinByMail(acct: { accountId: string; accessToken: string }, email: string, role: "owner" | "member" = "member") {
  const invited = await api("POST", "/auth/account/invitations", acct.accessToken, { email, role });
  expect(invited.status).toBe(200);
  const mail = await waitForMail(email);
  const joined = await acceptInvitation(database.db, { token: linkToken(mail.text), password: "a long password" });
  const { accessToken } = await issueAccessToken(database.db, { userId: joined.user_id, accountId: acct.accountId, role, scope: DEFAULT_SCOPE, ttlSeconds: 600 });
  return { userId: joined.user_id, accessToken, invited: invited.body.data };
}

describe("members and invitations over the API", () => {
  it("an owner invites by email: the mail carries the single-use link, the invitee joins through it and is listed", async () => {
    const { userId, invited } = await joinByMail(owner, "new.colleague@example.test");
    expect(invited).toMatchObject({
      invitation: { email: "new.colleague@example.test", role: "member", status: "pending" },
      invitation_url: expect.stringMatching(/^https:\/\/tollgate\.example\/invite\/tgi_/),
      mail_sent: true,
      mail_error: null,
    });
    const mail = inbox.find((m) => m.to === "new.colleague@example.test")!;
    expect(mail.subject).toContain("Join");
    expect(mail.text).toContain(invited.invitation_url);
    expect(mail.text).toContain(owner.email);

    const members = await api("GET", "/auth/account/members", owner.accessToken);
    expect(members.status).toBe(200);
    expect(members.body.data.items).toEqual([
      expect.objectContaining({ user_id: owner.userId, email: owner.email, role: "owner", two_factor: false }),
      expect.objectContaining({ user_id: userId, email: "new.colleague@example.test", role: "member", joined_at: expect.any(String), last_signed_in_at: null, api_keys: [] }),
    ]);
    const invitations = await api("GET", "/auth/account/invitations", owner.accessToken);
    expect(invitations.body.data.items[0]).toMatchObject({ invitation_id: invited.invitation.invitation_id, status: "accepted" });
  });

  it("a mail the server refuses leaves the invitation standing: mail_sent false with the reason, the link still returned", async () => {
    const res = await api("POST", "/auth/account/invitations", owner.accessToken, { email: "bounce@example.test", role: "member" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ mail_sent: false, mail_error: expect.stringContaining("no such mailbox"), invitation: { status: "pending" } });
    expect(res.body.data.invitation_url).toMatch(/\/invite\/tgi_/);
    const listed = (await api("GET", "/auth/account/invitations", owner.accessToken)).body.data.items;
    expect(listed.find((i: { email: string }) => i.email === "bounce@example.test")).toMatchObject({ status: "pending" });
  });

  it("members read but only owners change: a member gets 403 on every change", async () => {
    const acct = await seedAccount(database.db);
    const member = await joinByMail(acct, `reader-${acct.accountId}@example.test`);
    expect((await api("GET", "/auth/account/members", member.accessToken)).status).toBe(200);
    expect((await api("GET", "/auth/account/invitations", member.accessToken)).status).toBe(200);
    expect((await api("GET", "/auth/account/activity", member.accessToken)).status).toBe(200);
    const refusals = await Promise.all([
      api("POST", "/auth/account/invitations", member.accessToken, { email: "x@example.test", role: "member" }),
      api("PATCH", `/auth/account/members/${acct.userId}`, member.accessToken, { role: "member" }),
      api("DELETE", `/auth/account/members/${acct.userId}`, member.accessToken),
      api("DELETE", "/auth/account/invitations/inv_anything", member.accessToken),
    ]);
    expect(refusals.map((r) => r.status)).toEqual([403, 403, 403, 403]);
    expect(refusals[0].body.message).toContain("Only the account's owner may invite members");
  });

  it("the last owner can be neither demoted nor removed (409); another owner makes it possible", async () => {
    const acct = await seedAccount(database.db);
    const demote = await api("PATCH", `/auth/account/members/${acct.userId}`, acct.accessToken, { role: "member" });
    expect(demote.status).toBe(409);
    expect(demote.body.message).toContain("last owner");
    expect((await api("DELETE", `/auth/account/members/${acct.userId}`, acct.accessToken)).status).toBe(409);
    expect((await api("PATCH", `/auth/account/members/usr_nobody`, acct.accessToken, { role: "member" })).status).toBe(404);
    expect((await api("PATCH", `/auth/account/members/${acct.userId}`, acct.accessToken, { role: "support" })).status).toBe(422);

    const second = await joinByMail(acct, `second-${acct.accountId}@example.test`, "owner");
    const changed = await api("PATCH", `/auth/account/members/${acct.userId}`, second.accessToken, { role: "member" });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toEqual({ user_id: acct.userId, role: "member", changed: true });
    const log = await activity(second.accessToken, "action=member.role_changed");
    expect(log[0]).toMatchObject({ actor_type: "user", actor_id: second.userId, object_id: acct.userId, before: { role: "owner" }, after: { role: "member" } });
  });

  it("a removed member's token is refused at its next request, and the keys they created are revoked with the removal", async () => {
    const acct = await seedAccount(database.db);
    const member = await joinByMail(acct, `leaver-${acct.accountId}@example.test`);
    const key = (await api("POST", "/auth/api-keys", member.accessToken, { name: "leaver's key" })).body.data;
    const old = (await api("POST", "/auth/api-keys", member.accessToken, { name: "already revoked" })).body.data;
    expect((await api("DELETE", `/auth/api-keys/${old.api_key_id}`, member.accessToken)).status).toBe(200);
    const ownersKey = (await api("POST", "/auth/api-keys", acct.accessToken, { name: "owner's key" })).body.data;
    const listed = (await api("GET", "/auth/account/members", acct.accessToken)).body.data.items;
    expect(listed.find((m: { user_id: string }) => m.user_id === member.userId).api_keys).toEqual(
      expect.arrayContaining([{ api_key_id: key.api_key_id, name: "leaver's key", prefix: key.prefix, revoked: false }]),
    );
    expect((await api("GET", "/auth/credits", key.api_key)).status).toBe(200);

    const removed = await api("DELETE", `/auth/account/members/${member.userId}`, acct.accessToken);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({
      user_id: member.userId,
      removed: true,
      api_keys_revoked: [{ api_key_id: key.api_key_id, name: "leaver's key", prefix: key.prefix }],
      api_keys_kept: [],
    });
    expect((await api("GET", "/auth/account/members", member.accessToken)).status).toBe(401);
    // The key is refused from the next request; the owner's own key still works.
    expect((await api("GET", "/auth/credits", key.api_key)).status).toBe(401);
    expect((await api("GET", "/auth/credits", ownersKey.api_key)).status).toBe(200);
    expect((await api("DELETE", `/auth/account/members/${member.userId}`, acct.accessToken)).status).toBe(404);
    const keys = (await api("GET", "/auth/api-keys", acct.accessToken)).body.data.items as { api_key_id: string; revoked_at: string | null }[];
    expect(keys.find((k) => k.api_key_id === key.api_key_id)?.revoked_at).not.toBeNull();

    // The log: the removal names the revoked key, and the key's own revocation says why and who.
    expect(await activity(acct.accessToken, `object_id=${member.userId}&action=member.removed`)).toMatchObject([
      { actor_type: "user", actor_id: acct.userId, before: { role: "member" }, after: { api_keys_revoked: [key.api_key_id] } },
    ]);
    expect(await activity(acct.accessToken, `object_id=${key.api_key_id}&action=api_key.revoked`)).toMatchObject([
      { actor_type: "user", actor_id: acct.userId, after: { revoked: true, reason: "member_removed" } },
    ]);
    // The key revoked before is not revoked again.
    expect(await activity(acct.accessToken, `object_id=${old.api_key_id}&action=api_key.revoked`)).toMatchObject([{ actor_id: member.userId }]);
  });

  it("keep_keys=true keeps the member's keys working, listed for review, and the log says they were kept", async () => {
    const acct = await seedAccount(database.db);
    const member = await joinByMail(acct, `keeper-${acct.accountId}@example.test`);
    const key = (await api("POST", "/auth/api-keys", member.accessToken, { name: "pipeline" })).body.data;
    expect((await api("DELETE", `/auth/account/members/${member.userId}?keep_keys=maybe`, acct.accessToken)).status).toBe(422);

    const removed = await api("DELETE", `/auth/account/members/${member.userId}?keep_keys=true`, acct.accessToken);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({
      user_id: member.userId,
      removed: true,
      api_keys_revoked: [],
      api_keys_kept: [{ api_key_id: key.api_key_id, name: "pipeline", prefix: key.prefix }],
    });
    expect((await api("GET", "/auth/account/members", member.accessToken)).status).toBe(401);
    expect((await api("GET", "/auth/credits", key.api_key)).status).toBe(200);
    expect(await activity(acct.accessToken, `object_id=${member.userId}&action=member.removed`)).toMatchObject([{ after: { api_keys_kept: [key.api_key_id] } }]);
    expect(await activity(acct.accessToken, `object_id=${key.api_key_id}&action=api_key.revoked`)).toEqual([]);
  });

  it("support staff and customers never share an account: an invitation or a role change that would mix them is 409 naming the rule", async () => {
    const support = await seedAccount(database.db, { role: "support" });
    const acct = await seedAccount(database.db);
    const invited = await api("POST", "/auth/account/invitations", acct.accessToken, { email: support.email, role: "member" });
    expect(invited).toMatchObject({ status: 409, body: { status: "failure", status_code: 409, message: expect.stringMatching(/is the operator's support staff: support users are never members of a customer account/) } });
    // Support staff invite nobody into their own account: that is an owner's, and a staff account has none.
    expect((await api("POST", "/auth/account/invitations", support.accessToken, { email: `customer-${support.accountId}@example.test`, role: "owner" })).status).toBe(403);
    // An account that already has support staff (written around the product) takes no further customer.
    const member = await joinByMail(acct, `member-${acct.accountId}@example.test`);
    await database.db.execute(sql`INSERT INTO account_members (account_id, user_id, role) VALUES (${acct.accountId}, ${support.userId}, 'support')`);
    const staffOnly = expect.stringMatching(/is the operator's staff account \(it has support users\): customers are never members of it/);
    expect(await api("POST", "/auth/account/invitations", acct.accessToken, { email: `another-${acct.accountId}@example.test`, role: "member" })).toMatchObject({ status: 409, body: { message: staffOnly } });
    expect(await api("PATCH", `/auth/account/members/${member.userId}`, acct.accessToken, { role: "owner" })).toMatchObject({ status: 409, body: { message: staffOnly } });
  });

  it("invitations: an existing member's email is 409, a bad address 400; revoking twice is 409, another account's is 404", async () => {
    const acct = await seedAccount(database.db);
    expect((await api("POST", "/auth/account/invitations", acct.accessToken, { email: acct.email, role: "member" })).status).toBe(409);
    expect((await api("POST", "/auth/account/invitations", acct.accessToken, { email: "not an email", role: "member" })).status).toBe(400);
    const created = await api("POST", "/auth/account/invitations", acct.accessToken, { email: `later-${acct.accountId}@example.test` });
    const id = created.body.data.invitation.invitation_id;
    expect(created.body.data.invitation.role).toBe("member");
    expect((await api("DELETE", `/auth/account/invitations/${id}`, owner.accessToken)).status).toBe(404);
    const revoked = await api("DELETE", `/auth/account/invitations/${id}`, acct.accessToken);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ invitation_id: id, status: "revoked" });
    expect((await api("DELETE", `/auth/account/invitations/${id}`, acct.accessToken)).status).toBe(409);
    expect(await activity(acct.accessToken, `object_id=${id}`)).toMatchObject([
      { action: "invitation.revoked", actor_type: "user", actor_id: acct.userId },
      { action: "member.invited", after: { role: "member" } },
    ]);
  });
});

describe("the activity log records each change with its actor", () => {
  it("API keys, budgets, alerts and webhooks changed over the API: the user, the address, before and after", async () => {
    const acct = await seedAccount(database.db, { credits: "10" });
    const key = (await api("POST", "/auth/api-keys", acct.accessToken, { name: "ci" })).body.data;
    await api("DELETE", `/auth/api-keys/${key.api_key_id}`, acct.accessToken);
    const budget = (await api("PUT", "/auth/budgets", acct.accessToken, { scope: "account", limit_credits: 5, period: "month" })).body.data;
    await api("PUT", "/auth/budgets", acct.accessToken, { scope: "account", limit_credits: 8, period: "month" });
    await api("DELETE", `/auth/budgets/${budget.budget_id}`, acct.accessToken);
    await api("PUT", "/auth/alerts", acct.accessToken, { low_balance_credits: 2 });
    const hook = (await api("POST", "/auth/webhooks", acct.accessToken, { url: "https://93.184.215.14/hooks", events: ["balance.low"] })).body.data;
    await api("DELETE", `/auth/webhooks/${hook.id}`, acct.accessToken);

    const log = (await activity(acct.accessToken)).reverse();
    const mine = log.filter((e) => e.actor_type === "user");
    expect(mine.map((e) => e.action)).toEqual([
      "api_key.created",
      "api_key.revoked",
      "budget.set",
      "budget.set",
      "budget.removed",
      "alerts.updated",
      "webhook.created",
      "webhook.removed",
    ]);
    for (const e of mine) expect(e).toMatchObject({ actor_id: acct.userId, actor_label: acct.email, ip_address: "127.0.0.1" });
    expect(mine[0]).toMatchObject({ object_type: "api_key", object_id: key.api_key_id, after: { name: "ci", prefix: key.prefix } });
    expect(mine[2]).toMatchObject({ object_id: budget.budget_id, before: null, after: { limit_credits: "5", period: "month" } });
    expect(mine[3]).toMatchObject({ before: { limit_credits: "5" }, after: { limit_credits: "8" } });
    expect(mine[4]).toMatchObject({ before: { limit_credits: "8" } });
    expect(mine[5]).toMatchObject({ before: { low_balance_credits: null }, after: { low_balance_credits: 2 } });
    expect(mine[6]).toMatchObject({ object_id: hook.id, after: { url: "https://93.184.215.14/hooks", events: ["balance.low"] } });
    // The key remembers who created it.
    const createdBy = rows<{ created_by: string }>(await database.db.execute(sql`SELECT created_by FROM api_keys WHERE id = ${key.api_key_id}`));
    expect(createdBy).toEqual([{ created_by: acct.userId }]);
  });

  it("the operator's CLI, the expiry sweeper and a support refund are recorded as operator, system and support", async () => {
    const acct = await seedAccount(database.db, { credits: "5" });
    await runCommand(database.db, ["credits", "grant", "--account", acct.accountId, "--amount", "3", "--expires-at", new Date(Date.now() + 60_000).toISOString()]);
    const cliKey = (await runCommand(database.db, ["keys", "create", "--account", acct.accountId, "--name", "ops"])) as { api_key_id: string };
    await runCommand(database.db, ["keys", "revoke", "--id", cliKey.api_key_id]);
    await runCommand(database.db, ["budgets", "set", "--account", acct.accountId, "--credits", "4", "--period", "day"]);
    await runCommand(database.db, ["alerts", "set", "--account", acct.accountId, "--low-balance", "1"]);
    await expireCreditGrants(database.db, { now: () => new Date(Date.now() + 120_000) });

    const review = await writeReviewCase(database.db, acct.accountId, "1");
    const support = await seedAccount(database.db, { role: "support" });
    const refunded = await api("POST", `/auth/executions/${review.executionId}/refunds`, support.accessToken, { reason: "provider outage" });
    expect(refunded.status).toBe(201);

    const log = (await activity(acct.accessToken)).reverse();
    const byActor = (type: string) => log.filter((e) => e.actor_type === type).map((e) => e.action);
    // `users create` (the fixture's) is the operator's too.
    expect(byActor("operator")).toEqual(["member.joined", "credits.granted", "api_key.created", "api_key.revoked", "budget.set", "alerts.updated"]);
    expect(log.find((e) => e.action === "credits.granted" && e.actor_type === "operator")).toMatchObject({ after: { amount_credits: "3", type: "payment_recharge" } });
    expect(log.find((e) => e.action === "credits.expired")).toMatchObject({ actor_type: "system", after: { expired_credits: { paid: "3.000000" }, lots: 1 } });
    expect(byActor("support")).toEqual(["support.accessed", "refund.created"]);
    expect(log.find((e) => e.action === "refund.created")).toMatchObject({
      actor_id: support.userId,
      actor_label: support.email,
      object_id: review.executionId,
      before: { refunded_credits: "0" },
      after: { refunded_credits: "1", amount_credits: "1", reason: "provider outage" },
    });
  });

  it("filters, a keyset cursor that never repeats or skips, and the CSV export", async () => {
    const acct = await seedAccount(database.db);
    for (let i = 0; i < 7; i++) await api("POST", "/auth/api-keys", acct.accessToken, { name: `k${i}` });
    const all = await activity(acct.accessToken);
    const seen: number[] = [];
    let meanwhile = 0;
    let cursor: string | null = null;
    do {
      const query: string = `page_size=3&action=api_key.created${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const res = await api("GET", `/auth/account/activity?${query}`, acct.accessToken);
      seen.push(...res.body.data.items.map((e: Entry) => e.seq));
      cursor = res.body.data.next_cursor;
      // Entries written meanwhile never shift later pages.
      await api("POST", "/auth/api-keys", acct.accessToken, { name: "meanwhile" });
      meanwhile += 1;
    } while (cursor);
    const created = all.filter((e) => e.action === "api_key.created").map((e) => e.seq);
    expect(seen).toEqual(created);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));

    expect((await activity(acct.accessToken, "actor_type=system")).map((e) => e.action)).toEqual(["api_key.created"]);
    expect(await activity(acct.accessToken, `actor_id=${acct.userId}&object_type=api_key&page_size=1`)).toHaveLength(1);
    expect(await activity(acct.accessToken, "start_date=2999-01-01")).toEqual([]);
    expect(await activity(acct.accessToken, `end_date=${new Date().toISOString().slice(0, 10)}&tz=UTC&page_size=500`)).toHaveLength(all.length + meanwhile);
    expect((await api("GET", "/auth/account/activity?start_date=yesterday", acct.accessToken)).status).toBe(400);
    expect((await api("GET", "/auth/account/activity?action=nope", acct.accessToken)).status).toBe(422);
    expect((await api("GET", "/auth/account/activity?cursor=garbage", acct.accessToken)).status).toBe(400);

    const csv = await api("GET", "/auth/account/activity/export?action=api_key.created", acct.accessToken);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const table = parseCsv(csv.body as string);
    expect(table[0]).toEqual(["seq", "activity_id", "created_at", "actor_type", "actor_id", "actor_label", "action", "object_type", "object_id", "before", "after", "ip_address", "user_agent"]);
    expect(table.slice(1).map((r) => r[6])).toEqual(table.slice(1).map(() => "api_key.created"));
    expect(table).toHaveLength(1 + created.length + meanwhile);
    expect(JSON.parse(table[1][10])).toEqual({ name: "meanwhile", prefix: expect.any(String) });
    expect((await api("GET", "/auth/account/activity/export?end_date=31-12-2026", acct.accessToken)).status).toBe(400);
  });

  it("support reads another account's log with account_id: logged in support_access_log and recorded there as support.accessed", async () => {
    const acct = await seedAccount(database.db);
    const support = await seedAccount(database.db, { role: "support" });
    const read = await api("GET", `/auth/account/activity?account_id=${acct.accountId}`, support.accessToken);
    expect(read.status).toBe(200);
    const members = await api("GET", `/auth/account/members?account_id=${acct.accountId}`, support.accessToken);
    expect(members.body.data.items.map((m: { email: string }) => m.email)).toEqual([acct.email]);
    const logged = rows<{ resource: string }>(await database.db.execute(sql`SELECT resource FROM support_access_log WHERE target_account_id = ${acct.accountId} ORDER BY created_at`));
    expect(logged.map((l) => l.resource)).toEqual(["GET /auth/account/activity", "GET /auth/account/members"]);
    const recorded = await activity(acct.accessToken, "action=support.accessed");
    expect(recorded).toHaveLength(2);
    expect(recorded[1]).toMatchObject({ actor_type: "support", actor_id: support.userId, actor_label: support.email, ip_address: "127.0.0.1", after: { resource: "GET /auth/account/activity" } });
    // Another account's log is not for owners or members.
    expect((await api("GET", `/auth/account/activity?account_id=${support.accountId}`, acct.accessToken)).status).toBe(403);
  });

  it("is append-only: entries cannot be edited or deleted", async () => {
    await expect(database.db.execute(sql`UPDATE account_activity SET actor_label = 'someone else' WHERE account_id = ${owner.accountId}`)).rejects.toThrow();
    await expect(database.db.execute(sql`DELETE FROM account_activity WHERE account_id = ${owner.accountId}`)).rejects.toThrow();
    await expect(database.db.execute(sql`TRUNCATE account_activity`)).rejects.toThrow();
  });
});
