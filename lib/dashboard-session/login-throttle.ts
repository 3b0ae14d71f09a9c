import ipaddr from "ipaddr.js";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { RecentMap } from "./recent-map";

/**
 * How sign-in failures are limited. Only an address's own failures refuse it for long. An email
 * is never refused: when its failures come from several addresses it only makes those addresses
 * wait seconds between attempts, and an address without failures for it is never delayed at all,
 * so whoever guesses a user's password cannot keep the user out.
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
  /**
   * Once wrong passwords for one email came from this many addresses (each within the window of
   * its last one), an address that has itself failed for the email waits for the email's gate:
   * 1 s, 2 s, 4 s … at most 30 s after the gate's previous attempt.
   */
  spreadAddresses: 3,
  emailWindowSeconds: 60 * 60,
  backoffFirstSeconds: 1,
  backoffMaxSeconds: 30,
  /** An address the email signed in from within this time is never delayed by the email's gate. */
  knownAddressSeconds: 30 * 24 * 60 * 60,
  /** Memory bounds, since an attacker chooses the emails: emails remembered (the least recently seen is forgotten first), addresses per email. */
  maxEmails: 50_000,
  maxAddressesPerEmail: 16,
};
export type LoginLimits = typeof LOGIN_LIMITS;

export type LoginCheck = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** One taken point, to give back when a later limit refuses the attempt. */
type Taken = [RateLimiterMemory, string];

/** An email's recent failures, for its gate. */
interface EmailRecord {
  /** Addresses with attempts for the email, the latest last: attempts counted (in flight or failed) and when the last began. */
  failing: RecentMap<string, { attempts: number; at: number }>;
  /** Attempts let through the gate so far; the next one waits `backoffSeconds(gated)` after the last. */
  gated: number;
  gateOpensAt: number;
}

/**
 * The dashboard's sign-in throttle (after rate-limiter-flexible's login-protection pattern: per
 * address and per address and email, plus a gate per email against guesses spread over many
 * addresses). In memory: one dashboard process's worth; instances behind a load balancer each keep
 * their own counts.
 */
export class LoginThrottle {
  private readonly byAddress: RateLimiterMemory;
  private readonly byPair: RateLimiterMemory;
  private readonly emails: RecentMap<string, EmailRecord>;
  /** Per email, the addresses it signed in from and when. */
  private readonly known: RecentMap<string, RecentMap<string, number>>;

  constructor(private readonly limits: LoginLimits = LOGIN_LIMITS) {
    this.byAddress = new RateLimiterMemory({ keyPrefix: "login_address", points: limits.addressFailures, duration: limits.addressWindowSeconds, blockDuration: limits.addressBlockSeconds });
    this.byPair = new RateLimiterMemory({ keyPrefix: "login_pair", points: limits.pairFailures, duration: limits.pairWindowSeconds, blockDuration: limits.pairBlockSeconds });
    this.emails = new RecentMap(limits.maxEmails);
    this.known = new RecentMap(limits.maxEmails);
  }

