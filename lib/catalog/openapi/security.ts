// Which credentials an operation sends, as the document declares them: its own `security`, else
// the document's; each Security Requirement Object is one alternative (credentials sent together),
// each named scheme resolved to a credential Tollgate can send and the variable holding its secret.
import type { HttpCredential } from "../manifest";
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
export function securityResolver(doc: Record<string, unknown>, envOf: (scheme: string) => string | undefined, warnings: Finding[]): SecurityResolver {
  const schemes = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  const declared = Array.isArray(doc.security) || operationEntries(doc).some(({ operation }) => Array.isArray(operation.security));
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
        if (!env) {
          warnOnce(`no-env:${name}`, `/components/securitySchemes/${pointerToken(name)}`, `no variable named for security scheme "${name}" (--auth-env ${name}=VAR): Calls send nothing for it`);
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

/** Every credential the imported tools may send (by scheme), with how many tools send it. */
export function expectedCredentials(securities: (HttpCredential[][] | undefined)[]): ExpectedCredential[] {
  const counts = new Map<string, ExpectedCredential>();
  for (const security of securities) {
    const schemes = new Map((security ?? []).flat().map((c) => [c.scheme, c]));
    for (const credential of schemes.values()) {
      const entry = counts.get(credential.scheme) ?? { scheme: credential.scheme, type: credential.type, ...(credential.env ? { env: credential.env } : {}), operations: 0 };
      entry.operations++;
      counts.set(credential.scheme, entry);
    }
  }
  return [...counts.values()];
}
