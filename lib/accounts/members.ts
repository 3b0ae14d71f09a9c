import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { accountInvitations, accountMembers, accounts, apiKeys, users } from "../db/schema";
import type { UserRole } from "../vocab/roles";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { DomainError, forbidden, invalidInput, notFound } from "../errors";
import { newId } from "../ids";
import { hashPassword } from "../auth/passwords";
import { randomToken, sha256Hex } from "../auth/secrets";
import { type RevokedKey, forgetRevokedKeys, revokeKeysInTransaction } from "../auth/api-keys";
import { type Actor, recordActivity } from "./activity";
import { disconnectUser } from "../connections/connections";

/**
 * Members of an account and invitations to join it (issue 43). A user may belong to several
 * accounts; `account_members` holds each membership and its role. Every change records its
 * activity entry in the same transaction. An account always keeps at least one owner: the member
 * rows are locked while the owners are counted, so two owners demoting each other cannot both win.
 */

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const INVITATION_TOKEN_PREFIX = "tgi_";

export interface Membership {
  userId: string;
  email: string;
  accountId: string;
  accountName: string;
  role: UserRole;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) throw invalidInput(`Invalid email address: ${raw.slice(0, 100)}`);
  return email;
}

/** The user's membership of the account, or not_found when either is gone or the user is not a member. */
export async function getMembership(db: Db, userId: string, accountId: string): Promise<Membership> {
  const [m] = await db
    .select({ userId: users.id, email: users.email, accountId: accounts.id, accountName: accounts.name, role: accountMembers.role })
    .from(accountMembers)
    .innerJoin(users, eq(users.id, accountMembers.userId))
    .innerJoin(accounts, eq(accounts.id, accountMembers.accountId))
    .where(and(eq(accountMembers.userId, userId), eq(accountMembers.accountId, accountId)));
  if (!m) throw notFound(`User ${userId} is not a member of account ${accountId}`);
  return m;
}

/** Every account the user belongs to, most recently signed-in first (the default on sign-in). */
export async function listMemberships(db: Db, userId: string): Promise<Membership[]> {
  return db
    .select({ userId: users.id, email: users.email, accountId: accounts.id, accountName: accounts.name, role: accountMembers.role })
    .from(accountMembers)
    .innerJoin(users, eq(users.id, accountMembers.userId))
    .innerJoin(accounts, eq(accounts.id, accountMembers.accountId))
    .where(eq(accountMembers.userId, userId))
    .orderBy(sql`${accountMembers.lastSignedInAt} DESC NULLS LAST`, asc(accountMembers.createdAt));
}

export async function touchSignIn(db: Db, userId: string, accountId: string): Promise<void> {
  await db.update(accountMembers).set({ lastSignedInAt: new Date() }).where(and(eq(accountMembers.userId, userId), eq(accountMembers.accountId, accountId)));
}

export interface MemberRow {
  user_id: string;
  email: string;
  role: UserRole;
  joined_at: string;
  last_signed_in_at: string | null;
  invited_by: string | null;
  two_factor: boolean;
  api_keys: { api_key_id: string; name: string; prefix: string; revoked: boolean }[];
}

