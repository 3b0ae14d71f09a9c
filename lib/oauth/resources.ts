import { eq } from "drizzle-orm";
import { oauthClients } from "../db/schema";
import type { Db } from "../db/types";
import { apiAudience } from "../auth/issuer";
import { oauthError } from "./errors";
import type { OAuthClient } from "./client-auth";

/** RFC 8707 section 2: an absolute URI without a fragment. */
export function isResourceIndicator(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.hash === "" && !value.includes("#");
}

/**
 * The audience of a token a client asks for (RFC 8707). Without `resource` it is this API. A
 * resource must be this API or one registered by a Resource Server client; a client registered
 * with its own `resources` list may ask only for those.
 */
export async function resolveResource(db: Db, client: OAuthClient, resource: string | undefined): Promise<string> {
  if (resource === undefined) return apiAudience();
  if (!isResourceIndicator(resource)) throw oauthError("invalid_target", "resource must be an absolute URI without a fragment");
  if (!client.isResourceServer && client.resources.length > 0 && !client.resources.includes(resource)) {
    throw oauthError("invalid_target", `This client is not registered for resource ${resource}`);
  }
  if (resource === apiAudience()) return resource;
  const servers = await db.select({ resources: oauthClients.resources }).from(oauthClients).where(eq(oauthClients.isResourceServer, true));
  if (servers.some((s) => s.resources.includes(resource))) return resource;
  throw oauthError("invalid_target", `Unknown resource ${resource}: use ${apiAudience()} or a registered resource server`);
}
