import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { accountActivity, apiKeys } from "../db/schema";
import { createApiKey, authenticateApiKey } from "../auth/api-keys";
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