/** The account's members, owners first, each with the API keys they created. */
export async function listMembers(db: Db, accountId: string): Promise<MemberRow[]> {
  const result = await db.execute(sql`
    SELECT m.user_id, u.email, m.role, m.created_at, m.last_signed_in_at, m.invited_by,
           EXISTS (SELECT 1 FROM user_totp t WHERE t.user_id = m.user_id AND t.confirmed_at IS NOT NULL) AS two_factor,
           coalesce((SELECT jsonb_agg(jsonb_build_object('api_key_id', k.id, 'name', k.name, 'prefix', k.prefix, 'revoked', k.revoked_at IS NOT NULL)
                                      ORDER BY k.created_at)
                       FROM api_keys k WHERE k.account_id = m.account_id AND k.created_by = m.user_id), '[]'::jsonb) AS api_keys
      FROM account_members m JOIN users u ON u.id = m.user_id
     WHERE m.account_id = ${accountId}
     ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'member' THEN 1 ELSE 2 END, m.created_at`);
  return rows<{
    user_id: string;
    email: string;
    role: UserRole;
    created_at: Date | string;
    last_signed_in_at: Date | string | null;
    invited_by: string | null;
    two_factor: boolean;
    api_keys: MemberRow["api_keys"] | string;
  }>(result).map((r) => ({
    user_id: r.user_id,
    email: r.email,
    role: r.role,
    joined_at: new Date(r.created_at).toISOString(),
    last_signed_in_at: r.last_signed_in_at === null ? null : new Date(r.last_signed_in_at).toISOString(),
    invited_by: r.invited_by,
    two_factor: r.two_factor,
    api_keys: typeof r.api_keys === "string" ? JSON.parse(r.api_keys) : r.api_keys,
  }));
}

/** The rule's name, as `audit verify` reports a membership that breaks it (lib/audit/verify.ts). */
export const SEPARATE_DUTIES = "support_not_customer_member";

const separation = (message: string) => new DomainError("conflict", message, { rule: SEPARATE_DUTIES });

/**
 * Separation of duties (docs/team.md): the operator's support staff read customers' accounts from
 * outside, logged; support and customers never share an account. A support user (support anywhere)
 * joins only as support, in an account without customers; a customer (owner or member) joins no
 * account that has support staff; nobody who is a customer somewhere is made support.
 *
 * The account's row is locked first, so the membership writes of one account (a join, a role
 * change) run one after the other and each sees the one before: a support user and a customer
 * joining one account at once cannot both pass. The user's row is locked too, for the same user
 * joining one account while made support in another. `who` is the user, or for an invitation the
 * invited email (which may have no user yet).
 */
async function assertSeparateDuties(tx: Db, input: { accountId: string; role: UserRole; who: { userId: string } | { email: string } }): Promise<void> {
  await lockAccount(tx, input.accountId);
  const user = rows<{ id: string; email: string; support_elsewhere: boolean; customer_elsewhere: boolean }>(
    await tx.execute(sql`
      SELECT u.id, u.email,
             u.role = 'support' OR EXISTS (SELECT 1 FROM account_members m WHERE m.user_id = u.id AND m.account_id <> ${input.accountId} AND m.role = 'support') AS support_elsewhere,
             EXISTS (SELECT 1 FROM account_members m WHERE m.user_id = u.id AND m.account_id <> ${input.accountId} AND m.role <> 'support') AS customer_elsewhere
        FROM users u WHERE ${"userId" in input.who ? sql`u.id = ${input.who.userId}` : sql`u.email = ${input.who.email}`} FOR UPDATE`),
  )[0];
  if (!user && "userId" in input.who) throw notFound(`User ${input.who.userId} not found`);
  const here = rows<{ support_here: boolean; customers_here: boolean }>(
    await tx.execute(sql`
      SELECT coalesce(bool_or(m.role = 'support'), false) AS support_here, coalesce(bool_or(m.role <> 'support'), false) AS customers_here
        FROM account_members m WHERE m.account_id = ${input.accountId} ${user ? sql`AND m.user_id <> ${user.id}` : sql``}`),
  )[0];
  if (input.role !== "support") {
    if (user?.support_elsewhere) {
      throw separation(`${user.email} is the operator's support staff: support users are never members of a customer account (docs/team.md); they read accounts from outside, logged`);
    }
    if (here.support_here) {
      throw separation(`Account ${input.accountId} is the operator's staff account (it has support users): customers are never members of it (docs/team.md); invite them to a customer account`);
    }
    return;
  }
  if (user?.customer_elsewhere) {
    throw separation(`${user.email} is a member of a customer account: support staff are never members of one (docs/team.md); create a separate support user`);
  }
  if (here.customers_here) throw separation(`Account ${input.accountId} has customer members: a support user belongs to a staff account of its own (docs/team.md)`);
}

