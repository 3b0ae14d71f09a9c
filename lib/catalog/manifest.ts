// The provider manifest: the one format every catalog (the shipped demo, a partner's tools, the
// converted public ACEBench list) is written in before `importCatalog` stores it. The schemas here
// are the single definition of a tool's shape; `docs/catalog.md` describes them for humans.
import { z } from "zod";
import { providerTransports } from "../db/schema/providers";
import { toolStatuses } from "../db/schema/tools";
import { own } from "../own";
import { jsonSchemaCompileError, jsonSchemaErrors } from "./json-schema-check";

export const paramTypes = ["string", "number", "integer", "boolean", "object", "array"] as const;
export type ParamType = (typeof paramTypes)[number];

export const toolLangs = ["en", "zh"] as const;
export type ToolLang = (typeof toolLangs)[number];

export const billingUnits = ["free", "call", "per_unit"] as const;
export const quantitySources = ["param_length", "param_value", "result_items"] as const;
export const httpMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const schemaSources = ["snapshot", "live"] as const;

const providerIdPattern = /^[a-z0-9][a-z0-9._-]{0,99}$/;
// Tool ids are opaque to clients but must survive URLs and logs unescaped (`acebench-zh:12`).
export const toolIdPattern = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
const placeholderPattern = /\{([^{}]+)\}/g;

const jsonValue = z.json();
const primitive = z.union([z.string(), z.number(), z.boolean()]);

/** Credits in a manifest are JSON numbers; they must be exact in micro-credits (six decimals). */
const creditsAmount = z
  .number()
  .min(0)
  .max(1_000_000)
  .refine((v) => Math.abs(Math.round(v * 1e6) - v * 1e6) < 1e-6, "at most 6 decimal places (micro-credits)");

export const ParamItemsSchema = z.strictObject({
  type: z.enum(paramTypes),
  enum: z.array(primitive).min(1).optional(),
  properties: z.array(z.string()).optional(),
});

export const ToolParamSchema = z.strictObject({
  /** Not `__proto__`: JSON parsers and zod drop that key from every object, so no Call could give it. */
  name: z
    .string()
    .min(1)
    .max(128)
    .refine((name) => name !== "__proto__", 'a parameter cannot be named "__proto__": JSON readers drop that key, so a Call could never give it (name it otherwise, with its wire name in execution.wire_names)'),
  type: z.enum(paramTypes),
  required: z.boolean().default(false),
  description: z.string().max(4000).default(""),
  enum: z.array(primitive).min(1).optional(),
  default: jsonValue.optional(),
  /** Element schema of an `array` parameter. */
  items: ParamItemsSchema.optional(),
  /** Known field names of an `object` parameter (documentation and search only). */
  properties: z.array(z.string()).optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  /** Upper bound on a string's length (code points) or an array's item count. */
  max_length: z.number().int().positive().optional(),
  /**
   * The value's full JSON Schema (draft 2020-12, no `$ref`) where the flat fields above cannot say
   * it all (nested objects, unions, patterns): Probe and Call validate against it alone, and Inspect shows it.
   */
  json_schema: z.record(z.string(), jsonValue).optional(),
});

const LocalizedToolTextSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string(),
  /** Parameter descriptions in this language, by parameter name. */
  params: z.record(z.string(), z.string()).optional(),
});

const LocalizedProviderTextSchema = z.strictObject({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
});

/**
 * How a tool is priced. Amounts are credits; a charge happens only for a successful call
 * (an empty or failed result costs 0).
 * - `free`: costs 0; `amount_credits` must be 0.
 * - `call`: `amount_credits` per successful call.
 * - `per_unit`: `amount_credits` × units, units = ceil(quantity / `unit_size` (default 1)),
 *   capped at `max_units` when given. The quantity comes from `quantity_from`:
 *   - `param_length`: the length of parameter `quantity_param` (string: Unicode code points;
 *     array: items), known before the call, so a quote is exact;
 *   - `param_value`: the numeric value of parameter `quantity_param` (negative counts as 0),
 *     known before the call, exact;
 *   - `result_items`: the number of items in the result (see `resultItemCount`), known only
 *     afterwards: a quote is not exact and the reservation is `amount_credits` × `max_units`,
 *     which is therefore required.
 *   An omitted quantity parameter counts as its `default`, else 0.
 */
