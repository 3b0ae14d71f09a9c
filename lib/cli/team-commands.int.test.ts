import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { accountActivity, apiKeys } from "../db/schema";
import { createApiKey, authenticateApiKey } from "../auth/api-keys";
import { SEPARATE_DUTIES } from "../accounts/members";
import { runCommand } from "./commands";

const { db } = await createTestDatabase();
const cli = (...argv: string[]) => runCommand(db, argv) as Promise<Record<string, unknown>>;

/** An account with a member who created one API key, as they would in the dashboard. */
async function memberWithKey(label: string) {
  const { accountId } = await seedAccount(db);
  const member = (await cli("users", "create", "--account", accountId, "--email", `${label}-${accountId}@example.test`, "--password", "correct horse battery", "--role", "member")) as {
    user_id: string;
  };
  const key = await createApiKey(db, { accountId, name: `${label} key`, actor: { type: "user", id: member.user_id } });
  return { accountId, userId: member.user_id, key };
}

async function removal(accountId: string, userId: string) {
  const [entry] = await db
    .select({ actor: accountActivity.actorType, after: accountActivity.after })
    .from(accountActivity)
    .where(and(eq(accountActivity.accountId, accountId), eq(accountActivity.action, "member.removed"), eq(accountActivity.objectId, userId)));
  return entry;
}

describe("members remove", () => {
  it("revokes the API keys the member created, as the operator, and the key is refused at once", async () => {
    const { accountId, userId, key } = await memberWithKey("leaver");
    expect(await authenticateApiKey(db, key.api_key)).toMatchObject({ accountId });
    const removed = await cli("members", "remove", "--account", accountId, "--user", userId);
    expect(removed).toEqual({ user_id: userId, removed: true, api_keys_revoked: [{ api_key_id: key.api_key_id, name: "leaver key", prefix: key.prefix }], api_keys_kept: [] });
    await expect(authenticateApiKey(db, key.api_key)).rejects.toMatchObject({ code: "unauthorized", message: "Unknown or revoked API key" });
    const [row] = await db.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, key.api_key_id));
    expect(row.revokedAt).not.toBeNull();
    expect(await removal(accountId, userId)).toEqual({ actor: "operator", after: { api_keys_revoked: [key.api_key_id] } });
  });

  it("--keep-keys keeps them working and says so in the log", async () => {
    const { accountId, userId, key } = await memberWithKey("keeper");
    const removed = await cli("members", "remove", "--account", accountId, "--user", userId, "--keep-keys");
    expect(removed).toEqual({ user_id: userId, removed: true, api_keys_revoked: [], api_keys_kept: [{ api_key_id: key.api_key_id, name: "keeper key", prefix: key.prefix }] });
    expect(await authenticateApiKey(db, key.api_key)).toMatchObject({ accountId });
    expect(await removal(accountId, userId)).toEqual({ actor: "operator", after: { api_keys_kept: [key.api_key_id] } });
  });
});

describe("support staff and customers never share an account", () => {
  const refused = (pattern: RegExp) => ({ code: "conflict", details: { rule: SEPARATE_DUTIES }, message: expect.stringMatching(pattern) });

  it("users create, members invite and members role refuse a customer in a staff account and a support user in a customer's (issue 58: both writes succeeded)", async () => {
    const { account_id: staffAccount } = (await cli("accounts", "create", "--name", "Support")) as { account_id: string };
    const staffEmail = `lead-${staffAccount}@example.test`;
    const { user_id: staff } = (await cli("users", "create", "--account", staffAccount, "--email", staffEmail, "--password", "correct horse battery", "--role", "support")) as { user_id: string };
    const staffOnly = /is the operator's staff account \(it has support users\): customers are never members of it/;
    await expect(cli("users", "create", "--account", staffAccount, "--email", `customer-${staffAccount}@example.test`, "--password", "correct horse battery", "--role", "owner")).rejects.toMatchObject(refused(staffOnly));
    await expect(cli("members", "invite", "--account", staffAccount, "--email", `invited-${staffAccount}@example.test`, "--role", "owner")).rejects.toMatchObject(refused(staffOnly));
    await expect(cli("members", "role", "--account", staffAccount, "--user", staff, "--role", "owner")).rejects.toMatchObject(refused(/is the operator's support staff/));

    const customer = await seedAccount(db);
    await expect(cli("users", "create", "--account", customer.accountId, "--email", `staff-${customer.accountId}@example.test`, "--password", "correct horse battery", "--role", "support")).rejects.toMatchObject(
      refused(/has customer members: a support user belongs to a staff account of its own/),
    );
    await expect(cli("members", "invite", "--account", customer.accountId, "--email", staffEmail, "--role", "member")).rejects.toMatchObject(refused(/is the operator's support staff/));

    expect(((await cli("members", "list", "--account", staffAccount)) as { members: { user_id: string }[] }).members.map((m) => m.user_id)).toEqual([staff]);
    expect(((await cli("members", "list", "--account", customer.accountId)) as { members: { user_id: string }[] }).members.map((m) => m.user_id)).toEqual([customer.userId]);
  });
});
