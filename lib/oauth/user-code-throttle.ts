import { RateLimiterMemory } from "rate-limiter-flexible";

/**
 * RFC 8628 section 5.1: user codes are short, so wrong guesses are limited per signed-in user
 * (on top of the code's 34 bits of entropy and 10-minute life). In memory: one instance's worth.
 */
const FAILED_LOOKUPS_PER_WINDOW = 10;
const WINDOW_SECONDS = 5 * 60;
const limiter = new RateLimiterMemory({ points: FAILED_LOOKUPS_PER_WINDOW, duration: WINDOW_SECONDS, keyPrefix: "tg_user_code" });

export async function userCodeLookupsBlocked(userId: string): Promise<boolean> {
  const res = await limiter.get(userId);
  return res !== null && res.consumedPoints >= FAILED_LOOKUPS_PER_WINDOW;
}

export async function recordFailedUserCodeLookup(userId: string): Promise<void> {
  await limiter.penalty(userId, 1);
}
