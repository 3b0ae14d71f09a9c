// `providers import --openapi`: an OpenAPI 3.0/3.1 document (or Swagger 2.0, converted to 3.0 by
// swagger2openapi) becomes one `http` provider whose operations are tools. `$ref`s are resolved by
// json-schema-ref-parser; the rest is read leniently (real documents break the letter of the spec
// in harmless ways) and what cannot be converted is an error with its JSON Pointer, a skipped
// operation, or a warning — never a silent drop. Pure: no database, no network.
import $RefParser, { JSONParserErrorGroup } from "@apidevtools/json-schema-ref-parser";
import swagger2openapi from "swagger2openapi";
import { type HttpCredential, type Manifest, ManifestError, type ProviderAuth, type ProviderConnection, ProviderManifestSchema, type ToolManifest, ToolManifestSchema, formatIssueList, parseManifest, toolIdPattern } from "../manifest";
import { plainText } from "../plain-text";
import { operationToolKey } from "./ids";
import { type OperationContext, type OperationInput, type OperationTool, toolFromOperation } from "./operation";
import { billingRules } from "./prices";
import { ownServer, providerAuth, providerBaseUrl, resolveUrl, slug } from "./provider";
import { pointerToken } from "./schema";
import { connectionOfScheme, credentialOf, expectedCredentials, requirementsDeclared, secretConnectionOf, securityResolver } from "./security";
import { own } from "../../own";
import { type ExpectedCredential, type Finding, type OpenApiImportOptions, OpenApiOptionError } from "./types";
import { isObject, METHODS } from "./document";

export interface OpenApiImport {
  manifest: Manifest;
  /** Operations (method, path) the document has. */
  operations: number;
  skipped: { operation: string; pointer: string; reason: string }[];
  warnings: Finding[];
  /** The credentials the tools send, by security scheme: the variables to set before Calling. */
  credentials: ExpectedCredential[];
}

const CALLABLE = new Set(["get", "put", "post", "delete", "patch"]);
const PATH_ITEM_FIELDS = new Set(["$ref", "summary", "description", "servers", "parameters"]);
/** Parts of a document the import never reads: an unresolvable `$ref` there is only a warning. */
const UNREAD = new Set(["responses", "callbacks", "examples", "example", "links", "webhooks"]);

const pointerOf = (path: readonly (string | number)[]) => path.map((s) => `/${pointerToken(s)}`).join("");

