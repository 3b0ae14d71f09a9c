import type { MiddlewareHandler } from "hono";
import { forbidden } from "../errors";
import type { ApiEnv } from "./context";

/**
 * After `requireAuth("jwt")`: the operation changes what the account is told or where it is sent
 * (alerts, webhooks), which only its owner may do; members and support users read.
 */
export function requireOwner(action: string): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const auth = c.get("auth");
    if (auth.kind !== "jwt" || auth.role !== "owner") throw forbidden(`Only the account's owner may ${action}`);
    await next();
  };
}
