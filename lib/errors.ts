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