/**
 * Converts a parsed document; throws `ManifestError` listing `pointer: message` issues when the
 * document as a whole cannot be read (not OpenAPI, an unresolvable `$ref` where the import reads,
 * no usable server), and `OpenApiOptionError` when an option does not fit it. A defect confined to
 * one operation refuses only that operation (`skipped`, with its pointer).
 */
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
  checkSchemeOptions(doc, options);

  const once = new Set<string>();
  const warnOnce = (key: string, pointer: string, message: string) => {
    if (!once.has(key)) warnings.push({ pointer, message });
    once.add(key);
  };
  const ctx: OperationContext = { version, fromSwagger2: isObject(input) && input.swagger === "2.0", warn: (pointer, message) => warnings.push({ pointer, message }), warnOnce };
  const chosen = providerAuth(doc, options, requirementsDeclared(doc), errors, warnings);
  const envOf = (scheme: string) => options.schemeEnv?.[scheme] ?? (scheme === chosen.scheme ? options.authEnv : undefined);
  const connections = connectionSchemes(doc, options, envOf);
  const security = securityResolver(doc, envOf, warnings, (scheme) => connections.schemes.has(scheme));
  // A document that names no requirements, whose chosen scheme is the callers' own: the provider's auth is their connection.
  const auth = chosen.auth ?? (!security.declared && chosen.scheme && connections.schemes.has(chosen.scheme) ? connectionAuth(own(schemesOf(doc), chosen.scheme)) : undefined);
  const providerCredential = auth?.type === "query" ? { in: "query" as const, name: auth.query! } : auth?.type === "header" ? { in: "header" as const, name: auth.header! } : undefined;
  const baseUrl = providerBaseUrl(doc, options, errors, warnings);
  const providerId = options.providerId ?? slug(isObject(doc.info) && typeof doc.info.title === "string" ? doc.info.title : "");
  const skipped: OpenApiImport["skipped"] = [];
  const tools: (OperationTool & { id: string; checked: ToolManifest })[] = [];
  const usedIds = new Set<string>();
  const shapes = new Map<string, string>();
  let operations = 0;

  if (!isObject(doc.paths)) {
    // OpenAPI 3.1 makes `paths` optional (a document may describe only webhooks).
    if (version === "3.1") warnings.push({ pointer: "/paths", message: "the document has no paths (only webhooks or components): no operation to import" });
    else errors.push({ pointer: "/paths", message: "the document has no paths object" });
  }
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
      const skip = (reason: string, at = pointer) => skipped.push({ operation: label, pointer: at, reason });
      if (!CALLABLE.has(method)) {
        skip(`${method.toUpperCase()} is not a method Tollgate calls (GET, POST, PUT, PATCH, DELETE)`);
        continue;
      }
      const server = ownServer(operation, item, pointer, baseUrl, options);
      if ("error" in server) {
        skip(server.error);
        continue;
      }
      const resolved = security.resolve(operation, pointer);
      if ("skipped" in resolved) {
        skip(resolved.skipped, Array.isArray(operation.security) ? `${pointer}/security` : "/security");
        continue;
      }
      const result = toolFromOperation(
        {
          method: method as OperationInput["method"],
          path,
          pointer,
          operation,
          shared: { parameters: item.parameters, pointer: `${itemPointer}/parameters` },
          baseUrl: server.url,
          security: resolved.security,
          credentialParameters: resolved.security ? credentialParameters(resolved.security) : providerCredential ? [providerCredential] : [],
        },
        ctx,
      );
      if ("skipped" in result) {
        skip(result.skipped, result.pointer);
        continue;
      }
      const { id, base } = uniqueToolId(providerId, result.tool, usedIds);
      if (!toolIdPattern.test(id)) {
        skip(`tool id "${id}" is not 1-200 characters of letters, digits and . _ : - (shorten the operationId, or give --id a shorter provider id)`);
        continue;
      }
      const tool = { ...result.tool, id };
      const checked = checkTool(tool);
      if ("reason" in checked) {
        usedIds.delete(id);
        skip(checked.reason, checked.pointer ?? pointer);
        continue;
      }
      if (id !== base) warnings.push({ pointer, message: `another operation already has the id "${base}": this one is "${id}"` });
      // `/cat/{id}` and `/cat/{tag}` are one URL to the API: it cannot tell which was meant.
      const shape = `${method} ${tool.execution.base_url ?? ""}${path.replace(/\{[^{}]+\}/g, "{}")}`;
      const twin = shapes.get(shape);
      if (twin) warnings.push({ pointer, message: `${label} has the same URL shape as ${twin}: the API cannot tell them apart` });
      else shapes.set(shape, label);
      tools.push({ ...tool, checked: checked.tool });
    }
  }
  if (isObject(doc.webhooks) && Object.keys(doc.webhooks).length > 0) warnings.push({ pointer: "/webhooks", message: "webhooks are not imported: Tollgate does not receive requests from the API" });
  const rules = billingRules(tools, options, errors);
  for (const t of tools) {
    const rule = rules.get(t.id);
    // A per-unit rule names a parameter: the tool is checked again with it.
    const priced = rule?.unit === "per_unit" ? ToolManifestSchema.safeParse({ ...t.checked, billing_rule: rule }) : undefined;
    if (priced && !priced.success) errors.push({ pointer: `(--price-per-operation) ${t.operationId ?? t.id}`, message: priced.error.issues.map((i) => i.message).join("; ") });
  }
  if (errors.length) fail();

  // Each tool was checked on its own above: the provider is checked here without them, then given them.
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
          ...(connections.connection ? { connection: connections.connection } : {}),
          allow_private_network: options.allowPrivateNetwork ?? false,
          ...(options.source ? { source: options.source } : {}),
          tools: [],
        },
      ],
    },
    `manifest converted from ${options.origin}`,
  );
  manifest.providers[0].tools = tools.map((t) => ({ ...t.checked, billing_rule: rules.get(t.id) }));
  const credentials = security.declared
    ? expectedCredentials(tools.map((t) => t.execution.security))
    : auth && auth.type !== "none"
      ? [{ scheme: chosen.scheme ?? "auth", type: auth.type, ...(auth.env ? { env: auth.env } : {}), operations: tools.length }]
      : [];
  return { manifest, operations, skipped, warnings, credentials };
}

function schemesOf(doc: Record<string, unknown>): Record<string, unknown> {
  return isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
}

/**
 * Which schemes are each caller's own connection, and how callers connect: oauth2 schemes with an
 * authorization code flow and openIdConnect schemes (unless `--auth-env` gives them the server's
 * variable), and the apiKey/http schemes named by `--connection`. A provider connects one way: the
 * first OAuth scheme the document declares, else the marked secret.
 */
