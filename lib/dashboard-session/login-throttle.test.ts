import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LOGIN_LIMITS, LoginThrottle, addressBucket, type LoginCheck } from "./login-throttle";

// rate-limiter-flexible's memory store reads Date.now() and expires keys with setTimeout, and the
// email's gate reads Date.now(): vitest's fake timers are the clock the tests move.
beforeEach(() => vi.useFakeTimers({ now: 0 }));
afterEach(() => vi.useRealTimers());

const wait = (seconds: number) => vi.advanceTimersByTime(seconds * 1000);
const refusedFor = (retryAfterSeconds: number): LoginCheck => ({ allowed: false, retryAfterSeconds });
const ALLOWED: LoginCheck = { allowed: true };
const VICTIM = "victim@example.test";
/** The `n`-th address of a spread attack. */
const spread = (n: number) => `198.18.${Math.floor(n / 250)}.${(n % 250) + 1}`;

/** A wrong password for `email` from `address`, waiting out what it is told first; returns the waits. */
async function failAfterBackoff(throttle: LoginThrottle, address: string, email: string): Promise<number[]> {
  const waits: number[] = [];
  for (;;) {
    const check = await throttle.begin(address, email);
    if (check.allowed) return waits;
    waits.push(check.retryAfterSeconds);
    wait(check.retryAfterSeconds);
  }
}

/** One wrong password from each of `count` spread addresses (their first: never delayed). */
async function spreadFailures(throttle: LoginThrottle, email: string, count: number, from = 0): Promise<void> {
  for (let i = from; i < from + count; i++) expect(await throttle.begin(spread(i), email)).toEqual(ALLOWED);
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
    const throttle = new LoginThrottle({ ...LOGIN_LIMITS, addressFailures: 5, pairFailures: 2 });
    for (let i = 0; i < 2; i++) expect(await throttle.begin("198.51.100.1", "x@example.test")).toEqual(ALLOWED);
    // The pair's block refuses these: none of them is a wrong password.
    for (let i = 0; i < 10; i++) expect(await throttle.begin("198.51.100.1", "x@example.test")).toEqual(refusedFor(LOGIN_LIMITS.pairBlockSeconds));
    expect(await throttle.begin("198.51.100.1", "y@example.test")).toEqual(ALLOWED);
    await throttle.succeeded("198.51.100.1", "y@example.test");
    for (const email of ["z", "w", "u"]) expect(await throttle.begin("198.51.100.1", `${email}@example.test`)).toEqual(ALLOWED);
    expect((await throttle.begin("198.51.100.1", "v@example.test")).allowed).toBe(false);
  });

  it("counts an IPv6 /64 as one address, and an IPv4-mapped address as its IPv4 address", async () => {
    expect(addressBucket("2001:db8:1:2:aaaa::1")).toBe(addressBucket("2001:db8:1:2:ffff::9"));
    expect(addressBucket("2001:db8:1:2::1")).not.toBe(addressBucket("2001:db8:1:3::1"));
    expect(addressBucket("::ffff:198.51.100.1")).toBe("198.51.100.1");
    const throttle = new LoginThrottle({ ...LOGIN_LIMITS, addressFailures: 5 });
    for (let i = 1; i <= 5; i++) expect(await throttle.begin(`2001:db8:1:2::${i}`, `user${i}@example.test`)).toEqual(ALLOWED);
    expect((await throttle.begin("2001:db8:1:2::99", "fresh@example.test")).allowed).toBe(false);
    expect(await throttle.begin("2001:db8:1:3::1", "fresh@example.test")).toEqual(ALLOWED);
  });
});