/** Locks the account's row against the other membership writes of the account (NO KEY: rows referencing it, such as usage events, are not held up). */
async function lockAccount(tx: Db, accountId: string): Promise<void> {
  const [found] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("no key update");
  if (!found) throw notFound(`Account ${accountId} not found`);
}

/** Adds a user to an account (the operator's `users create`, or an accepted invitation). */
export async function addMember(db: Db, input: { accountId: string; userId: string; role: UserRole; invitedBy?: string | null; actor: Actor; via?: string }) {
  await db.transaction(async (tx) => {
    await assertSeparateDuties(tx as unknown as Db, { accountId: input.accountId, role: input.role, who: { userId: input.userId } });
    const inserted = await tx
      .insert(accountMembers)
      .values({ accountId: input.accountId, userId: input.userId, role: input.role, invitedBy: input.invitedBy ?? null })
      .onConflictDoNothing()
      .returning({ userId: accountMembers.userId });
    if (inserted.length === 0) throw new DomainError("conflict", "Already a member of this account");
    const [u] = await tx.select({ email: users.email }).from(users).where(eq(users.id, input.userId));
    await recordActivity(tx as unknown as Db, input.accountId, input.actor, {
      action: "member.joined",
      objectType: "user",
      objectId: input.userId,
      after: { email: u?.email ?? null, role: input.role, ...(input.via ? { via: input.via } : {}) },
    });
  });
}

/** Locks the account's member rows and returns them (owners counted under the lock). */
async function lockMembers(tx: Db, accountId: string): Promise<{ user_id: string; role: UserRole; email: string }[]> {
  return rows<{ user_id: string; role: UserRole; email: string }>(
    await tx.execute(sql`SELECT m.user_id, m.role, u.email FROM account_members m JOIN users u ON u.id = m.user_id
                          WHERE m.account_id = ${accountId} ORDER BY m.user_id FOR UPDATE OF m`),
  );
}

export async function changeMemberRole(db: Db, input: { accountId: string; userId: string; role: UserRole; actor: Actor }) {
  return db.transaction(async (tx) => {
    const members = await lockMembers(tx as unknown as Db, input.accountId);
    const target = members.find((m) => m.user_id === input.userId);
    if (!target) throw notFound(`User ${input.userId} is not a member of this account`);
    if (target.role === input.role) return { user_id: input.userId, role: input.role, changed: false };
    await assertSeparateDuties(tx as unknown as Db, { accountId: input.accountId, role: input.role, who: { userId: input.userId } });
    if (target.role === "owner" && members.filter((m) => m.role === "owner").length === 1) {
      throw new DomainError("conflict", "The account's last owner cannot be demoted: make another member an owner first");
    }
    await tx.update(accountMembers).set({ role: input.role }).where(and(eq(accountMembers.accountId, input.accountId), eq(accountMembers.userId, input.userId)));
    await recordActivity(tx as unknown as Db, input.accountId, input.actor, {
      action: "member.role_changed",
      objectType: "user",
      objectId: input.userId,
      before: { email: target.email, role: target.role },
      after: { email: target.email, role: input.role },
    });
    return { user_id: input.userId, role: input.role, changed: true };
  });
}

export interface RemovedMemberKey {
  api_key_id: string;
  name: string;
  prefix: string;
}

/**
 * Removes a member: the membership goes (their tokens and dashboard sessions in the account are
 * refused at the next request), and the live API keys they created are revoked in the same
 * transaction (each with its own `api_key.revoked`, reason `member_removed`) unless the owner keeps
 * them (`keepKeys`): then they stay with the account, listed for review. `member.removed` says which.
 */
