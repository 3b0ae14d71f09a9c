import { parameterIssues } from "../catalog/manifest";
import type { ToolRecord } from "../catalog/get-tool";
import { fetchLiveSchema, liveSchemaToolOf } from "../catalog/live-schema";
import type { ValidationIssue } from "../errors";

const MIXED_SCHEMA_HINT = "it may belong to another tool: build parameters from this tool's current params (re-run Inspect)";

/**
 * Checks parameters against the tool's current schema and returns the Call/Probe `details[]`
 * (empty when valid). Locations are `["body", "parameters", <name>]`.
 */
export function validateParameters(tool: ToolRecord, parameters: Record<string, unknown>): ValidationIssue[] {
  return parameterIssues(tool.params, tool.oneOfRequired, parameters).map((issue) => ({
    type: issue.type ?? "value_error",
    loc: ["body", "parameters", ...issue.path],
    msg: issue.type === "extra_forbidden" ? `${issue.message} for ${tool.id}: ${MIXED_SCHEMA_HINT}` : issue.message,
    // The offending value; for a missing field or an unsatisfied one_of_required group, the
    // parameters object that lacks it (as pydantic does), so every detail carries an `input`.
    input: issue.path.length && parameters[String(issue.path[0])] !== undefined ? parameters[String(issue.path[0])] : parameters,
  }));
}

/** Optional parameters that were left out take their declared default before execution. */
export function withDefaults(tool: ToolRecord, parameters: Record<string, unknown>): Record<string, unknown> {
  const out = { ...parameters };
  for (const p of tool.params) if (out[p.name] === undefined && p.default !== undefined) out[p.name] = p.default;
  return out;
}

/**
 * A live-schema MCP tool (`schema: "live"`) is checked against the params its server lists now
 * (the listing Inspect shows, cached 30 s), so what Inspect says and what Probe and Call accept
 * agree. When the listing cannot be had, the snapshot stands: the Call then reaches the same server
 * and reports its failure with the transport's reason code.
 */
export async function withCurrentSchema(tool: ToolRecord): Promise<ToolRecord> {
  const live = liveSchemaToolOf(tool.target);
  if (!live) return tool;
  const schema = await fetchLiveSchema(live).catch(() => null);
  return schema ? { ...tool, params: schema.params, oneOfRequired: schema.oneOfRequired } : tool;
}
