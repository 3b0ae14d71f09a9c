import { eq } from "drizzle-orm";
import { accounts } from "../db/schema";
import type { Db } from "../db/types";
import { notFound } from "../errors";
import { recordActivity, type Actor } from "./activity";

/** The one rule: a tool limited to `regions` is called only from an account whose region they list (none set: refused). */
export function regionAllows(regions: string[] | null, accountRegion: string | null): boolean {
  return regions === null || (accountRegion !== null && regions.includes(accountRegion));
}

/** The account's region (set by the operator or an owner); null when none is set. */
export async function accountRegion(db: Db, accountId: string): Promise<string | null> {
  const [row] = await db.select({ region: accounts.region }).from(accounts).where(eq(accounts.id, accountId));
  return row?.region ?? null;
}

/**
 * Sets where the account calls from (docs/connections.md, Region): tools that declare regions
 * answer `region_restricted` to accounts elsewhere or without one. Recorded in the activity log.
 */
export async function setAccountRegion(db: Db, accountId: string, region: string | null, actor: Actor): Promise<{ account_id: string; region: string | null }> {
  await db.transaction(async (tx) => {
    const [before] = await tx.select({ region: accounts.region }).from(accounts).where(eq(accounts.id, accountId)).for("update");
    if (!before) throw notFound(`Account ${accountId} not found`);
    if (before.region === region) return;
    await tx.update(accounts).set({ region }).where(eq(accounts.id, accountId));
    await recordActivity(tx as unknown as Db, accountId, actor, { action: "account.region_set", objectType: "account", objectId: accountId, before: { region: before.region }, after: { region } });
  });
  return { account_id: accountId, region };
}
