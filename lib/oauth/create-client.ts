import { oauthClients } from "../db/schema";
import type { Db } from "../db/types";
import { invalidInput } from "../errors";
import { newId } from "../ids";
import { randomToken, sha256Hex } from "../auth/secrets";

export const grantTypeNames = {
  authorization_code: "authorization_code",
  refresh_token: "refresh_token",
  device_code: "urn:ietf:params:oauth:grant-type:device_code",
  token_exchange: "urn:ietf:params:oauth:grant-type:token-exchange",
} as const;

export interface CreateClientInput {
  name: string;
  type: "public" | "confidential";
  redirectUris?: string[];
  grants?: string[];
  resources?: string[];
  agentRuntime?: boolean;
  resourceServer?: boolean;
}

/** Registers an OAuth client. A confidential client's secret is returned once and stored hashed. */
export async function createOAuthClient(db: Db, input: CreateClientInput) {
  if ((input.agentRuntime || input.resourceServer) && input.type !== "confidential") {
    throw invalidInput("Agent Runtime and Resource Server clients must be confidential");
  }
  for (const uri of input.redirectUris ?? []) {
    if (!URL.canParse(uri)) throw invalidInput(`Invalid redirect URI: ${uri}`);
  }
  const grants = (input.grants ?? []).map((g) => grantTypeNames[g as keyof typeof grantTypeNames] ?? g);
  const known = new Set<string>(Object.values(grantTypeNames));
  for (const g of grants) if (!known.has(g)) throw invalidInput(`Unknown grant type: ${g}`);
  const id = newId("cli");
  const secret = input.type === "confidential" ? randomToken(32) : undefined;
  await db.insert(oauthClients).values({
    id,
    name: input.name,
    type: input.type,
    secretHash: secret ? sha256Hex(secret) : null,
    redirectUris: input.redirectUris ?? [],
    grantTypes: grants,
    resources: input.resources ?? [],
    isAgentRuntime: input.agentRuntime ?? false,
    isResourceServer: input.resourceServer ?? false,
  });
  return { client_id: id, ...(secret ? { client_secret: secret } : {}) };
}