export const BillingRuleSchema = z
  .strictObject({
    unit: z.enum(billingUnits),
    amount_credits: creditsAmount,
    quantity_from: z.enum(quantitySources).optional(),
    /** param_*: the parameter measured; result_items: the result field holding the items. */
    quantity_param: z.string().min(1).optional(),
    unit_size: z.number().int().positive().optional(),
    max_units: z.number().int().positive().optional(),
  })
  .superRefine((rule, ctx) => {
    const issue = (message: string, path: string) => ctx.addIssue({ code: "custom", message, path: [path] });
    if (rule.unit === "free") {
      if (rule.amount_credits !== 0) issue("a free rule costs 0 credits", "amount_credits");
    } else if (rule.amount_credits <= 0) {
      issue(`a ${rule.unit} rule needs amount_credits > 0 (use unit "free" for 0)`, "amount_credits");
    }
    if (rule.unit !== "per_unit") {
      for (const key of ["quantity_from", "quantity_param", "unit_size", "max_units"] as const) {
        if (rule[key] !== undefined) issue(`only per_unit rules take ${key}`, key);
      }
      return;
    }
    if (!rule.quantity_from) issue("per_unit rules need quantity_from", "quantity_from");
    if (rule.quantity_from?.startsWith("param_") && !rule.quantity_param) {
      issue(`quantity_from "${rule.quantity_from}" needs quantity_param (the parameter measured)`, "quantity_param");
    }
    if (rule.quantity_from === "result_items" && rule.max_units === undefined) {
      issue("result_items rules need max_units: the reservation is amount_credits × max_units", "max_units");
    }
  });

export const ToolStatsSchema = z.strictObject({
  success_rate: z.number().min(0).max(1),
  avg_execution_time_ms: z.number().min(0),
});

export const BuiltinExecutionSchema = z.strictObject({
  /** Key in `builtinHandlers`. */
  handler: z.string().min(1),
});

export const httpStyles = ["simple", "label", "matrix", "form", "spaceDelimited", "pipeDelimited", "deepObject"] as const;

const HttpStyleSchema = z.strictObject({ style: z.enum(httpStyles), explode: z.boolean() });
export type HttpStyle = z.infer<typeof HttpStyleSchema>;

/**
 * How a request body is encoded: `json`; `form` (application/x-www-form-urlencoded, each field
 * serialized by its `encoding` style, default form exploded); `multipart` (multipart/form-data,
 * one part per field, `files` fields carrying bytes); `raw` (the `body_param` value as it is, a
 * string, or bytes decoded from base64 / a `data:` URI for a binary media type); `none`.
 */
export const httpBodyKinds = ["json", "form", "multipart", "raw", "none"] as const;
export type HttpBodyKind = (typeof httpBodyKinds)[number];

/** One media type an operation's body may be sent as. */
const HttpBodyTypeSchema = z.strictObject({
  /** The Content-Type sent (`application/json`, `application/x-www-form-urlencoded`, `text/plain`...). */
  media_type: z.string().min(1),
  kind: z.enum(httpBodyKinds),
});

/**
 * Per-field encoding of a form or multipart body (OpenAPI's Encoding Object): `style`/`explode`
 * for form fields (deepObject for `a[b]=c`), `content_type` for a multipart part.
 */
const HttpEncodingSchema = z.strictObject({
  style: z.enum(httpStyles).optional(),
  explode: z.boolean().optional(),
  content_type: z.string().min(1).optional(),
});
export type HttpEncoding = z.infer<typeof HttpEncodingSchema>;

/**
 * A credential a request sends, resolved from a security scheme at import: `bearer`, `basic`,
 * an API key in a `header`, the `query` or a `cookie`. `env` names the variable holding the secret;
 * a scheme imported without one sends nothing.
 */
export const HttpCredentialSchema = z
  .strictObject({
    /** The security scheme's name in the document (messages name it). */
    scheme: z.string().min(1),
    type: z.enum(["bearer", "basic", "header", "query", "cookie"]),
    /** Header, query parameter or cookie name for apiKey schemes. */
    name: z.string().min(1).optional(),
    env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "an environment variable name").optional(),
    /** The secret is the caller's connection to the provider (provider `connection`), not the server's. */
    connection: z.literal(true).optional(),
    /** OAuth scopes the operation needs of that connection. */
    scopes: z.array(z.string().min(1)).optional(),
  })
  .refine((c) => c.name !== undefined || !["header", "query", "cookie"].includes(c.type), { message: "a header, query or cookie credential needs name", path: ["name"] })
  .refine((c) => !(c.connection && c.env), { message: "a credential is the server's (env) or the caller's connection, not both", path: ["env"] });
