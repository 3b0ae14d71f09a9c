import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LOGIN_LIMITS, LoginThrottle, type LoginCheck } from "./login-throttle";

// rate-limiter-flexible's memory store reads Date.now() and expires keys with setTimeout: vitest's
// fake timers are the clock the tests move.
beforeEach(() => vi.useFakeTimers({ now: 0 }));
afterEach(() => vi.useRealTimers());

const wait = (seconds: number) => vi.advanceTimersByTime(seconds * 1000);
const refusedFor = (retryAfterSeconds: number): LoginCheck => ({ allowed: false, retryAfterSeconds });
const ALLOWED: LoginCheck = { allowed: true };

/** A wrong password for `email` from `address`, waiting out the email's backoff first; returns the waits. */
async function failAfterBackoff(throttle: LoginThrottle, address: string, email: string): Promise<number[]> {
  const waits: number[] = [];
  for (;;) {
    const check = await throttle.begin(address, email);
    if (check.allowed) return waits;
    waits.push(check.retryAfterSeconds);
    wait(check.retryAfterSeconds);
  }
}

describe("LoginThrottle per client address", () => {
  it("refuses an address after its wrong passwords for many emails, for the block time, and no other address", async () => {
    const throttle = new LoginThrottle({ ...LOGIN_LIMITS, addressFailures: 5, addressWindowSeconds: 60, addressBlockSeconds: 120 });
    for (let i = 0; i < 5; i++) expect(await throttle.begin("198.51.100.1", `user${i}@example.test`)).toEqual(ALLOWED);
    expect(await throttle.begin("198.51.100.1", "fresh@example.test")).toEqual(refusedFor(120));
    expect(await throttle.begin("198.51.100.2", "fresh@example.test")).toEqual(ALLOWED);
    wait(119);
    expect(await throttle.begin("198.51.100.1", "fresh@example.test")).toEqual(refusedFor(1));
    wait(1);
    expect(await throttle.begin("198.51.100.1", "fresh@example.test")).toEqual(ALLOWED);
  });

  it("does not count attempts it refused, nor right passwords", async () => {
    const throttle = new LoginThrottle({ ...LOGIN_LIMITS, addressFailures: 5 });
    for (let i = 0; i < 4; i++) expect((await throttle.begin("198.51.100.1", "x@example.test")).allowed).toBe(true);
    // The email's backoff refuses these: none of them is a wrong password.
    for (let i = 0; i < 10; i++) expect((await throttle.begin("198.51.100.1", "x@example.test")).allowed).toBe(false);
    expect(await throttle.begin("198.51.100.1", "y@example.test")).toEqual(ALLOWED);
    await throttle.succeeded("198.51.100.1", "y@example.test");
    expect(await throttle.begin("198.51.100.1", "z@example.test")).toEqual(ALLOWED);
    expect((await throttle.begin("198.51.100.1", "w@example.test")).allowed).toBe(false);
  });
});

describe("LoginThrottle per email", () => {
  it("makes each attempt after three failures wait 1 s, 2 s, 4 s … at most 30 s, from any address", async () => {
    const throttle = new LoginThrottle();
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) waits.push(...(await failAfterBackoff(throttle, `203.0.113.${i}`, "victim@example.test")));
    expect(waits).toEqual([1, 2, 4, 8, 16, 30, 30, 30]);
  });

  it("lets the owner in from another address after at most the capped wait, however long the attack went on", async () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 20; i++) await failAfterBackoff(throttle, `203.0.113.${i}`, "victim@example.test");
    const check = await throttle.begin("192.0.2.50", "victim@example.test");
    expect(check).toEqual(refusedFor(LOGIN_LIMITS.backoffMaxSeconds));
    wait(LOGIN_LIMITS.backoffMaxSeconds);
    expect(await throttle.begin("192.0.2.50", "victim@example.test")).toEqual(ALLOWED);
    await throttle.succeeded("192.0.2.50", "victim@example.test");
    // A right password starts the email's count again: the next failures are free.
    for (let i = 0; i < 3; i++) expect(await throttle.begin("192.0.2.50", "victim@example.test")).toEqual(ALLOWED);
  });

  it("lets only the free attempts and one more through when many arrive at once", async () => {
    const throttle = new LoginThrottle();
    const checks = await Promise.all(Array.from({ length: 20 }, (_, i) => throttle.begin(`203.0.113.${i}`, "victim@example.test")));
    expect(checks.filter((c) => c.allowed)).toHaveLength(LOGIN_LIMITS.freeAccountFailures + 1);
  });

  it("forgets an email's failures after its window", async () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 5; i++) await failAfterBackoff(throttle, "198.51.100.1", "x@example.test");
    wait(LOGIN_LIMITS.accountWindowSeconds);
    for (let i = 0; i < 3; i++) expect(await throttle.begin("198.51.100.1", "x@example.test")).toEqual(ALLOWED);
  });
});

describe("LoginThrottle per address and email", () => {
  it("refuses an address's tenth consecutive failure on one email for the block time, while other addresses only wait the backoff", async () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < LOGIN_LIMITS.pairFailures; i++) await failAfterBackoff(throttle, "198.51.100.1", "victim@example.test");
    wait(LOGIN_LIMITS.backoffMaxSeconds);
    expect(await throttle.begin("198.51.100.1", "victim@example.test")).toEqual(refusedFor(LOGIN_LIMITS.pairBlockSeconds));
    expect(await throttle.begin("192.0.2.50", "victim@example.test")).toEqual(ALLOWED);
    // The same address may still try other emails (until its own limit).
    expect(await throttle.begin("198.51.100.1", "other@example.test")).toEqual(ALLOWED);
  });

  it("counts only consecutive failures: a right password from that address starts again", async () => {
    const throttle = new LoginThrottle({ ...LOGIN_LIMITS, freeAccountFailures: 100 });
    for (let i = 0; i < LOGIN_LIMITS.pairFailures; i++) expect((await throttle.begin("198.51.100.1", "x@example.test")).allowed).toBe(true);
    await throttle.succeeded("198.51.100.1", "x@example.test");
    for (let i = 0; i < LOGIN_LIMITS.pairFailures - 1; i++) expect((await throttle.begin("198.51.100.1", "x@example.test")).allowed).toBe(true);
  });
});

describe("LoginThrottle and the second factor", () => {
  it("a right password awaiting its code is no failure, and does not wipe the wrong codes before it", async () => {
    const throttle = new LoginThrottle({ ...LOGIN_LIMITS, addressFailures: 5, freeAccountFailures: 100 });
    // Asking for the code step, however often, counts nothing.
    for (let i = 0; i < 20; i++) {
      expect(await throttle.begin("198.51.100.1", "x@example.test")).toEqual(ALLOWED);
      await throttle.release("198.51.100.1", "x@example.test");
    }
    // Wrong codes stay counted, with releases between them.
    for (let i = 0; i < 5; i++) {
      expect(await throttle.begin("198.51.100.1", "x@example.test")).toEqual(ALLOWED);
      if (i < 4) {
        expect(await throttle.begin("198.51.100.1", "x@example.test")).toEqual(ALLOWED);
        await throttle.release("198.51.100.1", "x@example.test");
      }
    }
    expect((await throttle.begin("198.51.100.1", "x@example.test")).allowed).toBe(false);
  });
});
