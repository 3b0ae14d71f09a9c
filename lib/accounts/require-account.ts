import { eq } from "drizzle-orm";
import { accounts } from "../db/schema";
import type { Db } from "../db/types";
import { notFound } from "../errors";

/** Fails with not_found unless the account exists (for callers that name an account: the CLI). */
export async function requireAccount(db: Db, accountId: string): Promise<void> {
  const rows = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
  if (rows.length === 0) throw notFound(`Account ${accountId} not found`);
}
