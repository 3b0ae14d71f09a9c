import { accounts, creditBalances } from "../db/schema";
import type { Db } from "../db/types";
import { newId } from "../ids";
import { grantCredits } from "../billing/grant-credits";
import type { Actor } from "./activity";

/** Creates an account with its (zero) balance row; optional credits arrive as a welcome bonus. */
export async function createAccount(db: Db, input: { name: string; credits?: string; actor?: Actor }) {
  return db.transaction(async (tx) => {
    const id = newId("acc");
    await tx.insert(accounts).values({ id, name: input.name });
    await tx.insert(creditBalances).values({ accountId: id });
    let ledgerEntryId: string | undefined;
    if (input.credits && input.credits !== "0") {
      const grant = await grantCredits(tx as unknown as Db, {
        accountId: id,
        amount: input.credits,
        type: "welcome_bonus",
        description: "Welcome bonus",
        actor: input.actor,
      });
      ledgerEntryId = grant.ledger_entry_id;
    }
    return { account_id: id, ledger_entry_id: ledgerEntryId ?? null };
  });
}
