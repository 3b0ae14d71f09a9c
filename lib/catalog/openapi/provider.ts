// What an OpenAPI document says of its provider as a whole: where its API lives (servers), how
// Calls authenticate (security schemes), and its id.
import type { ProviderAuth } from "../manifest";
import { own } from "../../own";
import { pointerToken } from "./schema";
import { isObject, operationEntries } from "./document";
import { credentialOf } from "./security";
import type { Finding, OpenApiImportOptions } from "./types";

/**
 * The provider's credentials from the document's security schemes: the first scheme its
 * requirements (global, then per operation) name that Tollgate can send, with `--auth-env VAR`
 * (or that scheme's `--auth-env SCHEME=VAR`). `scheme` is the one chosen, which `--auth-env VAR`
 * also names for the operations' own credentials; an apiKey in a cookie is sent only as those.
 */
export function providerAuth(
  doc: Record<string, unknown>,
  options: Pick<OpenApiImportOptions, "authEnv" | "schemeEnv">,
  requirementsDeclared: boolean,
  errors: Finding[],
  warnings: Finding[],
): { auth?: ProviderAuth; scheme?: string } {
  const schemes = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  const named = new Set<string>();
  const requirements = [doc.security, ...operationEntries(doc).map(({ operation }) => operation.security)];
  for (const list of requirements) if (Array.isArray(list)) for (const req of list) if (isObject(req)) for (const name of Object.keys(req)) named.add(name);
  const candidates = [...named, ...Object.keys(schemes)].filter((n, i, all) => all.indexOf(n) === i && isObject(own(schemes, n)));
  const mapped = candidates.flatMap((name) => {
    const auth = authOf(own(schemes, name));
    return auth ? [{ name, auth }] : [];
  });
  const chosen = mapped[0];
  const cookieOnly = chosen ? undefined : candidates.find((name) => !("unsendable" in credentialOf(own(schemes, name))));
  const env = options.authEnv ?? (chosen ? options.schemeEnv?.[chosen.name] : undefined);
  if (!env) {
    if (chosen && !requirementsDeclared) warnings.push({ pointer: `/components/securitySchemes/${pointerToken(chosen.name)}`, message: `the API authenticates with "${chosen.name}"; without --auth-env Calls are sent without credentials` });
    return { scheme: chosen?.name ?? cookieOnly };
  }
  if (!chosen) {
    if (cookieOnly && requirementsDeclared) return { scheme: cookieOnly };
    if (candidates.length > 0) {
      errors.push({ pointer: "/components/securitySchemes", message: `--auth-env ${env} given, but no security scheme is one Tollgate can send (http bearer/basic, apiKey in a header or the query, oauth2, openIdConnect): ${candidates.join(", ")}` });
      return {};
    }
    warnings.push({ pointer: "/components/securitySchemes", message: `the document declares no security scheme: --auth-env ${env} is sent as Authorization: Bearer` });
    return { auth: { type: "bearer", env } };
  }
  if (mapped.length > 1 && !requirementsDeclared) warnings.push({ pointer: "/components/securitySchemes", message: `several security schemes; Calls use "${chosen.name}" (not ${mapped.slice(1).map((m) => `"${m.name}"`).join(", ")})` });
  return { auth: { ...chosen.auth, env }, scheme: chosen.name };
}

/** How the provider's `auth` sends a security scheme's credential, or undefined when it cannot (cookie keys, digest, mutual TLS). */
function authOf(scheme: unknown): Omit<ProviderAuth, "env"> | undefined {
  const credential = credentialOf(scheme);
  if ("unsendable" in credential || credential.type === "cookie") return undefined;
  if (credential.type === "header") return { type: "header", header: credential.name };
  if (credential.type === "query") return { type: "query", query: credential.name };
  return { type: credential.type };
}

/**
 * `--base-url`, else the first server with its variables at their defaults, resolved against the
 * document's URL when relative. A document without servers of its own whose paths or operations
 * declare theirs (each Twilio API does) takes the one they declare most often: operations that
 * declare another keep theirs.
 */
