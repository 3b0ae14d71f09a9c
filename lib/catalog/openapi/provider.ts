// What an OpenAPI document says of its provider as a whole: where its API lives (servers), how
// Calls authenticate (security schemes), and its id.
import type { ProviderAuth } from "../manifest";
import type { Finding, OpenApiImportOptions } from "./types";
import { pointerToken } from "./schema";

/** The operations a Path Item may hold. */
export const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The provider's credentials from the document's security schemes: the first scheme its
 * requirements (global, then per operation) name that Tollgate can send, with `--auth-env`.
 */
export function providerAuth(doc: Record<string, unknown>, authEnv: string | undefined, errors: Finding[], warnings: Finding[]): ProviderAuth | undefined {
  const schemes = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  const named = new Set<string>();
  const requirements = [doc.security, ...operationsOf(doc).map((op) => op.security)];
  for (const list of requirements) if (Array.isArray(list)) for (const req of list) if (isObject(req)) for (const name of Object.keys(req)) named.add(name);
  const candidates = [...named, ...Object.keys(schemes)].filter((n, i, all) => all.indexOf(n) === i && isObject(schemes[n]));
  const mapped = candidates.flatMap((name) => {
    const auth = authOf(schemes[name] as Record<string, unknown>);
    return auth ? [{ name, auth }] : [];
  });
  const chosen = mapped[0];
  if (!authEnv) {
    if (chosen) warnings.push({ pointer: `/components/securitySchemes/${pointerToken(chosen.name)}`, message: `the API authenticates with "${chosen.name}"; without --auth-env Calls are sent without credentials` });
    return undefined;
  }
  if (!chosen) {
    if (candidates.length > 0) {
      errors.push({ pointer: "/components/securitySchemes", message: `--auth-env ${authEnv} given, but no security scheme is one Tollgate can send (http bearer/basic, apiKey in a header or the query, oauth2, openIdConnect): ${candidates.join(", ")}` });
      return undefined;
    }
    warnings.push({ pointer: "/components/securitySchemes", message: `the document declares no security scheme: --auth-env ${authEnv} is sent as Authorization: Bearer` });
    return { type: "bearer", env: authEnv };
  }
  if (mapped.length > 1) warnings.push({ pointer: "/components/securitySchemes", message: `several security schemes; Calls use "${chosen.name}" (not ${mapped.slice(1).map((m) => `"${m.name}"`).join(", ")})` });
  return { ...chosen.auth, env: authEnv };
}

/** How Tollgate sends a security scheme's credential, or undefined when it cannot (cookie keys, digest, mutual TLS). */
function authOf(scheme: Record<string, unknown>): Omit<ProviderAuth, "env"> | undefined {
  const httpScheme = typeof scheme.scheme === "string" ? scheme.scheme.toLowerCase() : "";
  if (scheme.type === "http" && httpScheme === "bearer") return { type: "bearer" };
  if (scheme.type === "http" && httpScheme === "basic") return { type: "basic" };
  if (scheme.type === "oauth2" || scheme.type === "openIdConnect") return { type: "bearer" };
  if (scheme.type === "apiKey" && typeof scheme.name === "string" && scheme.name) {
    if (scheme.in === "header") return { type: "header", header: scheme.name };
    if (scheme.in === "query") return { type: "query", query: scheme.name };
  }
  return undefined;
}

function operationsOf(doc: Record<string, unknown>): Record<string, unknown>[] {
  if (!isObject(doc.paths)) return [];
  return Object.values(doc.paths).flatMap((item) => (isObject(item) ? METHODS.map((m) => item[m]).filter(isObject) : []));
}

/** `--base-url`, else the first server with its variables at their defaults, resolved against the document's URL when relative. */
export function providerBaseUrl(doc: Record<string, unknown>, options: OpenApiImportOptions, errors: Finding[]): string {
  if (options.baseUrl) return options.baseUrl.replace(/\/+$/, "");
  const server = Array.isArray(doc.servers) && isObject(doc.servers[0]) ? doc.servers[0] : undefined;
  const url = serverUrl(server, "/servers/0", errors) ?? "/";
  const resolved = resolveUrl(url, options.documentUrl);
  if (!resolved) {
    errors.push({ pointer: server ? "/servers/0/url" : "/servers", message: `the server URL "${url}" is relative: give --base-url (or import the document from its URL)` });
    return "";
  }
  return resolved;
}

function serverUrl(server: Record<string, unknown> | undefined, pointer: string, errors: Finding[]): string | undefined {
  if (!server || typeof server.url !== "string") return undefined;
  const variables = isObject(server.variables) ? server.variables : {};
  return server.url.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    if (isObject(variable) && (typeof variable.default === "string" || typeof variable.default === "number")) return String(variable.default);
    errors.push({ pointer: `${pointer}/variables/${pointerToken(name)}`, message: `server variable {${name}} has no default` });
    return whole;
  });
}

function resolveUrl(url: string, base: string | undefined): string | undefined {
  try {
    const absolute = base ? new URL(url, base) : /^https?:\/\//i.test(url) ? new URL(url) : url.startsWith("//") ? new URL(`https:${url}`) : undefined;
    if (!absolute || !/^https?:$/.test(absolute.protocol)) return undefined;
    return absolute.toString().replace(/\/+$/, "");
  } catch {
    return undefined;
  }
}

/** The operation's (or its path's) own servers when they lead elsewhere than the provider's base URL. */
export function ownServers(operation: Record<string, unknown>, item: Record<string, unknown>, baseUrl: string, options: OpenApiImportOptions): string | undefined {
  if (options.baseUrl) return undefined;
  const servers = Array.isArray(operation.servers) ? operation.servers : Array.isArray(item.servers) ? item.servers : undefined;
  if (!servers || !isObject(servers[0]) || typeof servers[0].url !== "string") return undefined;
  const url = resolveUrl(serverUrl(servers[0], "", []) ?? "", options.documentUrl ?? baseUrl);
  return url === baseUrl ? undefined : (url ?? servers[0].url);
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
