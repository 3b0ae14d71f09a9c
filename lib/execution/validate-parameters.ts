import { parameterIssues, type HttpExecution } from "../catalog/manifest";
import { fileValueIssues } from "../providers/http-files";
import { unsendableValues } from "../providers/http-serialize";
import { own } from "../own";
import type { ToolRecord } from "../catalog/get-tool";
import { fetchLiveSchema, liveSchemaToolOf } from "../catalog/live-schema";
import type { ValidationIssue } from "../errors";

const MIXED_SCHEMA_HINT = "it may belong to another tool: build parameters from this tool's current params (re-run Inspect)";

/**
 * Checks parameters against the tool's current schema and returns the Call/Probe `details[]`
 * (empty when valid). Locations are `["body", "parameters", <name>]`.
 */
export function validateParameters(tool: ToolRecord, parameters: Record<string, unknown>): ValidationIssue[] {
  const schemaIssues = parameterIssues(tool.params, tool.oneOfRequired, parameters).map((issue) => ({
    type: issue.type ?? "value_error",
    loc: ["body", "parameters", ...issue.path],
    msg: issue.type === "extra_forbidden" ? `${issue.message} for ${tool.id}: ${MIXED_SCHEMA_HINT}` : issue.message,
    // The offending value; for a missing field or an unsatisfied one_of_required group, the
    // parameters object that lacks it (as pydantic does), so every detail carries an `input`.
    input: issue.path.length && own(parameters, String(issue.path[0])) !== undefined ? own(parameters, String(issue.path[0])) : parameters,
  }));
  return tool.target.transport === "http" ? [...schemaIssues, ...httpValueIssues(tool.target.execution as unknown as HttpExecution, parameters)] : schemaIssues;
}

/**
 * What an http tool's values need beyond the schema, checked without sending anything: file values
 * decode (base64, a `data:` URI) within the Call's size limit, or are https URLs the operator lets
 * Calls fetch (not fetched here); path values leave no segment empty, `.` or `..`, header values
 * hold no line break or control character. The content-type parameter's choice is held by its
 * enum, which the manifest makes list the body types.
 */
function httpValueIssues(mapping: HttpExecution, parameters: Record<string, unknown>): ValidationIssue[] {
  const files = fileValueIssues(mapping.files ?? [], parameters).map((f) => ({
    type: f.type,
    loc: ["body", "parameters", ...f.path],
    msg: f.message,
    // The value itself may be megabytes of base64: the detail carries its start only.
    input: clip(f.path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)?.[k], parameters)),
  }));
  const unsendable = unsendableValues(mapping, parameters).map((u) => ({ type: "value_error", loc: ["body", "parameters", u.param], msg: u.message, input: clip(own(parameters, u.param)) }));
  return [...files, ...unsendable];
}

const clip = (value: unknown) => (typeof value === "string" && value.length > 100 ? `${value.slice(0, 100)}…` : value);

/** Optional parameters that were left out take their declared default before execution. */
export function withDefaults(tool: ToolRecord, parameters: Record<string, unknown>): Record<string, unknown> {
  const out = { ...parameters };
  for (const p of tool.params) if (own(out, p.name) === undefined && p.default !== undefined) out[p.name] = p.default;
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
