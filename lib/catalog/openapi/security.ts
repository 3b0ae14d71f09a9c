// Which credentials an operation sends, as the document declares them: its own `security`, else
// the document's; each Security Requirement Object is one alternative (credentials sent together),
// each named scheme resolved to a credential Tollgate can send and the variable holding its secret.
import type { HttpCredential, ProviderConnection } from "../manifest";
import { own } from "../../own";
import { isObject, operationEntries } from "./document";
import { pointerToken } from "./schema";
import type { ExpectedCredential, Finding } from "./types";

/** How Tollgate sends a security scheme's credential, or why it cannot. */
export function credentialOf(scheme: unknown): Omit<HttpCredential, "scheme" | "env"> | { unsendable: string } {
  if (!isObject(scheme)) return { unsendable: "it is not declared in components.securitySchemes" };
  const httpScheme = typeof scheme.scheme === "string" ? scheme.scheme.toLowerCase() : "";
  if (scheme.type === "http" && httpScheme === "bearer") return { type: "bearer" };
  if (scheme.type === "http" && httpScheme === "basic") return { type: "basic" };
  if (scheme.type === "oauth2" || scheme.type === "openIdConnect") return { type: "bearer" };
  if (scheme.type === "apiKey" && typeof scheme.name === "string" && scheme.name) {
    if (scheme.in === "header" || scheme.in === "query" || scheme.in === "cookie") return { type: scheme.in, name: scheme.name };
    return { unsendable: `an apiKey in "${String(scheme.in)}" is not one Tollgate can send (header, query, cookie)` };
  }
  if (scheme.type === "http") return { unsendable: `http scheme "${httpScheme || "(none)"}" is not one Tollgate can send (bearer, basic)` };
  if (scheme.type === "mutualTLS") return { unsendable: "mutual TLS is not a credential Tollgate can send" };
  return { unsendable: `scheme type "${String(scheme.type)}" is not one Tollgate can send` };
}

export interface SecurityResolver {
  /** Whether the document names security requirements anywhere: when not, tools carry none and the provider's `auth` applies. */
  declared: boolean;
  /** The operation's alternatives (undefined when the document declares none), or why it cannot be called. */
  resolve(operation: Record<string, unknown>, pointer: string): { security?: HttpCredential[][] } | { skipped: string };
}

/**
 * `envOf` names the variable of a scheme (absent: its credentials send nothing, a warning once).
 * An alternative naming a scheme Tollgate cannot send is dropped with a warning; an operation
 * requiring credentials with none left is refused.
 */
export function securityResolver(
  doc: Record<string, unknown>,
  envOf: (scheme: string) => string | undefined,
  warnings: Finding[],
  /** Whether a scheme's credential is the caller's connection (docs/connections.md): OAuth sign-in schemes, and those marked `--connection`. */
  isConnection: (scheme: string) => boolean = () => false,
): SecurityResolver {
  const schemes = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  const declared = requirementsDeclared(doc);
  const warned = new Set<string>();
  const warnOnce = (key: string, pointer: string, message: string) => {
    if (!warned.has(key)) warnings.push({ pointer, message });
    warned.add(key);
  };

  function resolve(operation: Record<string, unknown>, pointer: string): { security?: HttpCredential[][] } | { skipped: string } {
    if (!declared) return {};
    const ownRequirements = Array.isArray(operation.security);
    const requirements = ownRequirements ? (operation.security as unknown[]) : Array.isArray(doc.security) ? doc.security : [];
    const at = ownRequirements ? `${pointer}/security` : "/security";
    const alternatives: HttpCredential[][] = [];
    const refused: string[] = [];
    requirements.forEach((requirement, i) => {
      if (!isObject(requirement)) {
        warnOnce(`${at}/${i}`, `${at}/${i}`, "a security requirement that is not an object: ignored");
        return;
      }
      const credentials: HttpCredential[] = [];
      for (const name of Object.keys(requirement)) {
        const credential = credentialOf(own(schemes, name));
        if ("unsendable" in credential) {
          refused.push(`"${name}" (${credential.unsendable})`);
          warnOnce(`unsendable:${name}`, `${at}/${i}`, `security scheme "${name}": ${credential.unsendable}; the alternatives naming it are left out`);
          return;
        }
        const env = envOf(name);
        if (!env && isConnection(name)) {
          const scopes = Array.isArray(requirement[name]) ? (requirement[name] as unknown[]).filter((s): s is string => typeof s === "string" && s.length > 0) : [];
          credentials.push({ scheme: name, ...credential, connection: true, ...(scopes.length ? { scopes } : {}) });
          continue;
        }
        if (!env) {
          warnOnce(`no-env:${name}`, `/components/securitySchemes/${pointerToken(name)}`, `no variable named for security scheme "${name}" (--auth-env ${name}=VAR, or --connection ${name} for each caller's own): Calls send nothing for it`);
        }
        credentials.push({ scheme: name, ...credential, ...(env ? { env } : {}) });
      }
      alternatives.push(credentials);
    });
    if (requirements.length > 0 && alternatives.length === 0) {
      return { skipped: `it requires credentials Tollgate cannot send: ${[...new Set(refused)].join("; ") || "no usable security requirement"}` };
    }
    return { security: alternatives };
  }

  return { declared, resolve };
}

