import { z } from "@hono/zod-openapi";
import { ValidationIssueSchema } from "../errors";

/** Response shapes shared by every operation (contract 2.8), written once. */
export const PublicApiErrorSchema = z
  .object({
    status: z.literal("failure"),
    status_code: z.number().int(),
    message: z.string(),
    data: z
      .object({
        guidance: z.string().optional(),
        remaining_credits: z.number().nullable().optional(),
      })
      .optional(),
  })
  .openapi("PublicApiError");

export const HTTPValidationErrorSchema = z
  .object({ detail: z.array(ValidationIssueSchema) })
  .openapi("HTTPValidationError");

export const InvalidQuerySchema = z
  .object({
    status: z.literal("failure"),
    message: z.string(),
    status_code: z.literal(-7),
    data: z.null(),
  })
  .openapi("InvalidQueryResponse");

export function apiResponse<T extends z.ZodTypeAny>(data: T, name?: string) {
  const schema = z.object({
    status: z.literal("success"),
    message: z.string(),
    status_code: z.literal(0),
    data,
  });
  return name ? schema.openapi(name) : schema;
}

/** Standard error responses for an authenticated operation's OpenAPI description. */
export const authErrorResponses = {
  401: {
    description: "Missing, malformed, expired or unrecognised credential",
    content: { "application/json": { schema: PublicApiErrorSchema } },
  },
} as const;

export const accountErrorResponses = {
  ...authErrorResponses,
  400: {
    description: "Invalid query (status_code -7)",
    content: { "application/json": { schema: InvalidQuerySchema } },
  },
  422: {
    description: "Request validation failure",
    content: { "application/json": { schema: HTTPValidationErrorSchema } },
  },
} as const;
