import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Database, Db } from "../db/types";
import type { AccessClaims } from "../auth/jwt";

/** Who is calling: an API key, a user's JWT, or an agent's delegation token (RFC 8693). */
export type AuthContext =
  | { kind: "api_key"; accountId: string; apiKeyId: string }
  | { kind: "jwt"; accountId: string; userId: string; role: AccessClaims["role"]; claims: AccessClaims }
  | { kind: "delegation"; accountId: string; userId: string; claims: AccessClaims };

export interface ApiDeps {
  database: Database;
}

export interface ApiEnv {
  Variables: {
    requestId: string;
    db: Db;
    deps: ApiDeps;
    auth: AuthContext;
  };
}

export type ApiApp = OpenAPIHono<ApiEnv>;
