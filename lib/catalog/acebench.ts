// Converts the public tool list (JSONL, one tool a line; see the catalog's README) into a manifest.
// The tools are descriptions without an upstream: each `source` and provider name becomes one
// catalog-only provider (transport "none"), so they are searchable and inspectable, and a Call
// answers tool_unavailable.
import { z } from "zod";
import {
  type Manifest,
  type ParamType,
  type ProviderManifest,
  type ToolManifest,
  type ToolParam,
  ManifestError,
  formatIssueList,
  parseManifest,
} from "./manifest";

const rawParamSchema = z.looseObject({
  name: z.string().min(1),
  type: z.string().default("string"),
  required: z.boolean().default(false),
  description: z.string().nullish(),
  enum: z.array(z.unknown()).nullish(),
  default: z.unknown().optional(),
  items: z.union([z.string(), z.looseObject({ type: z.string().optional() })]).nullish(),
  properties: z.union([z.array(z.string()), z.record(z.string(), z.unknown())]).nullish(),
});

const rawToolSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().nullish(),
  provider: z.string().nullish(),
  category: z.string().nullish(),
  source: z.string().min(1),
  lang: z.enum(["en", "zh"]),
  params: z.array(rawParamSchema).default([]),
});

type RawParam = z.infer<typeof rawParamSchema>;
type RawTool = z.infer<typeof rawToolSchema>;

// Python and JSON-Schema spellings seen in tool catalogs, mapped onto the contract's six types.
const TYPE_ALIASES: Record<string, ParamType> = {
  string: "string", str: "string", text: "string", date: "string", datetime: "string",
  number: "number", float: "number", double: "number", decimal: "number",
  integer: "integer", int: "integer", long: "integer",
  boolean: "boolean", bool: "boolean",
  object: "object", dict: "object", map: "object", json: "object",
  array: "array", list: "array", tuple: "array", set: "array",
};

/**
 * Maps a catalog type name to a contract type; `list[int]` / `array<string>` also give the item
 * type. `any` and unknown names become "string", the most permissive scalar a client can send.
 */
export function mapParamType(raw: string): { type: ParamType; items?: ParamType } {
  const t = raw.trim().toLowerCase();
  const generic = /^(\w+)\s*[[<]\s*(\w+)\s*[\]>]$/.exec(t);
  if (generic) {
    const outer = TYPE_ALIASES[generic[1]];
    if (outer === "array") return { type: "array", items: TYPE_ALIASES[generic[2]] ?? "string" };
    if (outer) return { type: outer };
  }
  return { type: TYPE_ALIASES[t] ?? "string" };
}

const isPrimitive = (v: unknown): v is string | number | boolean =>
  typeof v === "string" || (typeof v === "number" && Number.isFinite(v)) || typeof v === "boolean";

function fitsType(v: unknown, type: ParamType): boolean {
  if (type === "integer") return typeof v === "number" && Number.isInteger(v);
  if (type === "number") return typeof v === "number" && Number.isFinite(v);
  if (type === "object") return typeof v === "object" && v !== null && !Array.isArray(v);
  if (type === "array") return Array.isArray(v);
  return typeof v === type;
}

function convertParam(raw: RawParam): ToolParam {
  const { type, items: genericItems } = mapParamType(raw.type);
  const param: ToolParam = { name: raw.name, type, required: raw.required, description: raw.description ?? "" };
  // Enums and defaults that do not fit the declared type are dropped rather than failing the import.
  const values = raw.enum?.filter(isPrimitive) ?? [];
  if (values.length > 0 && values.every((v) => fitsType(v, type))) param.enum = values;
  if (raw.default !== undefined && raw.default !== null && fitsType(raw.default, type)) {
    param.default = raw.default as ToolParam["default"];
  }
  if (type === "array") {
    const itemType = typeof raw.items === "string" ? raw.items : raw.items?.type;
    const items = genericItems ?? (itemType ? mapParamType(itemType).type : undefined);
    if (items) param.items = { type: items };
  }
  if (raw.properties) {
    const names = Array.isArray(raw.properties) ? raw.properties : Object.keys(raw.properties);
    if (names.length > 0) param.properties = names;
  }
  return param;
}

