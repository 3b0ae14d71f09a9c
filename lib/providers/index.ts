import { builtinAdapter } from "./builtin-adapter";
import { httpAdapter } from "./http-adapter";
import { mcpAdapter } from "./mcp-adapter";
import type { ProviderAdapter, ProviderOutcome, ToolTarget } from "./types";

const unavailable: ProviderAdapter = {
  execute: async (target): Promise<ProviderOutcome> => ({
    reasonCode: "tool_unavailable",
    data: {},
    errorMessage: `Tool ${target.toolId} is listed for discovery only: its provider has no callable upstream`,
  }),
};

/** One adapter interface for every transport. */
export function adapterFor(transport: ToolTarget["transport"]): ProviderAdapter {
  switch (transport) {
    case "builtin":
      return builtinAdapter;
    case "http":
      return httpAdapter;
    case "mcp":
      return mcpAdapter;
    case "none":
      return unavailable;
  }
}

export type { ProviderOutcome, ToolTarget, ReasonCode } from "./types";
