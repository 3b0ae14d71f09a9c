import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { holdingTable } from "../testing/table-barrier";
import { seedAccount } from "../testing/fixtures";
import { rows } from "../db/row-sql";
import { verifyLedger } from "../audit/verify";
import { issueAccessToken, verifyAccessToken } from "../auth/jwt";
import { OPERATOR, recordActivity } from "./activity";
import { createAccount } from "./create-account";
import { createUser } from "./create-user";
import {
  SEPARATE_DUTIES,
  acceptInvitation,
  changeMemberRole,
  describeInvitation,
  getMembership,
  inviteMember,
  listMembers,
  listMemberships,
  removeMember,
  revokeInvitation,
} from "./members";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let owner: Awaited<ReturnType<typeof seedAccount>>;
const asOwner = () => ({ type: "user" as const, id: owner.userId, label: owner.email });

beforeAll(async () => {
  database = await createTestDatabase();
  owner = await seedAccount(database.db, { credits: "10" });
});

async function activity(accountId: string) {
  return rows<{ seq: number; action: string; actor_type: string; object_id: string | null; before: unknown; after: unknown }>(
    await database.db.execute(sql`SELECT seq::int, action, actor_type, object_id, before, after FROM account_activity WHERE account_id = ${accountId} ORDER BY seq`),
  );
}

