// `providers import --openapi`: an OpenAPI 3.0/3.1 document (or Swagger 2.0, converted to 3.0 by
// swagger2openapi) becomes one `http` provider whose operations are tools. `$ref`s are resolved by
// json-schema-ref-parser; the rest is read leniently (real documents break the letter of the spec
// in harmless ways) and what cannot be converted is an error with its JSON Pointer, a skipped
// operation, or a warning — never a silent drop. Pure: no database, no network.
import $RefParser, { JSONParserErrorGroup } from "@apidevtools/json-schema-ref-parser";
import swagger2openapi from "swagger2openapi";
import { BillingRuleSchema, type BillingRule, type Manifest, ManifestError, type ProviderAuth, formatIssueList, parseManifest, toolIdPattern } from "../manifest";
import { plainText } from "../plain-text";
import { operationToolKey } from "./ids";
import { type OperationContext, type OperationInput, type OperationTool, toolFromOperation } from "./operation";
import { pointerToken } from "./schema";

export interface OpenApiImportOptions {
  /** The file or URL the document came from: errors name it. */
  origin: string;
  /** Where the document was fetched from: a relative server URL is resolved against it. */
  documentUrl?: string;
  /** Provider id; default: a slug of `info.title`. */
  providerId?: string;
  /** The tools' (and provider's) `source`. */
  source?: string;
  /** Overrides the document's servers. */
  baseUrl?: string;
  /** Environment variable holding the credential of the document's security scheme. */
  authEnv?: string;
  allowPrivateNetwork?: boolean;
  /** Credits per successful call of every operation; absent or 0 = free. */
  priceCredits?: number;
  /** Credits (or a billing rule) per operation, by operationId or tool id; operations not named are free. */
  pricePerOperation?: Record<string, unknown>;
}

export interface Finding {
  pointer: string;
  message: string;
}

