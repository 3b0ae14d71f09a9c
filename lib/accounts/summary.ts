// Whose account this is, in the words a person tells accounts apart by: its name and its owners'
// addresses. Support reads it for the account it is investigating (the lookup, the banner on
// every page it opens for a customer); members read their own.
import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { notFound } from "../errors";

export interface AccountSummary {
  account_id: string;
  name: string;
  /** The owners' email addresses, the earliest member first. */
  owners: string[];
  member_count: number;
  created_at: string;
}

export async function accountSummary(db: Db, accountId: string): Promise<AccountSummary> {
  const [found] = rows<{ name: string; owners: string[] | null; members: number | string; created_at: Date | string }>(
    await db.execute(sql`
      SELECT a.name, a.created_at,
             (SELECT array_agg(u.email ORDER BY m.created_at, u.email) FROM account_members m JOIN users u ON u.id = m.user_id
               WHERE m.account_id = a.id AND m.role = 'owner') AS owners,
             (SELECT count(*) FROM account_members m WHERE m.account_id = a.id) AS members
        FROM accounts a WHERE a.id = ${accountId}`),
  );
  if (!found) throw notFound(`No account ${accountId}`);
  return {
    account_id: accountId,
    name: found.name,
    owners: found.owners ?? [],
    member_count: Number(found.members),
    created_at: new Date(found.created_at).toISOString(),
  };
}
