import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { creditGrants } from "../db/schema";
import { getBalance } from "../billing/get-balance";
import { runCommand, UsageError } from "./commands";

const { db } = await createTestDatabase();
const cli = (...argv: string[]) => runCommand(db, argv) as Promise<Record<string, unknown>>;

describe("credits grant --expires-at", () => {
  it("grants credits that expire: the lot is recorded with the grant's ledger row id and its expiry", async () => {
    const { accountId } = await seedAccount(db);
    const at = new Date(Date.now() + 30 * 24 * 3_600_000);
    at.setUTCMilliseconds(0);
    const granted = await cli("credits", "grant", "--account", accountId, "--amount", "12.5", "--type", "welcome_bonus", "--expires-at", at.toISOString().replace(".000Z", "Z"));
    expect(granted).toEqual({ ledger_entry_id: expect.stringMatching(/^led_/), balance_after: 12.5, expires_at: at.toISOString() });
    const lots = await db.select().from(creditGrants).where(eq(creditGrants.accountId, accountId));
    expect(lots).toEqual([expect.objectContaining({ id: granted.ledger_entry_id, kind: "bonus", amountCredits: "12.500000", remainingCredits: "12.500000", expiresAt: at, expiredAt: null })]);
    expect((await getBalance(db, accountId)).bonus_credits).toBe(12.5);
  });

  it("reads a date alone as midnight UTC, and a date-time with an offset in that offset", async () => {
    const { accountId } = await seedAccount(db);
    const year = new Date().getUTCFullYear() + 2;
    expect(await cli("credits", "grant", "--account", accountId, "--amount", "1", "--expires-at", `${year}-03-01`)).toMatchObject({ expires_at: `${year}-03-01T00:00:00.000Z` });
    expect(await cli("credits", "grant", "--account", accountId, "--amount", "1", "--expires-at", `${year}-03-01T08:00:00+08:00`)).toMatchObject({ expires_at: `${year}-03-01T00:00:00.000Z` });
    const kinds = await db.select({ kind: creditGrants.kind }).from(creditGrants).where(eq(creditGrants.accountId, accountId));
    expect(kinds).toEqual([{ kind: "paid" }, { kind: "paid" }]);
  });

  it("without --expires-at the credits never expire: no lot", async () => {
    const { accountId } = await seedAccount(db);
    expect(await cli("credits", "grant", "--account", accountId, "--amount", "3")).toMatchObject({ expires_at: null });
    expect(await db.select().from(creditGrants).where(eq(creditGrants.accountId, accountId))).toEqual([]);
  });

  it("refuses a time without its zone, something that is not a date, and a time already past; nothing is granted", async () => {
    const { accountId } = await seedAccount(db);
    const grant = (expiresAt: string) => cli("credits", "grant", "--account", accountId, "--amount", "5", "--expires-at", expiresAt);
    await expect(grant("2099-01-31T18:00")).rejects.toBeInstanceOf(UsageError);
    await expect(grant("next tuesday")).rejects.toBeInstanceOf(UsageError);
    await expect(grant("2099-13-01")).rejects.toBeInstanceOf(UsageError);
    await expect(grant("2020-01-01T00:00:00Z")).rejects.toMatchObject({ code: "invalid_input", message: expect.stringContaining("in the future") });
    expect((await getBalance(db, accountId)).total_credits).toBe(0);
    expect(await db.select().from(creditGrants).where(eq(creditGrants.accountId, accountId))).toEqual([]);
  });
});
