import { getDatabase } from "../db";
import { getAuthSecret } from "../auth/app-secret";

let cached: string | undefined;

/**
 * The secret that signs and encrypts dashboard session cookies. The production server sets
 * NEXTAUTH_SECRET before Next starts; under `next dev` it comes from the database (generated once),
 * so both modes agree on it across restarts.
 */
export async function getDashboardSecret(): Promise<string> {
  if (process.env.NEXTAUTH_SECRET) return process.env.NEXTAUTH_SECRET;
  if (!cached) {
    const { db } = await getDatabase();
    cached = await getAuthSecret(db);
  }
  return cached;
}