export type HttpCredential = z.infer<typeof HttpCredentialSchema>;

/**
 * An HTTP request mapping. `path` is appended to the provider's `base_url` (or the operation's own
 * `base_url`) and may hold `{param}` placeholders (URL-encoded); `query`, `headers` and `cookies`
 * list parameters sent there; with `body: "json"` (default for POST/PUT/PATCH) the remaining
 * parameters form a JSON body (or `body_param`'s value is the whole body), with `"none"` (default
 * for GET/DELETE) they are not sent; `form`, `multipart` and `raw` are the other encodings. Where an
 * operation takes several media types (`body_types`, the first the default), the parameter
 * `content_type_param` names the one a Call sends. `result_path` is a dotted path into the response
 * JSON whose value becomes `result.data` (whole body when absent).
 */
export const HttpExecutionSchema = z.strictObject({
  method: z.enum(httpMethods),
  path: z.string().startsWith("/", "must start with /"),
  /** The operation's own server (OpenAPI `servers` of the operation or its path), variables filled in. */
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  query: z.array(z.string()).optional(),
  /** Parameters sent as request headers. */
  headers: z.array(z.string()).optional(),
  /** Parameters sent as cookies. */
  cookies: z.array(z.string()).optional(),
  body: z.enum(httpBodyKinds).optional(),
  /** The media types the body may be sent as, the default first; absent: `application/json` for a JSON body. */
  body_types: z.array(HttpBodyTypeSchema).min(1).optional(),
  /** The parameter by which a Call picks one of `body_types` (its value is a media type); absent: the first. */
  content_type_param: z.string().min(1).optional(),
  /** The parameter whose value is the whole body (a body that is not an object of named fields). */
  body_param: z.string().min(1).optional(),
  /** Form and multipart fields' encodings, by parameter. */
  encoding: z.record(z.string(), HttpEncodingSchema).optional(),
  /** Multipart fields (or a raw body) that carry bytes: base64, a `data:` URI, or an https URL where the operator allows it. */
  files: z.array(z.string()).optional(),
  /** Name on the wire (query key, header, body field) of a parameter named otherwise in the tool. */
  wire_names: z.record(z.string(), z.string().min(1)).optional(),
  /** OpenAPI serialization of array and object values, by parameter (defaults: `simple` in path and headers, `form` exploded in the query). */
  styles: z.record(z.string(), HttpStyleSchema).optional(),
  /**
   * The operation's security requirements (OpenAPI `security`): alternatives, each a list of
   * credentials sent together; `[]` sends none, an empty alternative allows sending none.
   * Absent: the provider's `auth`.
   */
  security: z.array(z.array(HttpCredentialSchema)).optional(),
  /** 2XX statuses the operation declares without content (`201`, `204`, `2XX`): an empty answer with one is a success. */
  empty_success: z.array(z.string().regex(/^(2\d\d|2XX)$/)).optional(),
  result_path: z.string().min(1).optional(),
  /** The OpenAPI operationId the tool was imported from (informational: names it in price maps and reports). */
  operation_id: z.string().min(1).optional(),
});

export const McpExecutionSchema = z.strictObject({
  /** Tool name on the provider's MCP server. */
  mcp_tool: z.string().min(1),
});

export type BuiltinExecution = z.infer<typeof BuiltinExecutionSchema>;
export type HttpExecution = z.infer<typeof HttpExecutionSchema>;
export type McpExecution = z.infer<typeof McpExecutionSchema>;
export type ToolExecution = BuiltinExecution | HttpExecution | McpExecution;

const executionSchemaByTransport = {
  builtin: BuiltinExecutionSchema,
  http: HttpExecutionSchema,
  mcp: McpExecutionSchema,
} as const;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A region code (lower-case letters, digits and `-`: `eu`, `us`, `cn`, `us-east`). */
export const RegionSchema = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, "a region code: lower-case letters, digits and -");