describe("members and invitations", () => {
  it("invites by email; a new user joins with a password, once; the log records each step", async () => {
    const { invitation, token } = await inviteMember(database.db, { accountId: owner.accountId, email: " New.Person@Example.test ", role: "member", invitedBy: owner.userId, actor: asOwner() });
    expect(invitation).toMatchObject({ email: "new.person@example.test", role: "member", status: "pending" });
    expect(await describeInvitation(database.db, token)).toMatchObject({ status: "pending", accountId: owner.accountId, existingUser: false });
    const joined = await acceptInvitation(database.db, { token, password: "a long password" });
    expect(joined).toMatchObject({ account_id: owner.accountId, role: "member", new_user: true });
    await expect(acceptInvitation(database.db, { token, password: "a long password" })).rejects.toThrow(/already been accepted/);
    expect((await getMembership(database.db, joined.user_id, owner.accountId)).role).toBe("member");
    const log = await activity(owner.accountId);
    expect(log.map((e) => e.action)).toEqual(expect.arrayContaining(["member.joined", "member.invited"]));
    expect(log.at(-1)).toMatchObject({ action: "member.joined", actor_type: "user", object_id: joined.user_id });
  });

  it("an existing user of another account joins with their own password and can then use either account", async () => {
    const elsewhere = await seedAccount(database.db);
    const { token } = await inviteMember(database.db, { accountId: owner.accountId, email: elsewhere.email, role: "owner", invitedBy: owner.userId, actor: asOwner() });
    await expect(acceptInvitation(database.db, { token, password: "wrong password" })).rejects.toThrow(/Wrong password/);
    await acceptInvitation(database.db, { token, password: "correct horse battery" });
    const accounts = (await listMemberships(database.db, elsewhere.userId)).map((m) => m.accountId).sort();
    expect(accounts).toEqual([elsewhere.accountId, owner.accountId].sort());
    // A token for the second account carries the role held there.
    const { accessToken } = await issueAccessToken(database.db, { userId: elsewhere.userId, accountId: owner.accountId, role: "member", scope: "usage:read", ttlSeconds: 60 });
    expect((await verifyAccessToken(database.db, accessToken)).role).toBe("owner");
  });

  it("revoked and expired invitations say so", async () => {
    const { invitation, token } = await inviteMember(database.db, { accountId: owner.accountId, email: "later@example.test", role: "member", invitedBy: owner.userId, actor: asOwner() });
    await revokeInvitation(database.db, { accountId: owner.accountId, invitationId: invitation.invitation_id, actor: asOwner() });
    expect((await describeInvitation(database.db, token)).status).toBe("revoked");
    await expect(acceptInvitation(database.db, { token, password: "a long password" })).rejects.toThrow(/already been revoked/);
    const second = await inviteMember(database.db, { accountId: owner.accountId, email: "late@example.test", role: "member", invitedBy: owner.userId, actor: asOwner() });
    await database.db.execute(sql`UPDATE account_invitations SET expires_at = now() - interval '1 second' WHERE id = ${second.invitation.invitation_id}`);
    expect((await describeInvitation(database.db, second.token)).status).toBe("expired");
    await expect(acceptInvitation(database.db, { token: second.token, password: "a long password" })).rejects.toThrow(/expired/);
    expect((await describeInvitation(database.db, "tgi_nothing")).status).toBe("unknown");
  });

  it("changes roles and removes members, never the last owner; a removed member's tokens stop at once", async () => {
    const acct = await seedAccount(database.db);
    const actor = { type: "user" as const, id: acct.userId };
    const { token } = await inviteMember(database.db, { accountId: acct.accountId, email: "colleague@example.test", role: "owner", invitedBy: acct.userId, actor });
    const colleague = await acceptInvitation(database.db, { token, password: "a long password" });
    const { accessToken } = await issueAccessToken(database.db, { userId: colleague.user_id, accountId: acct.accountId, role: "owner", scope: "usage:read", ttlSeconds: 60 });

    await changeMemberRole(database.db, { accountId: acct.accountId, userId: colleague.user_id, role: "member", actor });
    expect((await verifyAccessToken(database.db, accessToken)).role).toBe("member");
    await expect(changeMemberRole(database.db, { accountId: acct.accountId, userId: acct.userId, role: "member", actor })).rejects.toThrow(/last owner/);
    await expect(removeMember(database.db, { accountId: acct.accountId, userId: acct.userId, actor })).rejects.toThrow(/last owner/);

    const removed = await removeMember(database.db, { accountId: acct.accountId, userId: colleague.user_id, actor });
    expect(removed.removed).toBe(true);
    await expect(verifyAccessToken(database.db, accessToken)).rejects.toThrow(/no longer a member/);
    expect((await listMembers(database.db, acct.accountId)).map((m) => m.email)).toEqual([acct.email]);
    const log = await activity(acct.accountId);
    expect(log.filter((e) => e.action === "member.role_changed")).toMatchObject([{ before: { role: "owner" }, after: { role: "member" } }]);
    expect(log.at(-1)).toMatchObject({ action: "member.removed", object_id: colleague.user_id });
  });

  it("two owners demoting each other at once: one wins, the account keeps an owner", async () => {
    const acct = await seedAccount(database.db);
    const actor = { type: "user" as const, id: acct.userId };
    const { token } = await inviteMember(database.db, { accountId: acct.accountId, email: `second-owner-${acct.accountId}@example.test`, role: "owner", invitedBy: acct.userId, actor });
    const second = await acceptInvitation(database.db, { token, password: "a long password" });
    const results = await Promise.allSettled([
      changeMemberRole(database.db, { accountId: acct.accountId, userId: acct.userId, role: "member", actor }),
      changeMemberRole(database.db, { accountId: acct.accountId, userId: second.user_id, role: "member", actor }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect((await listMembers(database.db, acct.accountId)).filter((m) => m.role === "owner")).toHaveLength(1);
  });
});

describe("separation of duties: support staff are never members of a customer account", () => {
  it("a support user cannot be invited, cannot join by an older link, and cannot be added by the operator", async () => {
    const support = await seedAccount(database.db, { role: "support" });
    // Invited by an owner (API, dashboard and CLI all call inviteMember): refused, whatever the role.
    for (const role of ["owner", "member"] as const) {
      await expect(inviteMember(database.db, { accountId: owner.accountId, email: support.email, role, invitedBy: owner.userId, actor: asOwner() })).rejects.toMatchObject({
        code: "conflict",
        message: expect.stringMatching(/support users are never members of a customer account/),
      });
    }
    // A link sent before the user became support staff: accepting it is refused, and nothing changes.
    const later = await seedAccount(database.db);
    const { token } = await inviteMember(database.db, { accountId: owner.accountId, email: later.email, role: "owner", invitedBy: owner.userId, actor: asOwner() });
    await database.db.execute(sql`UPDATE account_members SET role = 'support' WHERE user_id = ${later.userId}`);
    await expect(acceptInvitation(database.db, { token, password: "correct horse battery" })).rejects.toMatchObject({ code: "conflict" });
    expect((await describeInvitation(database.db, token)).status).toBe("pending");
    await expect(getMembership(database.db, later.userId, owner.accountId)).rejects.toMatchObject({ code: "not_found" });
    // The operator: a support user created in a customer account, or a customer made support.
    await expect(createUser(database.db, { accountId: owner.accountId, email: `staff-${owner.accountId}@example.test`, password: "a long password", role: "support" })).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/has customer members/),
    });
    const member = await seedAccount(database.db);
    const invited = await inviteMember(database.db, { accountId: owner.accountId, email: member.email, role: "member", invitedBy: owner.userId, actor: asOwner() });
    await acceptInvitation(database.db, { token: invited.token, password: "correct horse battery" });
    await expect(changeMemberRole(database.db, { accountId: owner.accountId, userId: member.userId, role: "support", actor: asOwner() })).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/is a member of a customer account/),
    });
    expect((await verifyLedger(database.db, { accountId: owner.accountId })).ok).toBe(true);
  });

  it("a customer never joins a staff account: created by the operator, invited, by an older link, or by a role change", async () => {
    const refused = (pattern: RegExp) => ({ code: "conflict", details: { rule: SEPARATE_DUTIES }, message: expect.stringMatching(pattern) });
    const staffAccount = /is the operator's staff account \(it has support users\): customers are never members of it/;
    // Issue 58: the operator created an owner in a support user's account, and the owner then saw the staff list.
    const staff = await seedAccount(database.db, { role: "support" });
    for (const role of ["owner", "member"] as const) {
      await expect(createUser(database.db, { accountId: staff.accountId, email: `${role}-${staff.accountId}@example.test`, password: "a long password", role })).rejects.toMatchObject(refused(staffAccount));
    }
    // Invited (the operator's CLI here; the API and the dashboard call the same verb): a new email or an existing customer's.
    const customer = await seedAccount(database.db);
    for (const email of [`new-${staff.accountId}@example.test`, customer.email]) {
      await expect(inviteMember(database.db, { accountId: staff.accountId, email, role: "owner", invitedBy: null, actor: OPERATOR })).rejects.toMatchObject(refused(staffAccount));
    }
    expect((await listMembers(database.db, staff.accountId)).map((m) => m.email)).toEqual([staff.email]);

    // Links sent before the account had support staff: accepting them is refused, and nothing is written.
    const { account_id: becameStaff } = await createAccount(database.db, { name: "Became staff" });
    const early = await inviteMember(database.db, { accountId: becameStaff, email: `early-${becameStaff}@example.test`, role: "owner", invitedBy: null, actor: OPERATOR });
    const earlyCustomer = await inviteMember(database.db, { accountId: becameStaff, email: customer.email, role: "member", invitedBy: null, actor: OPERATOR });
    await createUser(database.db, { accountId: becameStaff, email: `staff-${becameStaff}@example.test`, password: "a long password", role: "support" });
    await expect(acceptInvitation(database.db, { token: early.token, password: "a long password" })).rejects.toMatchObject(refused(staffAccount));
    await expect(acceptInvitation(database.db, { token: earlyCustomer.token, password: "correct horse battery" })).rejects.toMatchObject(refused(staffAccount));
    expect(await describeInvitation(database.db, early.token)).toMatchObject({ status: "pending", existingUser: false });
    expect((await listMembers(database.db, becameStaff)).map((m) => m.role)).toEqual(["support"]);

    // Role changes: a staff member made owner or member, whether created as support or made support since.
    const { account_id: team } = await createAccount(database.db, { name: "Staff team" });
    const { user_id: madeSupport } = await createUser(database.db, { accountId: team, email: `made-${team}@example.test`, password: "a long password", role: "member" });
    await changeMemberRole(database.db, { accountId: team, userId: madeSupport, role: "support", actor: OPERATOR });
    const { user_id: bornSupport } = await createUser(database.db, { accountId: team, email: `born-${team}@example.test`, password: "a long password", role: "support" });
    await expect(changeMemberRole(database.db, { accountId: team, userId: madeSupport, role: "owner", actor: OPERATOR })).rejects.toMatchObject(refused(staffAccount));
    await expect(changeMemberRole(database.db, { accountId: team, userId: bornSupport, role: "member", actor: OPERATOR })).rejects.toMatchObject(
      refused(/is the operator's support staff: support users are never members of a customer account/),
    );
    expect((await listMembers(database.db, team)).map((m) => m.role)).toEqual(["support", "support"]);

    for (const accountId of [staff.accountId, becameStaff, team, customer.accountId]) expect((await verifyLedger(database.db, { accountId })).violations).toEqual([]);
  });

  it("audit verify reports a support user written into a customer account behind the product's back", async () => {
    const support = await seedAccount(database.db, { role: "support" });
    const customer = await seedAccount(database.db);
    await database.db.execute(sql`INSERT INTO account_members (account_id, user_id, role) VALUES (${customer.accountId}, ${support.userId}, 'owner')`);
    const report = await verifyLedger(database.db, { accountId: customer.accountId });
    expect(report.violations).toEqual([
      { account_id: customer.accountId, check: "support_not_customer_member", message: `support user ${support.email} is a member of customer account ${customer.accountId} (as owner): support staff read accounts from outside, never as members` },
    ]);
    // The support user's own staff account is fine.
    expect((await verifyLedger(database.db, { accountId: support.accountId })).ok).toBe(true);
  });
});

