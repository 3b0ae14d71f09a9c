import type { ToolParam } from "../catalog/manifest";

type JsonSchema = Record<string, unknown>;

/**
 * A catalog tool's parameters as the JSON Schema of an MCP tool's `inputSchema`: what a client
 * listing the catalog's tools directly (MCP "direct mode") would be sent for each tool.
 */
export function toolInputSchema(params: readonly ToolParam[], oneOfRequired?: readonly (readonly string[])[] | null): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const p of params) {
    // A param's full schema (an imported API's nested body) is what Call validates: list it whole.
    if (p.json_schema) {
      properties[p.name] = { ...p.json_schema, ...(p.description ? { description: p.description } : {}) };
      continue;
    }
    const s: JsonSchema = { type: p.type };
    if (p.description) s.description = p.description;
    if (p.enum) s.enum = p.enum;
    if (p.default !== undefined) s.default = p.default;
    if (p.minimum !== undefined) s.minimum = p.minimum;
    if (p.maximum !== undefined) s.maximum = p.maximum;
    if (p.max_length !== undefined) s[p.type === "array" ? "maxItems" : "maxLength"] = p.max_length;
    if (p.type === "array" && p.items) s.items = p.items;
    properties[p.name] = s;
  }
  const required = params.filter((p) => p.required).map((p) => p.name);
  return {
    type: "object",
    properties,
    ...(required.length ? { required } : {}),
    ...(oneOfRequired?.length ? { anyOf: oneOfRequired.map((group) => ({ required: [...group] })) } : {}),
  };
}
