import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { DomainError } from "../errors";

/**
 * RFC 8628 section 5.1: user codes are short, so wrong ones are limited per signed-in user (on
 * top of the code's 34 bits of entropy and 10-minute life). In memory: one instance's worth.
 */
export const WRONG_USER_CODES_PER_WINDOW = 10;
export const USER_CODE_WINDOW_SECONDS = 5 * 60;
const limiter = new RateLimiterMemory({ points: WRONG_USER_CODES_PER_WINDOW, duration: USER_CODE_WINDOW_SECONDS, keyPrefix: "tg_user_code" });

/** A user who tried too many wrong codes: every code, right or wrong, is refused for `retryAfterSeconds`. */
export class UserCodeThrottledError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super("rate_limited", `Too many wrong user codes: try again in ${retryAfterSeconds} seconds`, { retry_after: retryAfterSeconds });
  }
}

/**
 * Runs one use of a user code by `userId` under the throttle; `found` says whether the code was
 * right. The attempt is counted before it runs and handed back only when right, so concurrent
 * wrong guesses cannot all pass a check made before any of them was recorded.
 */
export async function throttledUserCodeAttempt<T>(userId: string, attempt: () => Promise<T>, found: (result: T) => boolean): Promise<T> {
  try {
    await limiter.consume(userId);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    throw new UserCodeThrottledError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
  }
  let result: T;
  try {
    result = await attempt();
  } catch (err) {
    // A failure of the lookup itself is no wrong code.
    await limiter.reward(userId);
    throw err;
  }
  if (found(result)) await limiter.reward(userId);
  return result;
}