describe("separation of duties under concurrency (PostgreSQL: the racers pass their checks together)", () => {
  /** Runs both writes at once and expects one to win, the other refused by the rule, and the account sound. */
  async function race(accountId: string, writes: [() => Promise<unknown>, () => Promise<unknown>]) {
    const results = await holdingTable(database.url, "account_members", 2, () => Promise.allSettled(writes.map((write) => write())));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: { code: "conflict", details: { rule: SEPARATE_DUTIES } } });
    expect((await verifyLedger(database.db, { accountId })).violations).toEqual([]);
  }

  it("a support user created into an account while a customer accepts an invitation to it: one of them joins", async () => {
    const { account_id: accountId } = await createAccount(database.db, { name: "Contested" });
    const { token } = await inviteMember(database.db, { accountId, email: `customer-${accountId}@example.test`, role: "owner", invitedBy: null, actor: OPERATOR });
    await race(accountId, [
      () => createUser(database.db, { accountId, email: `staff-${accountId}@example.test`, password: "a long password", role: "support" }),
      () => acceptInvitation(database.db, { token, password: "a long password" }),
    ]);
  });

  it("a member made support while the operator creates a customer in the account: one of them happens", async () => {
    const { account_id: accountId } = await createAccount(database.db, { name: "Contested role" });
    const { user_id: userId } = await createUser(database.db, { accountId, email: `first-${accountId}@example.test`, password: "a long password", role: "member" });
    await race(accountId, [
      () => changeMemberRole(database.db, { accountId, userId, role: "support", actor: OPERATOR }),
      () => createUser(database.db, { accountId, email: `second-${accountId}@example.test`, password: "a long password", role: "owner" }),
    ]);
  });
});

