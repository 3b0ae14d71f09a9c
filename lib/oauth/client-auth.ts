import { eq } from "drizzle-orm";
import { oauthClients } from "../db/schema";
import type { Db } from "../db/types";
import { digestsEqual, sha256Hex } from "../auth/secrets";
import { oauthError } from "./errors";

export type OAuthClient = typeof oauthClients.$inferSelect;

/** How the request presented its client: the Authorization header and/or a `client_id` parameter. */
export interface ClientCredentials {
  authorization?: string;
  clientId?: string;
}

export interface AuthenticatedClient {
  client: OAuthClient;
  /** True when the client proved its identity with its secret (HTTP Basic). */
  confidential: boolean;
}

// Compared against when the client is unknown, so a miss costs what a hit costs.
const DUMMY_DIGEST = sha256Hex("tollgate-no-such-client");

/** RFC 6749 section 2.3.1: `Basic base64(urlencode(client_id) ":" urlencode(client_secret))`. */
export function parseBasicAuthorization(header: string): { clientId: string; secret: string } {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match) throw oauthError("invalid_client", "Client authentication must use HTTP Basic");
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw oauthError("invalid_client", "Malformed HTTP Basic credentials");
  try {
    const formDecode = (s: string) => decodeURIComponent(s.replaceAll("+", " "));
    return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw oauthError("invalid_client", "Malformed HTTP Basic credentials");
  }
}

async function findClient(db: Db, id: string): Promise<OAuthClient | undefined> {
  return (await db.select().from(oauthClients).where(eq(oauthClients.id, id)).limit(1))[0];
}

/**
 * Authenticates the OAuth client of a request: HTTP Basic for confidential clients (the secret's
 * SHA-256 compared in constant time), `client_id` alone for public ones. A confidential client
 * that sends only its id, or a public client that sends a secret, is `invalid_client`.
 */
export async function authenticateClient(db: Db, credentials: ClientCredentials): Promise<AuthenticatedClient> {
  if (credentials.authorization) {
    const { clientId, secret } = parseBasicAuthorization(credentials.authorization);
    if (credentials.clientId !== undefined && credentials.clientId !== clientId) {
      throw oauthError("invalid_request", "client_id does not match the client authenticated with HTTP Basic");
    }
    const client = await findClient(db, clientId);
    const matches = digestsEqual(sha256Hex(secret), client?.secretHash ?? DUMMY_DIGEST);
    if (!client || !client.secretHash || client.type !== "confidential" || !matches) {
      throw oauthError("invalid_client", "Client authentication failed");
    }
    return { client, confidential: true };
  }
  if (!credentials.clientId) throw oauthError("invalid_client", "Client authentication required: send client_id, or HTTP Basic for a confidential client");
  const client = await findClient(db, credentials.clientId);
  if (!client) throw oauthError("invalid_client", "Client authentication failed");
  if (client.type === "confidential") throw oauthError("invalid_client", "A confidential client must authenticate with HTTP Basic");
  return { client, confidential: false };
}

/** Fails with `unauthorized_client` unless the client was registered for `grantType`. */
export function assertGrantAllowed(client: OAuthClient, grantType: string): void {
  if (!client.grantTypes.includes(grantType)) {
    throw oauthError("unauthorized_client", `Client ${client.id} is not registered for the ${grantType} grant`);
  }
}