export interface OpenApiImport {
  manifest: Manifest;
  /** Operations (method, path) the document has. */
  operations: number;
  skipped: { operation: string; pointer: string; reason: string }[];
  warnings: Finding[];
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const CALLABLE = new Set(["get", "put", "post", "delete", "patch"]);
const PATH_ITEM_FIELDS = new Set(["$ref", "summary", "description", "servers", "parameters"]);
/** Parts of a document the import never reads: an unresolvable `$ref` there is only a warning. */
const UNREAD = new Set(["responses", "callbacks", "examples", "example", "links", "webhooks"]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const pointerOf = (path: readonly (string | number)[]) => path.map((s) => `/${pointerToken(s)}`).join("");

/** Converts a parsed document; throws `ManifestError` listing `pointer: message` issues when it cannot. */
export async function manifestFromOpenApi(input: unknown, options: OpenApiImportOptions): Promise<OpenApiImport> {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const fail = (): never => {
    const issues = errors.map((e) => ({ path: e.pointer, message: e.message }));
    throw new ManifestError(formatIssueList(`Cannot import OpenAPI document ${options.origin}`, issues, 10), issues);
  };
  const { document, version } = await openApi3(input, errors);
  if (errors.length) fail();
  for (const path of externalRefs(document)) {
    const finding = { pointer: pointerOf(path), message: "external $ref: only references inside the document are resolved (bundle it into one file first, e.g. `redocly bundle`)" };
    if (unread(path)) warnings.push({ ...finding, message: `${finding.message}; here in a part the import does not read` });
    else errors.push(finding);
  }
  // Reading goes on past an unresolvable $ref (it reads as nothing), so one run lists every issue.
  const doc = await dereference(document, errors, warnings);

  const once = new Set<string>();
  const auth = providerAuth(doc, options.authEnv, errors, warnings);
  const ctx: OperationContext = {
    version,
    warn: (pointer, message) => warnings.push({ pointer, message }),
    warnOnce: (key, pointer, message) => {
      if (!once.has(key)) warnings.push({ pointer, message });
      once.add(key);
    },
    error: (pointer, message) => errors.push({ pointer, message }),
    authParameter: auth?.type === "query" ? { in: "query", name: auth.query! } : auth?.type === "header" ? { in: "header", name: auth.header! } : undefined,
  };
  const baseUrl = providerBaseUrl(doc, options, errors);
  const providerId = options.providerId ?? slug(isObject(doc.info) && typeof doc.info.title === "string" ? doc.info.title : "");
  const skipped: OpenApiImport["skipped"] = [];
  const tools: (OperationTool & { id: string })[] = [];
  const usedIds = new Set<string>();
  const shapes = new Map<string, string>();
  let operations = 0;

  if (!isObject(doc.paths)) errors.push({ pointer: "/paths", message: "the document has no paths object" });
  for (const [rawPath, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const itemPointer = `/paths/${pointerToken(rawPath)}`;
    if (!isObject(item)) continue;
    let path = rawPath;
    if (!path.startsWith("/")) {
      path = `/${path}`;
      warnings.push({ pointer: itemPointer, message: `path "${rawPath}" does not start with /: read as "${path}"` });
    }
    for (const key of Object.keys(item)) {
      if (!PATH_ITEM_FIELDS.has(key) && !(METHODS as readonly string[]).includes(key) && !key.startsWith("x-")) {
        warnings.push({ pointer: `${itemPointer}/${pointerToken(key)}`, message: `"${key}" is not a field of a Path Item (an operation nested in another path?): ignored` });
      }
    }
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      operations++;
      const pointer = `${itemPointer}/${method}`;
      const label = `${method.toUpperCase()} ${path}`;
      const skip = (reason: string) => skipped.push({ operation: label, pointer, reason });
      if (!CALLABLE.has(method)) {
        skip(`${method.toUpperCase()} is not a method Tollgate calls (GET, POST, PUT, PATCH, DELETE)`);
        continue;
      }
      const servers = ownServers(operation, item, baseUrl, options);
      if (servers) {
        skip(`its own servers (${servers}) differ from the provider's base URL`);
        continue;
      }
      const result = toolFromOperation({ method: method as OperationInput["method"], path, pointer, operation, shared: { parameters: item.parameters, pointer: `${itemPointer}/parameters` } }, ctx);
      if ("skipped" in result) {
        skip(result.skipped);
        continue;
      }
      // `/cat/{id}` and `/cat/{tag}` are one URL to the API: it cannot tell which was meant.
      const shape = `${method} ${path.replace(/\{[^{}]+\}/g, "{}")}`;
      const twin = shapes.get(shape);
      if (twin) warnings.push({ pointer, message: `${label} has the same URL shape as ${twin}: the API cannot tell them apart` });
      else shapes.set(shape, label);
      const id = uniqueToolId(providerId, result.tool, usedIds, pointer, warnings);
      if (!toolIdPattern.test(id)) errors.push({ pointer, message: `tool id "${id}" is not 1-200 characters of letters, digits and . _ : - (shorten the operationId or --id)` });
      tools.push({ ...result.tool, id });
    }
  }
  if (isObject(doc.webhooks) && Object.keys(doc.webhooks).length > 0) warnings.push({ pointer: "/webhooks", message: "webhooks are not imported: Tollgate does not receive requests from the API" });
  const rules = billingRules(tools, options, errors);
  if (errors.length) fail();

  const manifest = parseManifest(
    {
      providers: [
        {
          id: providerId,
          name: (isObject(doc.info) && typeof doc.info.title === "string" && doc.info.title.trim() ? doc.info.title.trim() : providerId).slice(0, 200),
          description: plainText(isObject(doc.info) && typeof doc.info.description === "string" ? doc.info.description : undefined),
          categories: [...new Set(tools.flatMap((t) => (t.category ? [t.category] : [])))],
          transport: "http",
          base_url: baseUrl,
          ...(auth ? { auth } : {}),
          allow_private_network: options.allowPrivateNetwork ?? false,
          ...(options.source ? { source: options.source } : {}),
          tools: tools.map((t) => ({
            id: t.id,
            name: t.name,
            description: t.description,
            ...(t.category ? { category: t.category } : {}),
            params: t.params,
            billing_rule: rules.get(t.id),
            execution: t.execution,
          })),
        },
      ],
    },
    `manifest converted from ${options.origin}`,
  );
  return { manifest, operations, skipped, warnings };
}

/** The document as OpenAPI 3.x: 3.0 and 3.1 as they are, Swagger 2.0 converted. */
async function openApi3(input: unknown, errors: Finding[]): Promise<{ document: Record<string, unknown>; version: "3.0" | "3.1" }> {
  const fallback = { document: {}, version: "3.0" as const };
  if (!isObject(input)) {
    errors.push({ pointer: "", message: "the document is not a JSON/YAML object" });
    return fallback;
  }
  if (typeof input.openapi === "string" && /^3\.[01]\./.test(input.openapi)) return { document: structuredClone(input), version: input.openapi.startsWith("3.1") ? "3.1" : "3.0" };
  if (input.swagger === "2.0") {
    try {
      const converted = await swagger2openapi.convertObj(structuredClone(input) as never, { patch: true, warnOnly: true, resolveInternal: false });
      return { document: converted.openapi as unknown as Record<string, unknown>, version: "3.0" };
    } catch (err) {
      errors.push({ pointer: "", message: `the Swagger 2.0 document cannot be converted to OpenAPI 3: ${(err as Error).message}` });
      return fallback;
    }
  }
  const pointer = input.openapi !== undefined ? "/openapi" : input.swagger !== undefined ? "/swagger" : "";
  const found = input.openapi ?? input.swagger;
  errors.push({ pointer, message: `not an OpenAPI 3.0/3.1 or Swagger 2.0 document${found !== undefined ? ` (version ${JSON.stringify(found)})` : " (no \"openapi\" or \"swagger\" field)"}` });
  return fallback;
}

/** Whether a location is one the import never reads (responses, examples, callbacks, links, webhooks, extensions). */
const unread = (path: readonly (string | number)[]) => path.some((s) => UNREAD.has(String(s)) || String(s).startsWith("x-"));

/** Locations of `$ref`s that leave the document (another file or a URL): never fetched. */
function externalRefs(node: unknown, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (Array.isArray(node)) node.forEach((v, i) => externalRefs(v, [...path, i], out));
  else if (isObject(node)) {
    if (typeof node.$ref === "string" && !node.$ref.startsWith("#")) out.push([...path, "$ref"]);
    for (const [k, v] of Object.entries(node)) if (k !== "$ref") externalRefs(v, [...path, k], out);
  }
  return out;
}

/**
 * Resolves every internal `$ref` (circular ones become circular objects, which the schema
 * conversion cuts). One that resolves to nothing fails the import, unless it sits where the import
 * never reads (responses, examples, callbacks, links, extensions): there it is a warning.
 */
async function dereference(document: Record<string, unknown>, errors: Finding[], warnings: Finding[]): Promise<Record<string, unknown>> {
  const parser = new $RefParser();
  try {
    return (await parser.dereference(document, { continueOnError: true, resolve: { external: false }, dereference: { circular: true } })) as Record<string, unknown>;
  } catch (err) {
    if (!(err instanceof JSONParserErrorGroup)) {
      errors.push({ pointer: "", message: `$ref resolution failed: ${(err as Error).message}` });
      return document;
    }
    for (const e of err.errors) {
      const path = (e.path ?? []) as (string | number)[];
      const finding = { pointer: pointerOf(path), message: e.message };
      if (unread(path)) warnings.push({ ...finding, message: `${e.message} (in a part the import does not read)` });
      else errors.push(finding);
    }
    return parser.schema as Record<string, unknown>;
  }
}

/**
 * The provider's credentials from the document's security schemes: the first scheme its
 * requirements (global, then per operation) name that Tollgate can send, with `--auth-env`.
 */
function providerAuth(doc: Record<string, unknown>, authEnv: string | undefined, errors: Finding[], warnings: Finding[]): ProviderAuth | undefined {
  const schemes = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  const named = new Set<string>();
  const requirements = [doc.security, ...operationsOf(doc).map((op) => op.security)];
  for (const list of requirements) if (Array.isArray(list)) for (const req of list) if (isObject(req)) for (const name of Object.keys(req)) named.add(name);
  const candidates = [...named, ...Object.keys(schemes)].filter((n, i, all) => all.indexOf(n) === i && isObject(schemes[n]));
  const mapped = candidates.map((name) => ({ name, auth: authOf(schemes[name] as Record<string, unknown>, authEnv ?? "ENV") })).filter((c) => c.auth !== undefined);
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
  return chosen.auth;
}

function authOf(scheme: Record<string, unknown>, env: string): ProviderAuth | undefined {
  const scheme_ = typeof scheme.scheme === "string" ? scheme.scheme.toLowerCase() : "";
  if (scheme.type === "http" && scheme_ === "bearer") return { type: "bearer", env };
  if (scheme.type === "http" && scheme_ === "basic") return { type: "basic", env };
  if (scheme.type === "oauth2" || scheme.type === "openIdConnect") return { type: "bearer", env };
  if (scheme.type === "apiKey" && typeof scheme.name === "string" && scheme.name) {
    if (scheme.in === "header") return { type: "header", header: scheme.name, env };
    if (scheme.in === "query") return { type: "query", query: scheme.name, env };
  }
  return undefined;
}

function operationsOf(doc: Record<string, unknown>): Record<string, unknown>[] {
  if (!isObject(doc.paths)) return [];
  return Object.values(doc.paths).flatMap((item) => (isObject(item) ? METHODS.map((m) => item[m]).filter(isObject) : []));
}

/** `--base-url`, else the first server with its variables at their defaults, resolved against the document's URL when relative. */
function providerBaseUrl(doc: Record<string, unknown>, options: OpenApiImportOptions, errors: Finding[]): string {
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
function ownServers(operation: Record<string, unknown>, item: Record<string, unknown>, baseUrl: string, options: OpenApiImportOptions): string | undefined {
  if (options.baseUrl) return undefined;
  const servers = Array.isArray(operation.servers) ? operation.servers : Array.isArray(item.servers) ? item.servers : undefined;
  if (!servers || !isObject(servers[0]) || typeof servers[0].url !== "string") return undefined;
  const url = resolveUrl(serverUrl(servers[0], "", []) ?? "", options.documentUrl ?? baseUrl);
  return url === baseUrl ? undefined : (url ?? servers[0].url);
}

/** `<provider id>:<operationId>` (else `<provider id>:<restPathId>`); a second operation with the same key gets `-2`. */
function uniqueToolId(providerId: string, tool: OperationTool, used: Set<string>, pointer: string, warnings: Finding[]): string {
  const base = `${providerId}:${operationToolKey(tool.execution.method, tool.execution.path, tool.operationId)}`;
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
  if (id !== base) warnings.push({ pointer, message: `another operation already has the id "${base}": this one is "${id}"` });
  used.add(id);
  return id;
}

/** `--price` for every tool, or the `--price-per-operation` map (credits or a rule, by operationId or tool id); the rest free. */
function billingRules(tools: (OperationTool & { id: string })[], options: OpenApiImportOptions, errors: Finding[]): Map<string, BillingRule> {
  const free: BillingRule = { unit: "free", amount_credits: 0 };
  const perCall = (credits: number): BillingRule => (credits > 0 ? { unit: "call", amount_credits: credits } : free);
  const rules = new Map(tools.map((t) => [t.id, options.priceCredits ? perCall(options.priceCredits) : free]));
  for (const [key, value] of Object.entries(options.pricePerOperation ?? {})) {
    const targets = tools.filter((t) => t.id === key || t.operationId === key);
    const where = `(--price-per-operation) ${key}`;
    if (targets.length === 0) {
      errors.push({ pointer: where, message: "names no imported operation (give an operationId or a tool id)" });
      continue;
    }
    const parsed = typeof value === "number" ? BillingRuleSchema.safeParse(perCall(value)) : BillingRuleSchema.safeParse(value);
    if (!parsed.success) {
      errors.push({ pointer: where, message: parsed.error.issues.map((i) => `${i.path.join(".") || "rule"}: ${i.message}`).join("; ") });
      continue;
    }
    for (const t of targets) rules.set(t.id, parsed.data);
  }
  return rules;
}

/** `info.title` as a provider id: lower-case letters, digits and `-` ("Spotify Web API" → `spotify-web-api`). */
function slug(title: string): string {
  const s = title
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 100)
    .replace(/-+$/, "");
  return s || "openapi";
}