export const ToolManifestSchema = z
  .strictObject({
    id: z.string().regex(toolIdPattern, "tool ids are 1-200 characters of letters, digits and . _ : -"),
    name: z.string().min(1).max(200),
    description: z.string().max(8000),
    /** Language of the base texts (`name`, `description`, param descriptions). */
    lang: z.enum(toolLangs).default("en"),
    /** Dataset the tool was imported from; defaults to the provider's `source`. */
    source: z.string().min(1).optional(),
    i18n: z
      .strictObject({ zh: LocalizedToolTextSchema.optional(), en: LocalizedToolTextSchema.optional() })
      .optional(),
    category: z.string().min(1).max(100).optional(),
    params: z.array(ToolParamSchema).default([]),
    one_of_required: z.array(z.array(z.string()).min(1)).optional(),
    examples: z.strictObject({ sample_parameters: z.record(z.string(), jsonValue) }).optional(),
    expected_cost: z.string().min(1).optional(),
    billing_rule: BillingRuleSchema.optional(),
    stats: ToolStatsSchema.optional(),
    status: z.enum(toolStatuses).default("active"),
    timeout_ms: z.number().int().min(100).max(120_000).default(10_000),
    cacheable: z.boolean().default(false),
    cache_ttl_seconds: z.number().int().min(0).max(30 * 24 * 3600).default(0),
    /** Regions where this tool may be called (absent: its provider's). */
    regions: z.array(RegionSchema).min(1).optional(),
    /** Checked against the provider's transport by `ProviderManifestSchema`. */
    execution: z.custom<ToolExecution>(isPlainObject, "execution must be an object").optional(),
  })
  .superRefine((tool, ctx) => {
    const issue = (message: string, path: (string | number)[]) => ctx.addIssue({ code: "custom", message, path });
    const byName = new Map<string, ToolParam>();
    tool.params.forEach((p, i) => {
      if (byName.has(p.name)) issue(`duplicate parameter name "${p.name}"`, ["params", i, "name"]);
      byName.set(p.name, p);
      for (const m of paramDefinitionIssues(p)) issue(m.message, ["params", i, ...m.path]);
    });
    tool.one_of_required?.forEach((group, g) =>
      group.forEach((name, k) => {
        if (!byName.has(name)) issue(`one_of_required names unknown parameter "${name}"`, ["one_of_required", g, k]);
      }),
    );
    for (const lang of toolLangs) {
      for (const name of Object.keys(tool.i18n?.[lang]?.params ?? {})) {
        if (!byName.has(name)) issue(`translation for unknown parameter "${name}"`, ["i18n", lang, "params", name]);
      }
    }
    const rule = tool.billing_rule;
    if (rule?.quantity_from?.startsWith("param_") && rule.quantity_param) {
      const p = byName.get(rule.quantity_param);
      const wanted: readonly ParamType[] = rule.quantity_from === "param_length" ? ["string", "array"] : ["number", "integer"];
      if (!p) issue(`quantity_param names unknown parameter "${rule.quantity_param}"`, ["billing_rule", "quantity_param"]);
      else if (!wanted.includes(p.type)) {
        issue(`${rule.quantity_from} needs a ${wanted.join(" or ")} parameter, "${p.name}" is ${p.type}`, ["billing_rule", "quantity_param"]);
      }
    }
    if (tool.cacheable && tool.cache_ttl_seconds <= 0) issue("cacheable tools need cache_ttl_seconds > 0", ["cache_ttl_seconds"]);
    if (tool.examples) {
      for (const m of parameterIssues(tool.params, tool.one_of_required, tool.examples.sample_parameters)) {
        issue(`sample_parameters: ${m.message}`, ["examples", "sample_parameters", ...m.path]);
      }
    }
  });

export const authTypes = ["none", "bearer", "header", "query", "basic"] as const;

/**
 * How Calls authenticate to the provider: `bearer` sends `Authorization: Bearer <secret>`, `header`
 * sends the secret in header `header`, `query` as query parameter `query`, `basic` sends
 * `Authorization: Basic` with the secret (`user:password` is Base64-encoded; a value without a
 * colon is taken as already encoded, since Base64 has no colon).
 */
export const ProviderAuthSchema = z
  .strictObject({
    type: z.enum(authTypes),
    /** Header name for `type: "header"` (e.g. X-Api-Key). */
    header: z.string().min(1).optional(),
    /** Query parameter name for `type: "query"` (e.g. api_key). */
    query: z.string().min(1).optional(),
    /** Environment variable holding the secret; secrets never live in a manifest. */
    env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "an environment variable name").optional(),
    /** The secret is the caller's connection to the provider (the provider's `connection`), instead of `env`. */
    connection: z.literal(true).optional(),
  })
  .superRefine((auth, ctx) => {
    if (auth.type === "header" && !auth.header) ctx.addIssue({ code: "custom", message: "header auth needs header", path: ["header"] });
    if (auth.type === "query" && !auth.query) ctx.addIssue({ code: "custom", message: "query auth needs query (the parameter name)", path: ["query"] });
    if (auth.type !== "none" && !auth.env && !auth.connection) ctx.addIssue({ code: "custom", message: `${auth.type} auth needs env (the server's secret) or connection: true (the caller's)`, path: ["env"] });
    if (auth.env && auth.connection) ctx.addIssue({ code: "custom", message: "auth is the server's (env) or the caller's connection, not both", path: ["connection"] });
  });