export async function removeMember(db: Db, input: { accountId: string; userId: string; actor: Actor; keepKeys?: boolean }) {
  const result = await db.transaction(async (tx) => {
    const members = await lockMembers(tx as unknown as Db, input.accountId);
    const target = members.find((m) => m.user_id === input.userId);
    if (!target) throw notFound(`User ${input.userId} is not a member of this account`);
    if (target.role === "owner" && members.filter((m) => m.role === "owner").length === 1) {
      throw new DomainError("conflict", "The account's last owner cannot be removed");
    }
    await tx.delete(accountMembers).where(and(eq(accountMembers.accountId, input.accountId), eq(accountMembers.userId, input.userId)));
    const theirs = and(eq(apiKeys.accountId, input.accountId), eq(apiKeys.createdBy, input.userId))!;
    let revoked: RevokedKey[] = [];
    let kept: RemovedMemberKey[] = [];
    if (input.keepKeys) {
      kept = await tx.select({ api_key_id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix }).from(apiKeys).where(and(theirs, isNull(apiKeys.revokedAt))).orderBy(asc(apiKeys.createdAt));
    } else {
      revoked = await revokeKeysInTransaction(tx as unknown as Db, theirs, input.actor, "member_removed");
    }
    await recordActivity(tx as unknown as Db, input.accountId, input.actor, {
      action: "member.removed",
      objectType: "user",
      objectId: input.userId,
      before: { email: target.email, role: target.role },
      after: input.keepKeys ? { api_keys_kept: kept.map((k) => k.api_key_id) } : { api_keys_revoked: revoked.map((k) => k.api_key_id) },
    });
    return { revoked, kept };
  });
  forgetRevokedKeys(db, result.revoked);
  // Their personal connections go with them: revoked at the providers (outside the transaction: network) and deleted.
  await disconnectUser(db, input.accountId, input.userId, input.actor);
  return {
    user_id: input.userId,
    removed: true as const,
    api_keys_revoked: result.revoked.map(({ api_key_id, name, prefix }) => ({ api_key_id, name, prefix })),
    api_keys_kept: result.kept,
  };
}

export interface InvitationRow {
  invitation_id: string;
  email: string;
  role: UserRole;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  status: "pending" | "accepted" | "revoked" | "expired";
  accepted_at: string | null;
}

function invitationRow(r: typeof accountInvitations.$inferSelect, now = Date.now()): InvitationRow {
  const status = r.acceptedAt ? "accepted" : r.revokedAt ? "revoked" : r.expiresAt.getTime() <= now ? "expired" : "pending";
  return {
    invitation_id: r.id,
    email: r.email,
    role: r.role,
    invited_by: r.invitedBy,
    created_at: r.createdAt.toISOString(),
    expires_at: r.expiresAt.toISOString(),
    status,
    accepted_at: r.acceptedAt?.toISOString() ?? null,
  };
}

/** Invites an email to the account with a role: returns the single-use token (shown once, only its hash is kept). */
export async function inviteMember(db: Db, input: { accountId: string; email: string; role: UserRole; invitedBy: string | null; actor: Actor }) {
  const email = normalizeEmail(input.email);
  if (input.role === "support") throw invalidInput("Support staff are not invited to an account: use owner or member");
  const token = `${INVITATION_TOKEN_PREFIX}${randomToken(32)}`;
  const id = newId("inv");
  return db.transaction(async (tx) => {
    const already = rows<{ n: number }>(
      await tx.execute(sql`SELECT count(*)::int AS n FROM account_members m JOIN users u ON u.id = m.user_id WHERE m.account_id = ${input.accountId} AND u.email = ${email}`),
    )[0];
    if (already.n > 0) throw new DomainError("conflict", `${email} is already a member of this account`);
    await assertSeparateDuties(tx as unknown as Db, { accountId: input.accountId, role: input.role, who: { email } });
    const [row] = await tx
      .insert(accountInvitations)
      .values({ id, accountId: input.accountId, email, role: input.role, tokenHash: sha256Hex(token), invitedBy: input.invitedBy, expiresAt: new Date(Date.now() + INVITATION_TTL_MS) })
      .returning();
    await recordActivity(tx as unknown as Db, input.accountId, input.actor, { action: "member.invited", objectType: "invitation", objectId: id, after: { email, role: input.role, expires_at: row.expiresAt.toISOString() } });
    return { invitation: invitationRow(row), token };
  });
}

