// The credentials a Call of an http tool sends: the operation's own security alternatives where
// the manifest has them, else the provider-wide `auth`. A credential is the server's (a variable
// read at each Call) or the caller's connection (docs/connections.md). Secrets go nowhere but the
// request: messages name schemes, variables and scopes, never values.
import { providerSecret } from "../env";
import type { HttpCredential, ProviderAuth } from "../catalog/manifest";
import type { CallConnection } from "./types";

/** A credential with its secret, ready to be put on the request. */
export interface ResolvedCredential {
  type: HttpCredential["type"];
  name?: string;
  secret: string;
}

export type CredentialChoice =
  | { ok: true; credentials: ResolvedCredential[] }
  /** `signin`: what is missing is the caller's connection (with these scopes): the Call answers oauth_signin_required. */
  | { ok: false; message: string; signin?: { scopes: string[] } };

/** Whether any alternative of a Call's credentials is the caller's connection (the Call then looks one up). */
export function takesConnection(security: HttpCredential[][] | undefined, auth: ProviderAuth | null): boolean {
  if (security === undefined) return auth?.connection === true;
  return security.some((alternative) => alternative.some((c) => c.connection));
}

function connectionSecret(type: HttpCredential["type"], connection: CallConnection): string {
  // A pasted token sent as basic credentials is the user name with no password (as Stripe reads its keys).
  return type === "basic" && connection.basicFromToken ? `${connection.secret}:` : connection.secret;
}

function grants(connection: CallConnection | undefined, scopes: string[] | undefined): boolean {
  if (!connection) return false;
  return connection.scopes === null || (scopes ?? []).every((s) => connection.scopes!.includes(s));
}

/**
 * Picks what to send. `security` (alternatives, each a list sent together): `[]` sends nothing;
 * the first alternative whose credentials are all at hand wins — variables set, and the caller's
 * connection granting the scopes asked (a credential imported without a variable sends nothing
 * and never blocks, so an empty alternative is always satisfiable). Without `security`, the
 * provider's `auth`. When nothing can be satisfied, the message names the schemes and the unset
 * variables, or the scopes to sign in with, and the Call must not be sent.
 */
export function chooseCredentials(security: HttpCredential[][] | undefined, auth: ProviderAuth | null, connection?: CallConnection): CredentialChoice {
  if (security === undefined) return providerCredentials(auth, connection);
  if (security.length === 0) return { ok: true, credentials: [] };
  const unmet: string[] = [];
  let signin: { scopes: string[] } | undefined;
  for (const alternative of security) {
    const missingEnv = alternative.filter((c) => c.env !== undefined && !providerSecret(c.env));
    const wanted = alternative.filter((c) => c.connection);
    const scopes = [...new Set(wanted.flatMap((c) => c.scopes ?? []))];
    const connected = wanted.length === 0 || grants(connection, scopes);
    if (missingEnv.length === 0 && connected) {
      const credentials = alternative.flatMap((c) =>
        c.connection ? [{ type: c.type, name: c.name, secret: connectionSecret(c.type, connection!) }] : c.env ? [{ type: c.type, name: c.name, secret: providerSecret(c.env)! }] : [],
      );
      return { ok: true, credentials };
    }
    // The first alternative that lacks only the caller's connection is the one to sign in for.
    if (missingEnv.length === 0 && !signin) signin = { scopes };
    unmet.push(
      [...missingEnv.map((c) => `${c.env} (scheme "${c.scheme}", ${c.type})`), ...(connected ? [] : [`a connection${scopes.length ? ` with scope ${scopes.join(" ")}` : ""} (scheme "${wanted[0].scheme}")`])].join(" and "),
    );
  }
  if (signin) return { ok: false, signin, message: `The operation acts as you at the provider: connect your account${signin.scopes.length ? ` with scope ${signin.scopes.join(" ")}` : ""}` };
  return { ok: false, message: `${unmet.length > 1 ? "None of the operation's credentials is" : "The operation's credential is not"} configured on this server: set ${unmet.join(", or ")}` };
}

function providerCredentials(auth: ProviderAuth | null, connection: CallConnection | undefined): CredentialChoice {
  if (!auth || auth.type === "none") return { ok: true, credentials: [] };
  const name = auth.type === "header" ? auth.header : auth.type === "query" ? auth.query : undefined;
  if (auth.connection) {
    if (!connection) return { ok: false, signin: { scopes: [] }, message: "The provider acts as you: connect your account" };
    return { ok: true, credentials: [{ type: auth.type, name, secret: connectionSecret(auth.type, connection) }] };
  }
  const secret = auth.env ? providerSecret(auth.env) : undefined;
  if (!secret) return { ok: false, message: `The provider's credential is not configured on this server: set ${auth.env ?? "its variable"} (${auth.type} auth)` };
  return { ok: true, credentials: [{ type: auth.type, name, secret }] };
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
