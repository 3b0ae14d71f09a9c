import type { Context } from "hono";
import type { ApiEnv } from "../../http/context";
import type { UserRole } from "../../vocab/roles";

/** The user a connections operation acts for (the access table admits user tokens only). */
export function connectionActor(c: Context<ApiEnv>): { accountId: string; userId: string; role: UserRole } {
  const auth = c.get("auth");
  if (auth.kind !== "jwt") throw new Error("connections operations take user tokens only (lib/api/access.ts)");
  return { accountId: auth.accountId, userId: auth.userId, role: auth.role };
}
