import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

/**
 * How sign-in failures are limited. An attacker can choose any email, so no limit on an email
 * refuses it for long: each email only has to wait a growing delay between attempts.
 */
export const LOGIN_LIMITS = {
  /** Wrong passwords from one client address, over any emails, before that address is refused. */
  addressFailures: 30,
  addressWindowSeconds: 15 * 60,
  addressBlockSeconds: 15 * 60,
  /** Consecutive wrong passwords for one email from one address before that pair is refused. */
  pairFailures: 10,
  pairWindowSeconds: 60 * 60,
  pairBlockSeconds: 15 * 60,
  /** Wrong passwords for one email (from anywhere) before each attempt waits 1 s, 2 s, 4 s … at most 30 s after the previous one. */
  freeAccountFailures: 3,
  backoffFirstSeconds: 1,
  backoffMaxSeconds: 30,
  accountWindowSeconds: 60 * 60,
};
export type LoginLimits = typeof LOGIN_LIMITS;

export type LoginCheck = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** One taken point, to give back when a later limit refuses the attempt. */
type Taken = [RateLimiterMemory, string];

/**
 * The dashboard's sign-in throttle (after rate-limiter-flexible's login-protection pattern: per
 * address, per address and email, plus a per-email backoff). In memory: one dashboard process's
 * worth; instances behind a load balancer each keep their own counts.
 */
export class LoginThrottle {
  private readonly byAddress: RateLimiterMemory;
  private readonly byPair: RateLimiterMemory;
  private readonly accountFailures: RateLimiterMemory;
  private readonly accountGate: RateLimiterMemory;

  constructor(private readonly limits: LoginLimits = LOGIN_LIMITS) {
    this.byAddress = new RateLimiterMemory({ keyPrefix: "login_address", points: limits.addressFailures, duration: limits.addressWindowSeconds, blockDuration: limits.addressBlockSeconds });
    this.byPair = new RateLimiterMemory({ keyPrefix: "login_pair", points: limits.pairFailures, duration: limits.pairWindowSeconds, blockDuration: limits.pairBlockSeconds });
    this.accountFailures = new RateLimiterMemory({ keyPrefix: "login_account", points: Number.MAX_SAFE_INTEGER, duration: limits.accountWindowSeconds });
    // One attempt per backoff delay; each consume sets the delay it holds the gate for.
    this.accountGate = new RateLimiterMemory({ keyPrefix: "login_gate", points: 1, duration: limits.backoffFirstSeconds });
  }

  /**
   * Takes one attempt for `email` from `address`, or says how long to wait. A taken attempt counts
   * as a failure until `succeeded`: it is counted before the password is checked, so concurrent
   * guesses cannot all pass a check made before any of them failed.
   */
  async begin(address: string, email: string): Promise<LoginCheck> {
    const taken: Taken[] = [];
    const refuse = async (rejection: unknown): Promise<LoginCheck> => {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      for (const [limiter, key] of taken) await limiter.reward(key);
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
    };
    try {
      await this.byAddress.consume(address);
      taken.push([this.byAddress, address]);
      await this.byPair.consume(pairKey(address, email));
      taken.push([this.byPair, pairKey(address, email)]);
      const failures = (await this.accountFailures.penalty(email)).consumedPoints - 1;
      taken.push([this.accountFailures, email]);
      if (failures >= this.limits.freeAccountFailures) await this.accountGate.consume(email, 1, { customDuration: this.backoffSeconds(failures) });
      return { allowed: true };
    } catch (rejection) {
      return refuse(rejection);
    }
  }

  /**
   * The password was right and a second factor is still to come: this attempt was no failure, but
   * the counts do not start again, so asking for the code step cannot wipe the wrong codes before it.
   */
  async release(address: string, email: string): Promise<void> {
    await this.byAddress.reward(address);
    await this.byPair.reward(pairKey(address, email));
    await this.accountFailures.reward(email);
  }

  /** Signed in (the password right, and the second factor when the user has one): the attempt was no failure, and the email's and pair's counts start again. */
  async succeeded(address: string, email: string): Promise<void> {
    await this.byAddress.reward(address);
    await this.byPair.delete(pairKey(address, email));
    await this.accountFailures.delete(email);
    await this.accountGate.delete(email);
  }

  /** The wait after the `failures`-th failure: 1 s after the first one past the free ones, doubling, capped. */
  private backoffSeconds(failures: number): number {
    const { backoffFirstSeconds, backoffMaxSeconds, freeAccountFailures } = this.limits;
    return Math.min(backoffMaxSeconds, backoffFirstSeconds * 2 ** (failures - freeAccountFailures));
  }
}

const pairKey = (address: string, email: string) => JSON.stringify([address, email]);

export const loginThrottle = new LoginThrottle();
