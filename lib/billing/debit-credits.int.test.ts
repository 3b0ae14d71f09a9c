import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { createAccount } from "../accounts/create-account";
import { grantCredits } from "./grant-credits";
import { debitCredits } from "./debit-credits";
import { getBalance } from "./get-balance";
import { newId } from "../ids";
import type { Database } from "../db/types";

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});

const debit = (accountId: string, amount: string) =>
  debitCredits(database.db, {
    accountId,
    amount,
    ledger: { id: newId("led"), entry_type: "consume_tool_execute", description: "test", source_ref_type: "test", source_ref_id: "t" },
  });

describe("debitCredits", () => {
  it("draws bonus, then reward, then paid, and records the split on the ledger row", async () => {
    const { account_id } = await createAccount(database.db, { name: "split", credits: "2" });
    await grantCredits(database.db, { accountId: account_id, amount: "3", type: "invitation_reward" });
    await grantCredits(database.db, { accountId: account_id, amount: "10", type: "payment_recharge" });
    const result = await debit(account_id, "6.5");
    expect(result).not.toBeNull();
    expect(result!.split).toEqual({ bonus: "2.000000", reward: "3.000000", paid: "1.500000" });
    expect(result!.balanceBefore).toBe("15.000000");
    expect(result!.balanceAfter).toBe("8.500000");
    const balance = await getBalance(database.db, account_id);
    expect(balance).toMatchObject({ bonus_credits: 0, reward_credits: 0, paid_credits: 8.5, total_credits: 8.5 });
  });

  it("changes nothing and returns null when credits are short", async () => {
    const { account_id } = await createAccount(database.db, { name: "short", credits: "1" });
    expect(await debit(account_id, "1.000001")).toBeNull();
    expect((await getBalance(database.db, account_id)).total_credits).toBe(1);
    const count = await database.db.execute(sql`select count(*)::int as n from credits_ledger where account_id = ${account_id}`);
    expect((count as unknown as { rows: { n: number }[] }).rows[0].n).toBe(1);
  });

  it("keeps sum(ledger) = balance and a continuous balance chain", async () => {
    const { account_id } = await createAccount(database.db, { name: "chain", credits: "5" });
    for (const amount of ["0.1", "0.2", "1", "0.000001"]) expect(await debit(account_id, amount)).not.toBeNull();
    const result = await database.db.execute(
      sql`select amount_credits, balance_before, balance_after from credits_ledger where account_id = ${account_id} order by seq`,
    );
    const rows = (result as unknown as { rows: { amount_credits: string; balance_before: string; balance_after: string }[] }).rows;
    let previous = "0.000000";
    let sum = 0n;
    for (const row of rows) {
      expect(row.balance_before).toBe(previous);
      previous = row.balance_after;
      sum += BigInt(row.amount_credits.replace(".", ""));
    }
    const balance = await getBalance(database.db, account_id);
    expect(previous).toBe("3.699999");
    expect(Number(sum) / 1e6).toBe(balance.total_credits);
  });
});