export type ProviderAuth = z.infer<typeof ProviderAuthSchema>;

const endpointUrl = z.url({ protocol: /^https?$/ });

/**
 * How a caller connects their own credential to the provider (docs/connections.md): `oauth2`, the
 * authorization code flow with PKCE against the provider's endpoints (given, or read from an OpenID
 * Connect discovery document when connecting), with the client Tollgate's operator registered; or
 * `secret`, a value the user or account owner pastes (an API key or token, or a user name and password).
 */
export const ProviderConnectionSchema = z.discriminatedUnion("type", [
  z
    .strictObject({
      type: z.literal("oauth2"),
      authorization_url: endpointUrl.optional(),
      token_url: endpointUrl.optional(),
      revocation_url: endpointUrl.optional(),
      /** An OpenID Connect discovery document: endpoints it names fill those not given. */
      openid_configuration_url: endpointUrl.optional(),
      /** Scopes every connection asks for, beside those of the operations called (e.g. offline_access). */
      default_scopes: z.array(z.string().min(1)).default([]),
      /** The scopes the provider offers, with their descriptions (the Connections page shows them). */
      scopes: z.record(z.string(), z.string()).optional(),
      /** How Tollgate authenticates at the token endpoint (RFC 6749 section 2.3.1). */
      token_endpoint_auth: z.enum(["client_secret_basic", "client_secret_post", "none"]).default("client_secret_basic"),
    })
    .refine((c) => c.openid_configuration_url || (c.authorization_url && c.token_url), { message: "oauth2 connections need authorization_url and token_url, or openid_configuration_url" }),
  z.strictObject({
    type: z.literal("secret"),
    /** `token`: one value (API key, bearer token); `basic`: a user name and a password. */
    format: z.enum(["token", "basic"]).default("token"),
    /** What the value is called at the provider ("Stripe secret key"), shown where it is pasted. */
    label: z.string().min(1).max(100).optional(),
  }),
]);
export type ProviderConnection = z.infer<typeof ProviderConnectionSchema>;

