import type { Context } from "hono";
import { eq } from "drizzle-orm";
import type { ApiEnv } from "../http/context";
import { clientIp } from "../http/rate-limit";
import { apiKeys, users } from "../db/schema";
import type { Actor } from "../accounts/activity";

/**
 * Who is making this request, for the account activity log: the user (with their email) or the
 * API key (with its name), and the address and user agent it came from. Support users act as
 * `support`, so their entries read as such in the account they investigate.
 */
export async function requestActor(c: Context<ApiEnv>): Promise<Actor> {
  const auth = c.get("auth");
  const from = { ipAddress: clientIp(c), userAgent: c.req.header("user-agent") ?? null };
  if (auth.kind === "api_key") {
    const [key] = await c.env.db.select({ name: apiKeys.name, prefix: apiKeys.prefix }).from(apiKeys).where(eq(apiKeys.id, auth.apiKeyId));
    return { type: "api_key", id: auth.apiKeyId, label: key ? `${key.name} (${key.prefix}…)` : null, ...from };
  }
  const [user] = await c.env.db.select({ email: users.email }).from(users).where(eq(users.id, auth.userId));
  const type = auth.kind === "jwt" && auth.role === "support" ? "support" : "user";
  return { type, id: auth.userId, label: user?.email ?? null, ...from };
}
