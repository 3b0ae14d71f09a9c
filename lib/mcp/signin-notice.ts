import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * A Call refused for want of the user's connection, in words an agent can hand to its human: the
 * sign-in URL first, before the JSON every tool error carries.
 */
export function signinNotice(data: Record<string, unknown>): CallToolResult["content"] {
  const result = data.result as { signin_url?: unknown; provider_id?: unknown } | undefined;
  if (data.reason_code !== "oauth_signin_required" || typeof result?.signin_url !== "string") return [];
  return [{ type: "text", text: `OAuth sign-in needed before execution: ask the user to open ${result.signin_url} to connect ${String(result.provider_id ?? "the provider")}, then call again. Nothing was charged.` }];
}
