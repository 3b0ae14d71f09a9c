import { eq, sql } from "drizzle-orm";
import { accounts } from "../db/schema";
import type { Db } from "../db/types";
import { notFound } from "../errors";
import { notifyAuthChange } from "../auth/auth-change";
import { forgetApiKeys } from "../auth/api-keys";

/**
 * Disables an account (every API key and token of it refused with 403, on every instance at once)
 * or enables it again. Its data, balance and ledger are untouched.
 */
export async function setAccountDisabled(db: Db, input: { accountId: string; disabled: boolean }) {
  const row = await db.transaction(async (tx) => {
    const [updated] = await tx
      .update(accounts)
      .set({ disabledAt: input.disabled ? sql`coalesce(${accounts.disabledAt}, now())` : null })
      .where(eq(accounts.id, input.accountId))
      .returning({ id: accounts.id, disabledAt: accounts.disabledAt });
    if (!updated) throw notFound(`Account ${input.accountId} not found`);
    await notifyAuthChange(tx, { kind: "account", accountId: input.accountId });
    return updated;
  });
  // This instance's cache after the commit (other instances hear the notification).
  forgetApiKeys(db, { accountId: input.accountId });
  return { account_id: row.id, disabled: row.disabledAt !== null, disabled_at: row.disabledAt?.toISOString() ?? null };
}