export const ProviderManifestSchema = z
  .strictObject({
    id: z.string().regex(providerIdPattern, "provider ids are 1-100 lowercase letters, digits and . _ -"),
    name: z.string().min(1).max(200),
    description: z.string().max(8000).default(""),
    i18n: z
      .strictObject({ zh: LocalizedProviderTextSchema.optional(), en: LocalizedProviderTextSchema.optional() })
      .optional(),
    categories: z.array(z.string().min(1)).default([]),
    transport: z.enum(providerTransports),
    base_url: z.url({ protocol: /^https?$/ }).optional(),
    auth: ProviderAuthSchema.optional(),
    connection: ProviderConnectionSchema.optional(),
    /** Regions where the provider's tools may be called (absent: everywhere). */
    regions: z.array(RegionSchema).min(1).optional(),
    allow_private_network: z.boolean().default(false),
    /** Dataset the provider's tools come from (e.g. `acebench-zh`); lets search filter a catalog. */
    source: z.string().min(1).optional(),
    /**
     * Where Inspect reads the tools' params: the imported `snapshot`, or (`mcp` only) `live`
     * from the server's `tools/list`. Stored as `schema: "live"` in each tool's execution settings.
     */
    schema: z.enum(schemaSources).default("snapshot"),
    tools: z.array(ToolManifestSchema),
  })
  .superRefine((provider, ctx) => {
    const issue = (message: string, path: (string | number)[]) => ctx.addIssue({ code: "custom", message, path });
    const { transport } = provider;
    if ((transport === "http" || transport === "mcp") && !provider.base_url) issue(`${transport} providers need base_url`, ["base_url"]);
    if (provider.schema === "live" && transport !== "mcp") issue(`only mcp providers can have a live schema (this one is ${transport})`, ["schema"]);
    const usesConnection = provider.auth?.connection === true || provider.tools.some((t) => (t.execution as HttpExecution | undefined)?.security?.some((alt) => alt.some((c) => c.connection)));
    if (usesConnection && !provider.connection) issue("credentials marked connection: true need the provider's connection (how callers connect)", ["connection"]);
    if (provider.connection && transport !== "http") issue(`connections are for http providers (this one is ${transport})`, ["connection"]);
    provider.tools.forEach((tool, t) => {
      const at = ["tools", t, "execution"];
      if (transport === "none") {
        if (tool.execution !== undefined) issue("tools of a catalog-only (none) provider have no execution", at);
        return;
      }
      if (tool.execution === undefined) {
        const needs = { builtin: "execution.handler", http: "execution.path", mcp: "execution.mcp_tool" }[transport];
        issue(`${transport} tools need ${needs}`, at);
        return;
      }
      const parsed = executionSchemaByTransport[transport].safeParse(tool.execution);
      if (!parsed.success) {
        for (const sub of parsed.error.issues) issue(`${transport} execution: ${sub.message}`, [...at, ...pathOf(sub.path)]);
        return;
      }
      if (transport === "http") {
        const http = parsed.data as HttpExecution;
        const names = new Set(tool.params.map((p) => p.name));
        for (const [, name] of http.path.matchAll(placeholderPattern)) {
          if (!names.has(name)) issue(`path placeholder {${name}} is not a parameter`, [...at, "path"]);
        }
        for (const key of ["query", "headers", "cookies", "files"] as const) {
          for (const name of http[key] ?? []) if (!names.has(name)) issue(`${key} names unknown parameter "${name}"`, [...at, key]);
        }
        for (const key of ["wire_names", "styles", "encoding"] as const) {
          for (const name of Object.keys(http[key] ?? {})) if (!names.has(name)) issue(`${key} names unknown parameter "${name}"`, [...at, key, name]);
        }
        if (http.body_param !== undefined && !names.has(http.body_param)) issue(`body_param names unknown parameter "${http.body_param}"`, [...at, "body_param"]);
        if (http.body_param !== undefined && http.body === "none") issue("body_param needs a body (body is none)", [...at, "body"]);
        if (http.content_type_param !== undefined && !names.has(http.content_type_param)) issue(`content_type_param names unknown parameter "${http.content_type_param}"`, [...at, "content_type_param"]);
        if (http.content_type_param !== undefined && (http.body_types?.length ?? 0) < 2) issue("content_type_param needs two or more body_types to choose from", [...at, "content_type_param"]);
        // The parameter's enum is what Probe and Call hold a Call's choice to: it must list exactly the body types.
        const chooser = tool.params.find((p) => p.name === http.content_type_param);
        const mediaTypes = http.body_types?.map((t) => t.media_type) ?? [];
        if (chooser && (chooser.type !== "string" || chooser.enum?.length !== mediaTypes.length || !mediaTypes.every((t) => chooser.enum?.includes(t)))) {
          issue(`content_type_param "${chooser.name}" must be a string whose enum lists the body_types' media types`, [...at, "content_type_param"]);
        }
      }
    });
  });

export const ManifestSchema = z
  .strictObject({ providers: z.array(ProviderManifestSchema).min(1, "a manifest lists at least one provider") })
  .superRefine((manifest, ctx) => {
    const providerIds = new Set<string>();
    const toolIds = new Map<string, string>();
    manifest.providers.forEach((provider, p) => {
      if (providerIds.has(provider.id)) ctx.addIssue({ code: "custom", message: `duplicate provider id "${provider.id}"`, path: ["providers", p, "id"] });
      providerIds.add(provider.id);
      provider.tools.forEach((tool, t) => {
        const owner = toolIds.get(tool.id);
        if (owner !== undefined) {
          ctx.addIssue({ code: "custom", message: `duplicate tool id "${tool.id}" (also in provider "${owner}")`, path: ["providers", p, "tools", t, "id"] });
        }
        toolIds.set(tool.id, provider.id);
      });
    });
  });

export type ToolParam = z.infer<typeof ToolParamSchema>;
export type BillingRule = z.infer<typeof BillingRuleSchema>;
export type ToolStats = z.infer<typeof ToolStatsSchema>;
export type ToolManifest = z.infer<typeof ToolManifestSchema>;
export type ProviderManifest = z.infer<typeof ProviderManifestSchema>;
export type Manifest = z.infer<typeof ManifestSchema>;
/** What a manifest file may omit (fields with defaults); `parseManifest` turns it into a `Manifest`. */
export type ManifestInput = z.input<typeof ManifestSchema>;

/** A bad manifest; `message` lists the first issues as `path: message` lines. */
export class ManifestError extends Error {
  constructor(
    message: string,
    readonly issues: { path: string; message: string }[],
  ) {
    super(message);
    this.name = "ManifestError";
  }
}

