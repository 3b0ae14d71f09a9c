import { eq } from "drizzle-orm";
import { accounts, users } from "../db/schema";
import type { UserRole } from "../auth/roles";
import type { Db } from "../db/types";
import { DomainError, invalidInput, notFound } from "../errors";
import { newId } from "../ids";
import { hashPassword } from "../auth/passwords";

export async function createUser(db: Db, input: { accountId: string; email: string; password: string; role?: UserRole }) {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw invalidInput(`Invalid email address: ${input.email}`);
  if (input.password.length < 8) throw invalidInput("Password must be at least 8 characters");
  const account = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, input.accountId));
  if (account.length === 0) throw notFound(`Account ${input.accountId} not found`);
  const existing = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  if (existing.length > 0) throw new DomainError("conflict", `A user with email ${email} already exists`);
  const id = newId("usr");
  await db.insert(users).values({
    id,
    accountId: input.accountId,
    email,
    passwordHash: await hashPassword(input.password),
    role: input.role ?? "owner",
  });
  return { user_id: id };
}

export async function getUserById(db: Db, id: string) {
  const rows = await db
    .select({ id: users.id, accountId: users.accountId, email: users.email, role: users.role })
    .from(users)
    .where(eq(users.id, id));
  if (rows.length === 0) throw notFound(`User ${id} not found`);
  return rows[0];
}
