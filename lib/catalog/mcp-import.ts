// `providers import --mcp URL`: turns the tools a remote MCP server lists into a provider manifest
// (transport `mcp`), so they are searchable, inspectable and callable like any other tool.
import { listMcpTools, type McpToolDescription } from "../providers/mcp-adapter";
import { own } from "../own";
import { type JsonSchema, paramFromJsonSchema } from "./json-schema-params";
import { type Manifest, type ToolParam, parseManifest } from "./manifest";

export interface McpImportOptions {
  /** Provider id; default derived from the server's host and port (`mcp-127-0-0-1-8080`). */
  providerId?: string;
  name?: string;
  /** Needed for a server on a private or loopback address (SSRF guard). */
  allowPrivateNetwork?: boolean;
  /** Credits per successful call for every imported tool; absent or 0 = free. */
  priceCredits?: number;
  timeoutMs?: number;
  /** Inspect answers with the params the server lists at that moment (`schema: "live"`). */
  liveSchema?: boolean;
}

/** `anyOf: [{required: ["a"]}, {required: ["b"]}]` at the top of an input schema is a one_of_required group. */
function oneOfRequired(schema: McpToolDescription["inputSchema"] & JsonSchema): string[][] | undefined {
  const branches = schema.anyOf ?? schema.oneOf;
  if (!branches?.length) return undefined;
  const names = branches.map((b) => (b.required?.length === 1 && Object.keys(b).length === 1 ? b.required[0] : undefined));
  if (names.some((n) => n === undefined || !own(schema.properties, n))) return undefined;
  return [names as string[]];
}

/** A listed tool's input schema as params (and a one_of_required group): the import's and live Inspect's conversion. */
export function mcpToolParams(tool: McpToolDescription): { params: ToolParam[]; oneOfRequired: string[][] | undefined } {
  const input = (tool.inputSchema ?? {}) as McpToolDescription["inputSchema"] & JsonSchema;
  const required = new Set(input.required ?? []);
  const params = Object.entries(input.properties ?? {}).map(([name, schema]) => paramFromJsonSchema(name, schema as JsonSchema, required.has(name)));
  return { params, oneOfRequired: oneOfRequired(input) };
}

const TOOL_ID_CHARS = /[^A-Za-z0-9._:-]/g;

export function defaultMcpProviderId(url: string): string {
  const u = new URL(url);
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  return `mcp-${u.hostname}-${port}`
    .toLowerCase()
    .replace(/[^a-z0-9._-]/g, "-")
    .replace(/-+/g, "-")
    .slice(0, 100);
}

/** Converts listed MCP tools into a validated manifest (pure: no network). */
export function manifestFromMcpTools(url: string, tools: McpToolDescription[], options: McpImportOptions = {}): Manifest {
  const providerId = options.providerId ?? defaultMcpProviderId(url);
  const price = options.priceCredits ?? 0;
  const billing = price > 0 ? { unit: "call" as const, amount_credits: price } : { unit: "free" as const, amount_credits: 0 };
  const used = new Set<string>();
  const manifestTools = tools.map((tool) => {
    let id = `${providerId}.${tool.name.replace(TOOL_ID_CHARS, "_")}`.slice(0, 190);
    for (let n = 2; used.has(id); n++) id = `${id.replace(/~\d+$/, "")}~${n}`.replace(TOOL_ID_CHARS, "_");
    used.add(id);
    const { params, oneOfRequired: groups } = mcpToolParams(tool);
    const title = (tool as { title?: string }).title;
    return {
      id,
      name: (title ?? tool.name).slice(0, 200),
      description: (tool.description ?? "").slice(0, 8000),
      category: "mcp",
      params,
      ...(groups ? { one_of_required: groups } : {}),
      billing_rule: billing,
      ...(options.timeoutMs ? { timeout_ms: options.timeoutMs } : {}),
      execution: { mcp_tool: tool.name },
    };
  });
  return parseManifest(
    {
      providers: [
        {
          id: providerId,
          name: options.name ?? `MCP server ${new URL(url).host}`,
          description: `Tools of the MCP server at ${url}`,
          categories: ["mcp"],
          transport: "mcp",
          base_url: url,
          allow_private_network: options.allowPrivateNetwork ?? false,
          schema: options.liveSchema ? "live" : "snapshot",
          tools: manifestTools,
        },
      ],
    },
    `manifest from MCP server ${url}`,
  );
}

/** Lists the server's tools (Streamable HTTP) and converts them: `providers import --mcp URL`. */
export async function manifestFromMcpServer(url: string, options: McpImportOptions = {}): Promise<Manifest> {
  const tools = await listMcpTools(url, { allowPrivateNetwork: options.allowPrivateNetwork });
  return manifestFromMcpTools(url, tools, options);
}
