// The contract's rate-limited actions and their budgets (section 8), a vocabulary below the
// limiter and the metrics that count its rejections.

/** Requests per minute (contract section 8). One bucket per account across all its API keys. */
export const rateLimits = {
  search: 120,
  inspect: 120,
  probe: 120,
  execute: 200,
  device_authorize: 30,
} as const;
export type RateLimitedAction = keyof typeof rateLimits;