  /**
   * Takes one attempt for `email` from `address`, or says how long to wait. A taken attempt counts
   * as a failure until `succeeded`: it is counted before the password is checked, so concurrent
   * guesses cannot all pass a check made before any of them failed.
   */
  async begin(clientAddress: string, email: string): Promise<LoginCheck> {
    const address = addressBucket(clientAddress);
    const taken: Taken[] = [];
    const refuse = async (msBeforeNext: number): Promise<LoginCheck> => {
      for (const [limiter, key] of taken) await limiter.reward(key);
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)) };
    };
    try {
      await this.byAddress.consume(address);
      taken.push([this.byAddress, address]);
      const pair = await this.byPair.consume(pairKey(address, email));
      taken.push([this.byPair, pairKey(address, email)]);
      // From here on nothing awaits: the gate is read and taken in one step.
      const wait = this.takeGate(address, email, pair.consumedPoints - 1);
      if (wait > 0) return refuse(wait);
      this.countAttempt(address, email);
      return { allowed: true };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return refuse(rejection.msBeforeNext);
    }
  }

  /**
   * The password was right and a second factor is still to come: this attempt was no failure, but
   * the counts do not start again, so asking for the code step cannot wipe the wrong codes before it.
   */
  async release(clientAddress: string, email: string): Promise<void> {
    const address = addressBucket(clientAddress);
    await this.byAddress.reward(address);
    await this.byPair.reward(pairKey(address, email));
    this.uncountAttempt(address, email, 1);
  }

  /**
   * Signed in (the password right, and the second factor when the user has one): the attempt was
   * no failure, the pair's count starts again, and the address becomes one the email's gate never
   * delays. Other addresses' failures for the email stay counted.
   */
  async succeeded(clientAddress: string, email: string): Promise<void> {
    const address = addressBucket(clientAddress);
    await this.byAddress.reward(address);
    await this.byPair.delete(pairKey(address, email));
    this.uncountAttempt(address, email, Infinity);
    const known = this.known.get(email) ?? new RecentMap<string, number>(this.limits.maxAddressesPerEmail);
    known.set(address, Date.now());
    this.known.set(email, known);
  }

  /**
   * The email's gate, for an attempt from `address` after `earlierFailures` of its own for the
   * email: 0 when it need not wait (and took the gate if it had to pass it), else the ms to wait.
   */
  private takeGate(address: string, email: string, earlierFailures: number): number {
    if (earlierFailures <= 0 || this.isKnown(address, email)) return 0;
    const record = this.recentFailures(email);
    if (!record || record.failing.size < this.limits.spreadAddresses) return 0;
    const now = Date.now();
    if (now < record.gateOpensAt) return record.gateOpensAt - now;
    record.gateOpensAt = now + this.backoffSeconds(record.gated) * 1000;
    record.gated += 1;
    return 0;
  }

  private countAttempt(address: string, email: string): void {
    const record = this.recentFailures(email) ?? { failing: new RecentMap(this.limits.maxAddressesPerEmail), gated: 0, gateOpensAt: 0 };
    record.failing.set(address, { attempts: (record.failing.get(address)?.attempts ?? 0) + 1, at: Date.now() });
    this.emails.set(email, record);
  }

  private uncountAttempt(address: string, email: string, attempts: number): void {
    const record = this.emails.get(email);
    const entry = record?.failing.get(address);
    if (!record || !entry) return;
    if (entry.attempts > attempts) entry.attempts -= attempts;
    else record.failing.delete(address);
    if (record.failing.size === 0) this.emails.delete(email);
  }

  /** The email's record without the addresses whose last attempt is older than the window; none when no address is left. */
  private recentFailures(email: string): EmailRecord | undefined {
    const record = this.emails.get(email);
    if (!record) return undefined;
    const since = Date.now() - this.limits.emailWindowSeconds * 1000;
    for (const [address, { at }] of record.failing) {
      if (at > since) break;
      record.failing.delete(address);
    }
    if (record.failing.size > 0) return record;
    this.emails.delete(email);
    return undefined;
  }

  private isKnown(address: string, email: string): boolean {
    const signedInAt = this.known.get(email)?.get(address);
    return signedInAt !== undefined && Date.now() - signedInAt < this.limits.knownAddressSeconds * 1000;
  }

  /** The wait the gate holds after its `gated`-th attempt (from 0): 1 s, doubling, capped. */
  private backoffSeconds(gated: number): number {
    const { backoffFirstSeconds, backoffMaxSeconds } = this.limits;
    return Math.min(backoffMaxSeconds, backoffFirstSeconds * 2 ** gated);
  }
}

/**
 * The bucket an address counts in: IPv6 by its /64, the block one subscriber or host gets whole
 * (counting each of its addresses apart would give its holder endless fresh addresses), and an
 * IPv4-mapped IPv6 address as the IPv4 address it is.
 */
export function addressBucket(address: string): string {
  if (!ipaddr.IPv6.isValid(address)) return address;
  const parsed = ipaddr.IPv6.parse(address);
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`).toString()}/64`;
}

const pairKey = (address: string, email: string) => JSON.stringify([address, email]);

export const loginThrottle = new LoginThrottle();
