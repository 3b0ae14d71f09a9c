// The credentials a Call of an http tool sends: the operation's own security alternatives where
// the manifest has them, else the provider-wide `auth`. Secrets are read from the environment at
// each Call and go nowhere but the request: messages name schemes and variables, never values.
import { providerSecret } from "../env";
import type { HttpCredential, ProviderAuth } from "../catalog/manifest";

/** A credential with its secret, ready to be put on the request. */
export interface ResolvedCredential {
  type: HttpCredential["type"];
  name?: string;
  secret: string;
}

export type CredentialChoice = { ok: true; credentials: ResolvedCredential[] } | { ok: false; message: string };

/**
 * Picks what to send. `security` (alternatives, each a list sent together): `[]` sends nothing;
 * the first alternative whose variables are all set wins (a credential imported without a
 * variable sends nothing and never blocks, so an empty alternative is always satisfiable).
 * Without `security`, the provider's `auth`. When nothing can be satisfied, the message names the
 * schemes and the unset variables, and the Call must not be sent.
 */
export function chooseCredentials(security: HttpCredential[][] | undefined, auth: ProviderAuth | null): CredentialChoice {
  if (security === undefined) return providerCredentials(auth);
  if (security.length === 0) return { ok: true, credentials: [] };
  const unmet: string[] = [];
  for (const alternative of security) {
    const missing = alternative.filter((c) => c.env !== undefined && !providerSecret(c.env));
    if (missing.length === 0) {
      const credentials = alternative.flatMap((c) => (c.env ? [{ type: c.type, name: c.name, secret: providerSecret(c.env)! }] : []));
      return { ok: true, credentials };
    }
    unmet.push(missing.map((c) => `${c.env} (scheme "${c.scheme}", ${c.type})`).join(" and "));
  }
  return { ok: false, message: `${unmet.length > 1 ? "None of the operation's credentials is" : "The operation's credential is not"} configured on this server: set ${unmet.join(", or ")}` };
}

function providerCredentials(auth: ProviderAuth | null): CredentialChoice {
  if (!auth || auth.type === "none") return { ok: true, credentials: [] };
  const secret = auth.env ? providerSecret(auth.env) : undefined;
  if (!secret) return { ok: false, message: `The provider's credential is not configured on this server: set ${auth.env ?? "its variable"} (${auth.type} auth)` };
  return { ok: true, credentials: [{ type: auth.type, name: auth.type === "header" ? auth.header : auth.type === "query" ? auth.query : undefined, secret }] };
}

/** Puts credentials on a request: headers (lower-case names), query parameters and cookie pairs. */
export function applyCredentials(credentials: ResolvedCredential[], url: URL, headers: Record<string, string>, cookies: string[]): void {
  for (const { type, name, secret } of credentials) {
    if (type === "bearer") headers.authorization = `Bearer ${secret}`;
    // Base64 has no colon: a value with one is `user:password`, anything else is already encoded.
    if (type === "basic") headers.authorization = `Basic ${secret.includes(":") ? Buffer.from(secret, "utf8").toString("base64") : secret}`;
    if (type === "header" && name) headers[name.toLowerCase()] = secret;
    if (type === "query" && name) url.searchParams.set(name, secret);
    if (type === "cookie" && name) {
      // As a header or query credential replaces a parameter of its name, a cookie one does: servers read the first pair of a name.
      const pair = `${name}=`;
      for (let i = cookies.length - 1; i >= 0; i--) if (cookies[i].startsWith(pair)) cookies.splice(i, 1);
      cookies.push(`${pair}${secret}`);
    }
  }
}
