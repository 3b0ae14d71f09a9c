import { z } from "@hono/zod-openapi";

/**
 * Domain errors know nothing about HTTP: `lib/http/errors.ts` maps each code to the contract's
 * shapes. The set of codes is closed so the mapper's switch is exhaustive.
 */
export type ErrorCode =
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "invalid_input"
  | "insufficient_credits"
  | "rate_limited"
  | "conflict"
  | "upstream_unavailable"
  | "upstream_timeout";

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const unauthorized = (message: string) => new DomainError("unauthorized", message);
export const forbidden = (message: string) => new DomainError("forbidden", message);
export const notFound = (message: string) => new DomainError("not_found", message);
export const invalidInput = (message: string, details?: Record<string, unknown>) =>
  new DomainError("invalid_input", message, details);

/**
 * One refused input as the contract's 422 `detail[]` reports it (where, what, why). Domain
 * validation returns these; the schema is also the OpenAPI component, so the shape is written once.
 */
export const ValidationIssueSchema = z
  .object({
    type: z.string(),
    loc: z.array(z.union([z.string(), z.number()])),
    msg: z.string(),
    input: z.unknown().optional(),
  })
  .openapi("ValidationIssue");
export type ValidationIssue = z.infer<typeof ValidationIssueSchema>;