/** Validates a parsed manifest JSON value; throws `ManifestError` naming the first issues. */
export function parseManifest(input: unknown, origin = "manifest"): Manifest {
  const parsed = ManifestSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: formatPath(pathOf(i.path)), message: i.message }));
  throw new ManifestError(formatIssueList(`Invalid ${origin}`, issues), issues);
}

/** "Invalid x (3 issues):\n  - a.b: msg" with at most `max` lines, so a CLI prints something readable. */
export function formatIssueList(title: string, issues: { path: string; message: string }[], max = 5): string {
  const lines = issues.slice(0, max).map((i) => `  - ${i.path || "(root)"}: ${i.message}`);
  if (issues.length > max) lines.push(`  … and ${issues.length - max} more`);
  return `${title} (${issues.length} issue${issues.length === 1 ? "" : "s"}):\n${lines.join("\n")}`;
}

function pathOf(path: readonly PropertyKey[]): (string | number)[] {
  return path.map((k) => (typeof k === "symbol" ? String(k) : k));
}

function formatPath(path: (string | number)[]): string {
  return path.reduce<string>((acc, k) => (typeof k === "number" ? `${acc}[${k}]` : acc ? `${acc}.${k}` : k), "");
}

/** Whether `value` has the JSON type a parameter declares. */
export function matchesParamType(value: unknown, type: ParamType): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "object":
      return isPlainObject(value);
    case "array":
      return Array.isArray(value);
  }
}

/** `type` names the kind of problem, as in the 422 `details[]` of Probe and Call. */
export type IssueType = "definition" | "extra_forbidden" | "value_error" | "missing" | "one_of_required";
type Issue = { message: string; path: (string | number)[]; type?: IssueType };

const withArticle = (type: ParamType) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

function paramDefinitionIssues(p: ToolParam): Issue[] {
  const out: Issue[] = [];
  if (p.enum) {
    p.enum.forEach((v, i) => {
      if (!matchesParamType(v, p.type)) out.push({ message: `enum value ${JSON.stringify(v)} is not ${withArticle(p.type)}`, path: ["enum", i] });
    });
  }
  if (p.items && p.type !== "array") out.push({ message: "only array parameters take items", path: ["items"] });
  const numeric = p.type === "number" || p.type === "integer";
  if (!numeric && (p.minimum !== undefined || p.maximum !== undefined)) {
    out.push({ message: "only number and integer parameters take minimum/maximum", path: ["minimum"] });
  }
  if (p.minimum !== undefined && p.maximum !== undefined && p.minimum > p.maximum) {
    out.push({ message: "minimum is greater than maximum", path: ["minimum"] });
  }
  if (p.max_length !== undefined && p.type !== "string" && p.type !== "array") {
    out.push({ message: "only string and array parameters take max_length", path: ["max_length"] });
  }
  if (p.default !== undefined) {
    for (const m of valueIssues(p, p.default)) out.push({ message: `default ${m}`, path: ["default"] });
  }
  const schemaError = p.json_schema && jsonSchemaCompileError(p.json_schema);
  if (schemaError) out.push({ message: `json_schema is not a valid JSON Schema: ${schemaError}`, path: ["json_schema"] });
  return out;
}

