import { BuiltinToolError, builtinHandlers } from "./builtin/handlers";
import { isEmptyData, type ProviderAdapter } from "./types";

/** Executes the shipped offline tools in-process. */
export const builtinAdapter: ProviderAdapter = {
  async execute(target, parameters) {
    const name = String(target.execution.handler ?? "");
    const handler = builtinHandlers[name];
    if (!handler) return { reasonCode: "tool_unavailable", data: {}, errorMessage: `Builtin handler "${name}" is not available in this deployment` };
    try {
      const data = await handler(parameters);
      if (isEmptyData(data)) return { reasonCode: "result.empty", data: {}, errorMessage: "The tool produced no result for these parameters" };
      return { reasonCode: "result.valid", data };
    } catch (err) {
      if (err instanceof BuiltinToolError) return { reasonCode: "provider.error", data: {}, errorMessage: err.message };
      return { reasonCode: "transport.execution_failed", data: {}, errorMessage: `The tool failed: ${(err as Error).message}` };
    }
  },
};
