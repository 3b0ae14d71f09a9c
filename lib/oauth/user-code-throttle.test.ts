import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { USER_CODE_WINDOW_SECONDS, UserCodeThrottledError, WRONG_USER_CODES_PER_WINDOW, throttledUserCodeAttempt } from "./user-code-throttle";

// rate-limiter-flexible's memory store reads Date.now() and expires keys with setTimeout: vitest's
// fake timers are the clock the tests move.
beforeEach(() => vi.useFakeTimers({ now: 0 }));
afterEach(() => vi.useRealTimers());

let users = 0;
const newUser = () => `usr_throttle_${++users}`;

/** One use of a code that is right or wrong; resolves to whether the throttle let it run. */
async function tryCode(userId: string, right: boolean): Promise<boolean> {
  let ran = false;
  await throttledUserCodeAttempt(
    userId,
    async () => {
      ran = true;
      return right;
    },
    (found) => found,
  );
  return ran;
}

describe("throttledUserCodeAttempt", () => {
  it("refuses every code, the right one too, after ten wrong ones, until the window passes", async () => {
    const user = newUser();
    for (let i = 0; i < WRONG_USER_CODES_PER_WINDOW; i++) expect(await tryCode(user, false)).toBe(true);
    const refused = await tryCode(user, true).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(UserCodeThrottledError);
    expect(refused).toMatchObject({ code: "rate_limited", retryAfterSeconds: USER_CODE_WINDOW_SECONDS });
    // Another user is not affected.
    expect(await tryCode(newUser(), false)).toBe(true);
    vi.advanceTimersByTime(USER_CODE_WINDOW_SECONDS * 1000);
    expect(await tryCode(user, true)).toBe(true);
  });

  it("does not count right codes, nor lookups that failed", async () => {
    const user = newUser();
    for (let i = 0; i < 50; i++) await tryCode(user, true);
    const broken = throttledUserCodeAttempt(user, () => Promise.reject(new Error("database down")), () => false);
    await expect(broken).rejects.toThrow("database down");
    for (let i = 0; i < WRONG_USER_CODES_PER_WINDOW; i++) expect(await tryCode(user, false)).toBe(true);
    await expect(tryCode(user, false)).rejects.toBeInstanceOf(UserCodeThrottledError);
  });

  it("counts a wrong code before it runs, so many at once cannot all slip under the limit", async () => {
    const user = newUser();
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => tryCode(user, false)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(WRONG_USER_CODES_PER_WINDOW);
  });
});
