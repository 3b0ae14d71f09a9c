import { eq } from "drizzle-orm";
import { accounts, users } from "../db/schema";
import type { UserRole } from "../vocab/roles";
import type { Db } from "../db/types";
import { DomainError, invalidInput, notFound } from "../errors";
import { newId } from "../ids";
import { hashPassword } from "../auth/passwords";
import { type Actor, OPERATOR } from "./activity";
import { addMember } from "./members";

/** A new user, a member of `accountId` with `role` (the operator's `users create`; invited users join by their link instead). */
export async function createUser(db: Db, input: { accountId: string; email: string; password: string; role?: UserRole; actor?: Actor }) {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw invalidInput(`Invalid email address: ${input.email}`);
  if (input.password.length < 8) throw invalidInput("Password must be at least 8 characters");
  const account = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, input.accountId));
  if (account.length === 0) throw notFound(`Account ${input.accountId} not found`);
  const existing = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  if (existing.length > 0) throw new DomainError("conflict", `A user with email ${email} already exists`);
  const id = newId("usr");
  const passwordHash = await hashPassword(input.password);
  const role = input.role ?? "owner";
  await db.transaction(async (tx) => {
    await tx.insert(users).values({ id, accountId: input.accountId, email, passwordHash, role });
    await addMember(tx as unknown as Db, { accountId: input.accountId, userId: id, role, actor: input.actor ?? OPERATOR, via: "users create" });
  });
  return { user_id: id };
}