describe("activity log", () => {
  it("is append-only, numbered without gaps and hash-chained; audit verify finds a forged entry", async () => {
    const acct = await seedAccount(database.db);
    await Promise.all(Array.from({ length: 8 }, (_, i) => recordActivity(database.db, acct.accountId, { type: "operator" }, { action: "credits.granted", after: { n: i } })));
    const log = await activity(acct.accountId);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    expect((await verifyLedger(database.db, { accountId: acct.accountId })).violations.filter((v) => v.check === "activity_log_continuity")).toEqual([]);
    await expect(database.db.execute(sql`UPDATE account_activity SET action = 'x' WHERE account_id = ${acct.accountId}`)).rejects.toThrow();
    await expect(database.db.execute(sql`DELETE FROM account_activity WHERE account_id = ${acct.accountId}`)).rejects.toThrow();
    // An entry written around the log (not by recordActivity) breaks the chain.
    await database.db.execute(sql`INSERT INTO account_activity (account_id, seq, id, actor_type, action, hash) VALUES (${acct.accountId}, 20, 'act_forged', 'user', 'api_key.revoked', 'x')`);
    const found = (await verifyLedger(database.db, { accountId: acct.accountId })).violations.filter((v) => v.check === "activity_log_continuity");
    expect(found.map((v) => v.message)).toEqual([expect.stringMatching(/act_forged is number 20, after \d+: entries are missing/)]);
  });
});
