import type { z } from "zod";
import type { ProbeResponseSchema } from "../api/routes/tools-probe";
import type { CallResponseSchema } from "../api/routes/tools-execute";
import { keyPost } from "./key-client";

/** Probe (`POST /tools/probe`) and Call (`POST /tools/execute`) with the picked API key. */
export type ProbeResponse = z.infer<typeof ProbeResponseSchema>;
export type CallResponse = z.infer<typeof CallResponseSchema>;
export type ValidationDetail = NonNullable<ProbeResponse["schema"]>["details"][number];

export const respondWithModes = ["full", "summary", "fields"] as const;
export type RespondWithMode = (typeof respondWithModes)[number];

export async function probe(apiKey: string, toolId: string, parameters: Record<string, unknown>, signal?: AbortSignal): Promise<ProbeResponse> {
  const res = await keyPost<ProbeResponse>("/tools/probe", { apiKey, signal, query: { tool_id: toolId }, body: { parameters, checks: ["schema", "quote"] } });
  return res.body;
}

export interface CallInput {
  toolId: string;
  parameters: Record<string, unknown>;
  sessionId: string;
  searchId?: string | null;
  maxResponseSize: number;
  respondWith: string;
  idempotencyKey: string;
}

/** Every Call answer that carries a Call response body resolves, whatever its status. */
export async function callTool(apiKey: string, input: CallInput): Promise<{ status: number; body: CallResponse }> {
  const res = await keyPost<CallResponse>(
    "/tools/execute",
    {
      apiKey,
      query: { tool_id: input.toolId },
      headers: { "Idempotency-Key": input.idempotencyKey },
      body: {
        tool_id: input.toolId,
        parameters: input.parameters,
        session_id: input.sessionId,
        ...(input.searchId ? { search_id: input.searchId } : {}),
        max_response_size: input.maxResponseSize,
        respond_with: input.respondWith,
      },
    },
    [400, 402, 403, 404, 409, 422],
  );
  return { status: res.status, body: res.body };
}

/** The projection of a truncated or summarised result (contract 2.4), when the result is one. */
export function resultFile(result: Record<string, unknown> | undefined): { url: string; message: string | null; preview: string | null } | null {
  if (!result || typeof result.full_content_file_url !== "string") return null;
  return {
    url: result.full_content_file_url,
    message: typeof result.message === "string" ? result.message : null,
    preview: typeof result.truncated_content === "string" ? result.truncated_content : null,
  };
}