function connectionSchemes(doc: Record<string, unknown>, options: OpenApiImportOptions, envOf: (scheme: string) => string | undefined): { schemes: Set<string>; connection?: ProviderConnection } {
  const schemes = schemesOf(doc);
  const resolve = (url: string) => resolveUrl(url, options.documentUrl ?? options.baseUrl);
  const marked = options.connectionSchemes ?? [];
  for (const name of marked) {
    const scheme = own(schemes, name);
    if (!isObject(scheme)) throw new OpenApiOptionError(`--connection ${name}: the document declares no security scheme "${name}" (it declares ${Object.keys(schemes).map((n) => `"${n}"`).join(", ") || "none"})`);
    if (scheme.type !== "apiKey" && scheme.type !== "http") throw new OpenApiOptionError(`--connection ${name}: a ${String(scheme.type)} scheme connects by OAuth sign-in already; --connection marks apiKey and http schemes`);
    if (envOf(name) !== undefined) throw new OpenApiOptionError(`--connection ${name} and --auth-env for it: a credential is the server's or each caller's, not both`);
  }
  const oauth = Object.keys(schemes).flatMap((name) => {
    const connection = envOf(name) === undefined ? connectionOfScheme(own(schemes, name), resolve) : undefined;
    return connection ? [{ name, connection }] : [];
  });
  if (oauth.length > 0 && marked.length > 0) throw new OpenApiOptionError(`--connection ${marked.join(", ")}: the document's callers connect by OAuth sign-in ("${oauth[0].name}"); a provider connects one way`);
  const secret = marked.length > 0 ? secretConnectionOf(marked[0], own(schemes, marked[0])) : undefined;
  return { schemes: new Set([...oauth.map((o) => o.name), ...marked]), connection: oauth[0]?.connection ?? secret };
}

/** The provider-wide auth of a connection scheme (documents that name no requirements). */
function connectionAuth(scheme: unknown): ProviderAuth | undefined {
  const credential = credentialOf(scheme);
  if ("unsendable" in credential || credential.type === "cookie") return undefined;
  if (credential.type === "header") return { type: "header", header: credential.name, connection: true };
  if (credential.type === "query") return { type: "query", query: credential.name, connection: true };
  return { type: credential.type, connection: true };
}

/** `--auth-env SCHEME=VAR` must name schemes the document declares. */
function checkSchemeOptions(doc: Record<string, unknown>, options: OpenApiImportOptions): void {
  const declared = isObject(doc.components) && isObject(doc.components.securitySchemes) ? Object.keys(doc.components.securitySchemes) : [];
  const unknown = Object.keys(options.schemeEnv ?? {}).filter((name) => !declared.includes(name));
  if (unknown.length === 0) return;
  const names = unknown.map((n) => `"${n}"`).join(", ");
  throw new OpenApiOptionError(`--auth-env names ${unknown.length === 1 ? "a security scheme" : "security schemes"} the document does not declare: ${names} (it declares ${declared.length ? declared.map((n) => `"${n}"`).join(", ") : "none"})`);
}

/** Credentials that travel as parameters (apiKeys): the document often declares them as operation parameters too. */
function credentialParameters(security: HttpCredential[][]): OperationInput["credentialParameters"] {
  return security.flat().flatMap((c) => (c.type === "header" || c.type === "query" || c.type === "cookie") && c.name ? [{ in: c.type, name: c.name }] : []);
}

/** A converted tool as the manifest lists it. */
function manifestTool(t: OperationTool & { id: string }): Omit<ToolManifest, "lang" | "status" | "timeout_ms" | "cacheable" | "cache_ttl_seconds"> {
  return { id: t.id, name: t.name, description: t.description, ...(t.category ? { category: t.category } : {}), params: t.params, execution: t.execution };
}

/**
 * Checks one converted tool against the manifest's schema on its own, so a tool the manifest
 * refuses costs only its operation, and the message points into the document (the parameter's
 * place), never into the converted manifest.
 */
function checkTool(tool: OperationTool & { id: string }): { tool: ToolManifest } | { reason: string; pointer?: string } {
  // A stand-in connection: the document's own is checked with the provider.
  const connection = { type: "secret" };
  const parsed = ProviderManifestSchema.safeParse({ id: "check", name: "check", transport: "http", base_url: "https://openapi.invalid", connection, tools: [manifestTool(tool)] });
  if (parsed.success) return { tool: parsed.data.tools[0] };
  const issue = parsed.error.issues[0];
  const path = issue.path.slice(2);
  const param = path[0] === "params" && typeof path[1] === "number" ? tool.params[path[1]] : undefined;
  const where = param ? `parameter "${param.name}"` : path[0] === "execution" ? `its request mapping (${path.slice(1).map(String).join(".") || "execution"})` : `its ${String(path[0] ?? "definition")}`;
  return { reason: `${where} is not one Tollgate can use: ${issue.message}`, pointer: param ? tool.pointers[param.name] : undefined };
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
      const converted = await swagger2openapi.convertObj(structuredClone(input) as never, { patch: true, warnOnly: true });
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

/** `<provider id>:<operationId>` (else `<provider id>:<restPathId>`); a second operation with the same key gets `-2`. */
function uniqueToolId(providerId: string, tool: OperationTool, used: Set<string>): { id: string; base: string } {
  const base = `${providerId}:${operationToolKey(tool.execution.method, tool.execution.path, tool.operationId)}`;
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
  used.add(id);
  return { id, base };
}