function valueIssues(p: ToolParam, value: unknown): string[] {
  if (!matchesParamType(value, p.type)) return [`must be ${withArticle(p.type)}`];
  const out: string[] = [];
  if (p.enum && !p.enum.some((e) => e === value)) out.push(`must be one of ${p.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  if (typeof value === "number") {
    if (p.minimum !== undefined && value < p.minimum) out.push(`must be >= ${p.minimum}`);
    if (p.maximum !== undefined && value > p.maximum) out.push(`must be <= ${p.maximum}`);
  }
  const length = typeof value === "string" ? [...value].length : Array.isArray(value) ? value.length : undefined;
  if (p.max_length !== undefined && length !== undefined && length > p.max_length) out.push(`is longer than ${p.max_length}`);
  if (Array.isArray(value) && p.items) {
    const items = p.items;
    value.forEach((v, i) => {
      if (!matchesParamType(v, items.type)) out.push(`item ${i} must be ${withArticle(items.type)}`);
      else if (items.enum && !items.enum.some((e) => e === v)) out.push(`item ${i} is not an allowed value`);
    });
  }
  return out;
}

/**
 * Checks values against a parameter list: unknown names, missing required parameters, types,
 * enums, bounds and `one_of_required` groups. Used to keep manifest examples honest.
 */
export function parameterIssues(params: ToolParam[], oneOfRequired: string[][] | undefined, values: Record<string, unknown>): Issue[] {
  const out: Issue[] = [];
  const byName = new Map(params.map((p) => [p.name, p]));
  for (const [name, value] of Object.entries(values)) {
    const p = byName.get(name);
    if (!p) {
      out.push({ message: `unknown parameter "${name}"`, path: [name], type: "extra_forbidden" });
      continue;
    }
    // A full schema decides alone: the flat fields are its summary (a union has no one flat type).
    if (p.json_schema) {
      for (const e of jsonSchemaErrors(p.json_schema, value)) out.push({ message: `"${name}${e.at}" ${e.message}`, path: [name, ...e.path], type: "value_error" });
    } else {
      for (const m of valueIssues(p, value)) out.push({ message: `"${name}" ${m}`, path: [name], type: "value_error" });
    }
  }
  for (const p of params) {
    if (p.required && own(values, p.name) === undefined) out.push({ message: `missing required parameter "${p.name}"`, path: [p.name], type: "missing" });
  }
  for (const group of oneOfRequired ?? []) {
    if (!group.some((name) => own(values, name) !== undefined)) out.push({ message: `one of ${group.join(", ")} is required`, path: [], type: "one_of_required" });
  }
  return out;
}

/** Units a rule bills before the call: exact for param-based quantities, `max_units` for result_items. */
export function quoteBillingUnits(rule: BillingRule, params: ToolParam[], values: Record<string, unknown>): { units: number; exact: boolean } {
  if (rule.unit !== "per_unit") return { units: 1, exact: true };
  if (rule.quantity_from === "result_items") return { units: rule.max_units ?? 0, exact: false };
  const name = rule.quantity_param ?? "";
  const value = own(values, name) ?? params.find((p) => p.name === name)?.default;
  let quantity = 0;
  if (rule.quantity_from === "param_length") {
    quantity = typeof value === "string" ? [...value].length : Array.isArray(value) ? value.length : 0;
  } else if (typeof value === "number" && Number.isFinite(value)) {
    quantity = Math.max(0, value);
  }
  return { units: toUnits(rule, quantity), exact: true };
}

/** Units a successful call bills once its result data is known. */
export function settledBillingUnits(rule: BillingRule, params: ToolParam[], values: Record<string, unknown>, data: unknown): number {
  if (rule.unit !== "per_unit" || rule.quantity_from !== "result_items") return quoteBillingUnits(rule, params, values).units;
  return toUnits(rule, resultItemCount(data, rule.quantity_param));
}

/**
 * Items in a result: the array at `field` when named, else the data itself when it is an array,
 * else its `items` array, else 0.
 */
export function resultItemCount(data: unknown, field?: string): number {
  if (field !== undefined) {
    const v = isPlainObject(data) ? own(data, field) : undefined;
    return Array.isArray(v) ? v.length : 0;
  }
  if (Array.isArray(data)) return data.length;
  return isPlainObject(data) && Array.isArray(data.items) ? data.items.length : 0;
}

function toUnits(rule: BillingRule, quantity: number): number {
  const units = Math.ceil(quantity / (rule.unit_size ?? 1));
  return rule.max_units === undefined ? units : Math.min(units, rule.max_units);
}

/** A short English price hint derived from a rule, used as `expected_cost` when a manifest gives none. */
export function describeBillingRule(rule: BillingRule, params: ToolParam[] = []): string {
  const amount = `${rule.amount_credits} credit${rule.amount_credits === 1 ? "" : "s"}`;
  if (rule.unit === "free") return "Free";
  if (rule.unit === "call") return `${amount} per call`;
  const size = rule.unit_size ?? 1;
  const per = (one: string, many: string) => (size > 1 ? `${size} ${many}` : one);
  const cap = rule.max_units !== undefined ? ` (at most ${rule.max_units} units)` : "";
  if (rule.quantity_from === "param_length") {
    const isArray = params.find((p) => p.name === rule.quantity_param)?.type === "array";
    return `${amount} per ${isArray ? per("item", "items") : per("character", "characters")} of "${rule.quantity_param}"${cap}`;
  }
  if (rule.quantity_from === "param_value") return `${amount} per ${per("unit", "units")} of "${rule.quantity_param}"${cap}`;
  return `${amount} per ${per("result item", "result items")}${cap}`;
}