export function providerBaseUrl(doc: Record<string, unknown>, options: OpenApiImportOptions, errors: Finding[], warnings: Finding[] = []): string {
  if (options.baseUrl) return options.baseUrl.replace(/\/+$/, "");
  const server = Array.isArray(doc.servers) && isObject(doc.servers[0]) ? doc.servers[0] : undefined;
  if (!server) {
    const common = commonOperationServer(doc, options);
    if (common) {
      warnings.push({ pointer: "/servers", message: `the document declares no servers: the provider's base URL is the one its operations declare most often (${common.url}, ${common.count} of ${common.of})` });
      return common.url;
    }
  }
  const url = serverUrl(server, "/servers/0", errors) ?? "/";
  const resolved = resolveUrl(url, options.documentUrl);
  if (!resolved) {
    errors.push({ pointer: server ? "/servers/0/url" : "/servers", message: `the server URL "${url}" is relative: give --base-url (or import the document from its URL)` });
    return "";
  }
  return resolved;
}

/** The absolute server URL that the most operations declare (their own, else their path's), ties to the first seen. */
function commonOperationServer(doc: Record<string, unknown>, options: OpenApiImportOptions): { url: string; count: number; of: number } | undefined {
  const counts = new Map<string, number>();
  let of = 0;
  for (const { item, operation } of operationEntries(doc)) {
    of++;
    const servers = Array.isArray(operation.servers) && operation.servers.length > 0 ? operation.servers : item.servers;
    const first = Array.isArray(servers) && isObject(servers[0]) ? servers[0] : undefined;
    const url = first && resolveUrl(serverUrl(first, "", []) ?? "", options.documentUrl);
    if (url && !/\{/.test(url)) counts.set(url, (counts.get(url) ?? 0) + 1);
  }
  let best: { url: string; count: number; of: number } | undefined;
  for (const [url, count] of counts) if (!best || count > best.count) best = { url, count, of };
  return best;
}

function serverUrl(server: Record<string, unknown> | undefined, pointer: string, errors: Finding[]): string | undefined {
  if (!server || typeof server.url !== "string") return undefined;
  const variables = isObject(server.variables) ? server.variables : {};
  return server.url.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const variable = own(variables, name);
    if (isObject(variable) && (typeof variable.default === "string" || typeof variable.default === "number")) return String(variable.default);
    errors.push({ pointer: `${pointer}/variables/${pointerToken(name)}`, message: `server variable {${name}} has no default` });
    return whole;
  });
}

export function resolveUrl(url: string, base: string | undefined): string | undefined {
  try {
    const absolute = base ? new URL(url, base) : /^https?:\/\//i.test(url) ? new URL(url) : url.startsWith("//") ? new URL(`https:${url}`) : undefined;
    if (!absolute || !/^https?:$/.test(absolute.protocol)) return undefined;
    return absolute.toString().replace(/\/+$/, "");
  } catch {
    return undefined;
  }
}

/**
 * The operation's (or its path's) own server, variables at their defaults, resolved against the
 * document's URL (else the provider's), when it leads elsewhere than the provider's base URL;
 * `--base-url` overrides it as it overrides the document's.
 */
export function ownServer(operation: Record<string, unknown>, item: Record<string, unknown>, pointer: string, baseUrl: string, options: OpenApiImportOptions): { url?: string } | { error: string } {
  if (options.baseUrl) return {};
  const own = Array.isArray(operation.servers) && operation.servers.length > 0;
  const servers = own ? (operation.servers as unknown[]) : Array.isArray(item.servers) ? item.servers : undefined;
  if (!servers || !isObject(servers[0]) || typeof servers[0].url !== "string") return {};
  const at = `${own ? pointer : pointer.replace(/\/[^/]+$/, "")}/servers/0`;
  const problems: Finding[] = [];
  const filled = serverUrl(servers[0], at, problems);
  if (problems.length > 0) return { error: `${problems[0].message} (${problems[0].pointer})` };
  const url = resolveUrl(filled ?? "", options.documentUrl ?? `${baseUrl}/`);
  if (!url) return { error: `its server URL "${servers[0].url}" (${at}/url) is not an http(s) URL` };
  return url === baseUrl ? {} : { url };
}

/** `info.title` as a provider id: lower-case letters, digits and `-` ("Spotify Web API" → `spotify-web-api`). */
export function slug(title: string): string {
  const s = title
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 100)
    .replace(/-+$/, "");
  return s || "openapi";
}