export async function listInvitations(db: Db, accountId: string): Promise<InvitationRow[]> {
  const found = await db.select().from(accountInvitations).where(eq(accountInvitations.accountId, accountId)).orderBy(sql`${accountInvitations.createdAt} DESC`);
  return found.map((r) => invitationRow(r));
}

export async function revokeInvitation(db: Db, input: { accountId: string; invitationId: string; actor: Actor }) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(accountInvitations)
      .where(and(eq(accountInvitations.id, input.invitationId), eq(accountInvitations.accountId, input.accountId)))
      .for("update");
    if (!row) throw notFound(`Invitation ${input.invitationId} not found`);
    const current = invitationRow(row);
    if (current.status !== "pending") throw new DomainError("conflict", `This invitation is already ${current.status}`);
    const [updated] = await tx.update(accountInvitations).set({ revokedAt: new Date() }).where(eq(accountInvitations.id, row.id)).returning();
    await recordActivity(tx as unknown as Db, input.accountId, input.actor, { action: "invitation.revoked", objectType: "invitation", objectId: row.id, before: { email: row.email, role: row.role } });
    return invitationRow(updated);
  });
}

/** What an invitation link leads to, for the page that opens it: the account, the email and role, and whether the email already has a user. */
export async function describeInvitation(db: Db, token: string) {
  const [row] = await db
    .select({ invitation: accountInvitations, accountName: accounts.name })
    .from(accountInvitations)
    .innerJoin(accounts, eq(accounts.id, accountInvitations.accountId))
    .where(eq(accountInvitations.tokenHash, sha256Hex(token)));
  if (!row) return { status: "unknown" as const };
  const inv = invitationRow(row.invitation);
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.email, inv.email));
  return { status: inv.status, accountId: row.invitation.accountId, accountName: row.accountName, email: inv.email, role: inv.role, existingUser: existing !== undefined };
}

/**
 * Accepts an invitation once: a new user sets a password; an existing user (a member of another
 * account) proves it with theirs. Either way the user joins with the invitation's role. An
 * expired, used or revoked link says so and changes nothing.
 */
export async function acceptInvitation(db: Db, input: { token: string; password: string; actor?: Partial<Actor> }) {
  const { verifyPassword } = await import("../auth/passwords");
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(accountInvitations).where(eq(accountInvitations.tokenHash, sha256Hex(input.token))).for("update");
    if (!row) throw notFound("This invitation link is not valid");
    const status = invitationRow(row).status;
    if (status !== "pending") throw new DomainError("conflict", `This invitation has ${status === "expired" ? "expired" : `already been ${status}`}`);
    const [existing] = await tx.select({ id: users.id, passwordHash: users.passwordHash }).from(users).where(eq(users.email, row.email));
    let userId: string;
    if (existing) {
      if (!(await verifyPassword(input.password, existing.passwordHash))) throw forbidden("Wrong password for this email: sign in with the password you already have");
      userId = existing.id;
    } else {
      if (input.password.length < 8) throw invalidInput("Password must be at least 8 characters");
      userId = newId("usr");
      await tx.insert(users).values({ id: userId, accountId: row.accountId, email: row.email, passwordHash: await hashPassword(input.password), role: row.role });
    }
    await tx.update(accountInvitations).set({ acceptedAt: new Date(), acceptedBy: userId }).where(eq(accountInvitations.id, row.id));
    await addMember(tx as unknown as Db, {
      accountId: row.accountId,
      userId,
      role: row.role,
      invitedBy: row.invitedBy,
      actor: { type: "user", id: userId, label: row.email, ...input.actor },
      via: `invitation ${row.id}`,
    });
    return { user_id: userId, account_id: row.accountId, email: row.email, role: row.role, new_user: !existing };
  });
}