function convertTool(raw: RawTool): ToolManifest {
  const params = raw.params.map(convertParam);
  const description = raw.description ?? "";
  const tool: ToolManifest = {
    id: raw.id,
    name: raw.name,
    description,
    lang: raw.lang,
    source: raw.source,
    params,
    status: "active",
    timeout_ms: 10_000,
    cacheable: false,
    cache_ttl_seconds: 0,
  };
  if (raw.category) tool.category = raw.category;
  // Chinese tools keep Chinese base texts and repeat them as i18n.zh, so a zh search reads them
  // from the same place for every tool.
  if (raw.lang === "zh") {
    const paramTexts = Object.fromEntries(params.filter((p) => p.description).map((p) => [p.name, p.description]));
    tool.i18n = { zh: { name: raw.name, description, ...(Object.keys(paramTexts).length > 0 && { params: paramTexts }) } };
  }
  return tool;
}

/** A provider id from a source and a provider's name: a lower-case slug (`toolalpaca.nager-date`). */
function providerId(source: string, provider: string | null): string {
  if (provider === null) return source;
  const slug = provider.normalize("NFKD").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  return `${source}.${slug || "provider"}`.slice(0, 100);
}

function providerFor(source: string, provider: string | null, tools: ToolManifest[]): ProviderManifest {
  const categories = [...new Set(tools.map((t) => t.category).filter((c): c is string => !!c))].sort();
  const name = provider ?? source;
  return {
    id: providerId(source, provider),
    name,
    description: `Catalog-only tools of ${name} imported from ${source}; they describe capabilities but have no upstream to call.`,
    i18n: { zh: { description: `从 ${source} 导入的${provider ? ` ${provider} ` : ""}目录工具：仅用于检索和查看，没有可调用的上游服务。` } },
    categories,
    transport: "none",
    allow_private_network: false,
    schema: "snapshot",
    source,
    tools,
  };
}

/**
 * Builds a manifest from the JSONL text: tool_id = the line's `id`, one provider per `source` and
 * `provider` name (the source's own when the line names none),
 * no billing rule (free). `opts.source` keeps one source only. Throws `ManifestError` naming the
 * first bad lines.
 */
export function manifestFromToolsJsonl(text: string, opts: { source?: string } = {}): Manifest {
  const byProvider = new Map<string, { source: string; name: string | null; tools: ToolManifest[] }>();
  const issues: { path: string; message: string }[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === "") return;
    const at = `line ${index + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (err) {
      issues.push({ path: at, message: `not JSON (${(err as Error).message})` });
      return;
    }
    const parsed = rawToolSchema.safeParse(json);
    if (!parsed.success) {
      for (const i of parsed.error.issues.slice(0, 3)) issues.push({ path: `${at}: ${i.path.map(String).join(".") || "(root)"}`, message: i.message });
      return;
    }
    if (opts.source !== undefined && parsed.data.source !== opts.source) return;
    // One provider per source and provider name (names that differ only in case or punctuation are
    // one provider, named as first seen): the provider is part of what a tool is, its API's name.
    const name = parsed.data.provider?.trim() || null;
    const id = providerId(parsed.data.source, name);
    const entry = byProvider.get(id) ?? { source: parsed.data.source, name, tools: [] };
    entry.tools.push(convertTool(parsed.data));
    byProvider.set(id, entry);
  });
  if (issues.length > 0) throw new ManifestError(formatIssueList("Invalid tools JSONL", issues), issues);
  if (byProvider.size === 0) {
    const message = opts.source !== undefined ? `No tools with source "${opts.source}" in the tools JSONL` : "The tools JSONL has no tools";
    throw new ManifestError(message, [{ path: "", message }]);
  }
  const providers = [...byProvider.values()].map(({ source, name, tools }) => providerFor(source, name, tools));
  // Re-validate: the converted catalog must meet the same rules as a hand-written manifest.
  return parseManifest({ providers }, "catalog converted from JSONL");
}