/** Whether the document names security requirements anywhere (globally or on an operation). */
export function requirementsDeclared(doc: Record<string, unknown>): boolean {
  return Array.isArray(doc.security) || operationEntries(doc).some(({ operation }) => Array.isArray(operation.security));
}

/** Every credential the imported tools may send (by scheme), with how many tools send it. */
export function expectedCredentials(securities: (HttpCredential[][] | undefined)[]): ExpectedCredential[] {
  const counts = new Map<string, ExpectedCredential>();
  for (const security of securities) {
    const schemes = new Map((security ?? []).flat().map((c) => [c.scheme, c]));
    for (const credential of schemes.values()) {
      const entry = counts.get(credential.scheme) ?? { scheme: credential.scheme, type: credential.type, ...(credential.env ? { env: credential.env } : {}), ...(credential.connection ? { connection: true as const } : {}), operations: 0 };
      entry.operations++;
      counts.set(credential.scheme, entry);
    }
  }
  return [...counts.values()];
}

/** The authorization code flow of an oauth2 scheme, or the discovery URL of an openIdConnect one: how users connect (undefined: neither). */
export function connectionOfScheme(scheme: unknown, resolve: (url: string) => string | undefined): ProviderConnection | undefined {
  if (!isObject(scheme)) return undefined;
  if (scheme.type === "openIdConnect" && typeof scheme.openIdConnectUrl === "string") {
    const url = resolve(scheme.openIdConnectUrl);
    return url ? { type: "oauth2", openid_configuration_url: url, default_scopes: ["openid"], token_endpoint_auth: "client_secret_basic" } : undefined;
  }
  const flow = scheme.type === "oauth2" && isObject(scheme.flows) && isObject(scheme.flows.authorizationCode) ? scheme.flows.authorizationCode : undefined;
  if (!flow || typeof flow.authorizationUrl !== "string" || typeof flow.tokenUrl !== "string") return undefined;
  const authorizationUrl = resolve(flow.authorizationUrl);
  const tokenUrl = resolve(flow.tokenUrl);
  if (!authorizationUrl || !tokenUrl) return undefined;
  const scopes = isObject(flow.scopes) ? Object.fromEntries(Object.entries(flow.scopes).map(([k, v]) => [k, typeof v === "string" ? v : ""])) : undefined;
  return { type: "oauth2", authorization_url: authorizationUrl, token_url: tokenUrl, default_scopes: [], ...(scopes ? { scopes } : {}), token_endpoint_auth: "client_secret_basic" };
}

/** A secret connection for an apiKey or http scheme marked `--connection`: one value, or a user name and password for http basic. */
export function secretConnectionOf(name: string, scheme: unknown): ProviderConnection | undefined {
  const credential = credentialOf(scheme);
  if ("unsendable" in credential) return undefined;
  const description = isObject(scheme) && typeof scheme.description === "string" ? scheme.description.replace(/\s+/g, " ").trim().slice(0, 100) : "";
  return { type: "secret", format: credential.type === "basic" ? "basic" : "token", label: description || name };
}
