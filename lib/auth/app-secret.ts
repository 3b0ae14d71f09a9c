import { eq, sql } from "drizzle-orm";
import { appSecrets } from "../db/schema";
import type { Db } from "../db/types";
import { env } from "../env";
import { randomToken } from "./secrets";

/**
 * A named run-time secret: from the environment when given, else generated once and kept in the
 * database (inside DATA_DIR for the embedded database), so every instance and restart agrees.
 */
export async function getOrCreateSecret(db: Db, name: string): Promise<string> {
  await db
    .insert(appSecrets)
    .values({ name, value: randomToken(32) })
    .onConflictDoNothing({ target: appSecrets.name });
  const rows = await db.select({ value: appSecrets.value }).from(appSecrets).where(eq(appSecrets.name, name));
  return rows[0].value;
}

/** The secret that signs dashboard sessions (next-auth) and signed download URLs. */
export async function getAuthSecret(db: Db): Promise<string> {
  return env().AUTH_SECRET ?? (await getOrCreateSecret(db, "auth_secret"));
}

export async function hasAnyAccount(db: Db): Promise<boolean> {
  const result = await db.execute(sql`select exists(select 1 from accounts) as present`);
  return Boolean((result as unknown as { rows: { present: boolean }[] }).rows[0]?.present);
}