describe("LoginThrottle per address and email", () => {
  it("refuses an address's tenth consecutive failure on one email for the block time; other addresses and emails stay open", async () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < LOGIN_LIMITS.pairFailures; i++) expect(await throttle.begin("198.51.100.1", VICTIM)).toEqual(ALLOWED);
    expect(await throttle.begin("198.51.100.1", VICTIM)).toEqual(refusedFor(LOGIN_LIMITS.pairBlockSeconds));
    expect(await throttle.begin("192.0.2.50", VICTIM)).toEqual(ALLOWED);
    expect(await throttle.begin("198.51.100.1", "other@example.test")).toEqual(ALLOWED);
  });

  it("counts only consecutive failures: a right password from that address starts again", async () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < LOGIN_LIMITS.pairFailures; i++) expect(await throttle.begin("198.51.100.1", "x@example.test")).toEqual(ALLOWED);
    await throttle.succeeded("198.51.100.1", "x@example.test");
    for (let i = 0; i < LOGIN_LIMITS.pairFailures; i++) expect(await throttle.begin("198.51.100.1", "x@example.test")).toEqual(ALLOWED);
  });
});

describe("LoginThrottle per email", () => {
  it("150 s of wrong passwords from one address never delay the user's sign-ins from another", async () => {
    const throttle = new LoginThrottle();
    const attacker = { tried: 0, wrong: 0, waits: new Set<number>() };
    const user = { tried: 0, succeeded: 0 };
    for (let second = 0; second < 150; second++) {
      // The attacker guesses ten times a second, whatever it is told.
      for (let i = 0; i < 10; i++) {
        const check = await throttle.begin("198.51.100.66", VICTIM);
        attacker.tried++;
        if (check.allowed) attacker.wrong++;
        else attacker.waits.add(check.retryAfterSeconds);
      }
      if (second % 5 === 0) {
        user.tried++;
        if ((await throttle.begin("192.0.2.140", VICTIM)).allowed) user.succeeded++;
        await throttle.succeeded("192.0.2.140", VICTIM);
      }
      wait(1);
    }
    expect(user).toEqual({ tried: 30, succeeded: 30 });
    // The attacker's own pair is what stops it: ten wrong passwords, then refused for the block time.
    expect(attacker.wrong).toBe(LOGIN_LIMITS.pairFailures);
    expect(Math.min(...attacker.waits)).toBeGreaterThan(LOGIN_LIMITS.pairBlockSeconds - 150);
  });

  it("does not gate an email whose failures come from two addresses; a third address's failure does", async () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < LOGIN_LIMITS.pairFailures - 1; i++) {
      expect(await throttle.begin("198.51.100.1", VICTIM)).toEqual(ALLOWED);
      expect(await throttle.begin("198.51.100.2", VICTIM)).toEqual(ALLOWED);
    }
    expect(await throttle.begin("198.51.100.3", VICTIM)).toEqual(ALLOWED);
    // Now the gate: one attempt through, then each waits the email's backoff.
    expect(await throttle.begin("198.51.100.3", VICTIM)).toEqual(ALLOWED);
    expect(await throttle.begin("198.51.100.1", VICTIM)).toEqual(refusedFor(1));
    expect(await throttle.begin("198.51.100.2", VICTIM)).toEqual(refusedFor(1));
  });

  it("a spread attack gets one free guess per new address, then every guess waits 1 s, 2 s, 4 s … at most 30 s, shared by all its addresses", async () => {
    const throttle = new LoginThrottle();
    await spreadFailures(throttle, VICTIM, 50);
    const waits: number[] = [];
    for (let i = 0; i < 10; i++) waits.push(...(await failAfterBackoff(throttle, spread(i), VICTIM)));
    expect(waits).toEqual([1, 2, 4, 8, 16, 30, 30, 30, 30]);
    // The answer is always a wait of at most 30 s, never a block of the email.
    for (let i = 10; i < 50; i++) {
      const check = await throttle.begin(spread(i), VICTIM);
      expect(check.allowed || check.retryAfterSeconds <= LOGIN_LIMITS.backoffMaxSeconds).toBe(true);
    }
    // Meanwhile the user, from an address without failures, is let straight through.
    expect(await throttle.begin("192.0.2.140", VICTIM)).toEqual(ALLOWED);
  });

  it("lets one gated attempt through when many arrive at once, and each new address's first", async () => {
    const throttle = new LoginThrottle();
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => throttle.begin(spread(i), VICTIM)));
    expect(first.filter((c) => c.allowed)).toHaveLength(20);
    const second = await Promise.all(Array.from({ length: 20 }, (_, i) => throttle.begin(spread(i), VICTIM)));
    expect(second.filter((c) => c.allowed)).toHaveLength(1);
    // Concurrent guesses from one new address: only the first is free; the others queue at the gate, which lets one through.
    wait(1);
    const fromOne = await Promise.all(Array.from({ length: 5 }, () => throttle.begin(spread(100), VICTIM)));
    expect(fromOne.filter((c) => c.allowed)).toHaveLength(2);
  });

  it("never delays an address the email signed in from, even after a typo there", async () => {
    const throttle = new LoginThrottle();
    expect(await throttle.begin("192.0.2.140", VICTIM)).toEqual(ALLOWED);
    await throttle.succeeded("192.0.2.140", VICTIM);
    await spreadFailures(throttle, VICTIM, 5);
    await failAfterBackoff(throttle, spread(0), VICTIM);
    // A typo at home, then the right password: the gate is closed for the attackers, not for home.
    expect(await throttle.begin("192.0.2.140", VICTIM)).toEqual(ALLOWED);
    expect(await throttle.begin("192.0.2.140", VICTIM)).toEqual(ALLOWED);
    await throttle.succeeded("192.0.2.140", VICTIM);
    // An address with a failure of its own that never signed in waits like the attackers.
    expect(await throttle.begin("192.0.2.141", VICTIM)).toEqual(ALLOWED);
    expect(await throttle.begin("192.0.2.141", VICTIM)).toEqual(refusedFor(1));
  });

  it("a right password from one address does not lift the gate for the others", async () => {
    const throttle = new LoginThrottle();
    await spreadFailures(throttle, VICTIM, 5);
    await failAfterBackoff(throttle, spread(0), VICTIM);
    expect(await throttle.begin("192.0.2.140", VICTIM)).toEqual(ALLOWED);
    await throttle.succeeded("192.0.2.140", VICTIM);
    expect(await throttle.begin(spread(1), VICTIM)).toEqual(refusedFor(1));
  });

  it("forgets an email's failures once each address's last is older than the window", async () => {
    const throttle = new LoginThrottle({ ...LOGIN_LIMITS, emailWindowSeconds: 60, pairWindowSeconds: 3600 });
    await spreadFailures(throttle, VICTIM, 3);
    expect(await throttle.begin(spread(0), VICTIM)).toEqual(ALLOWED);
    expect(await throttle.begin(spread(1), VICTIM)).toEqual(refusedFor(1));
    wait(60);
    // Each address still has its own failures (the pair's count), but the email is no longer spread.
    for (let i = 0; i < 3; i++) expect(await throttle.begin(spread(1), VICTIM)).toEqual(ALLOWED);
  });

  it("keeps a bounded record: spraying many emails forgets the oldest email's gate, not more memory", async () => {
    const throttle = new LoginThrottle({ ...LOGIN_LIMITS, maxEmails: 3, maxAddressesPerEmail: 4 });
    await spreadFailures(throttle, VICTIM, 50);
    expect(await throttle.begin(spread(0), VICTIM)).toEqual(ALLOWED);
    // Fifty addresses, four remembered: still more than the three that make the email spread.
    expect(await throttle.begin(spread(1), VICTIM)).toEqual(refusedFor(1));
    for (let i = 0; i < 3; i++) await throttle.begin("203.0.113.1", `sprayed${i}@example.test`);
    expect(await throttle.begin(spread(1), VICTIM)).toEqual(ALLOWED);
  });
});

describe("LoginThrottle and the second factor", () => {
  it("a right password awaiting its code is no failure, and does not wipe the wrong codes before it", async () => {
    const throttle = new LoginThrottle({ ...LOGIN_LIMITS, addressFailures: 5 });
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

  it("asking for the code step from many addresses does not make the email spread", async () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 5; i++) {
      expect(await throttle.begin(spread(i), VICTIM)).toEqual(ALLOWED);
      await throttle.release(spread(i), VICTIM);
    }
    expect(await throttle.begin("192.0.2.140", VICTIM)).toEqual(ALLOWED);
    for (let i = 0; i < 3; i++) expect(await throttle.begin("192.0.2.140", VICTIM)).toEqual(ALLOWED);
  });
});
