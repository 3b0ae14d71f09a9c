const MAX_FAILURES = 10;
const WINDOW_MS = 15 * 60 * 1000;
// Bounds memory when someone sprays many different emails.
const MAX_TRACKED = 10_000;

interface Failures {
  count: number;
  firstAt: number;
}

/**
 * Slows password guessing against one email: after MAX_FAILURES wrong passwords within WINDOW_MS
 * further attempts are refused until the window passes. In-process, which is enough for the one
 * server process that serves the dashboard.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, Failures>();

  constructor(
    private readonly maxFailures = MAX_FAILURES,
    private readonly windowMs = WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  allows(key: string): boolean {
    const entry = this.current(key);
    return !entry || entry.count < this.maxFailures;
  }

  recordFailure(key: string): void {
    const entry = this.current(key);
    if (entry) {
      entry.count += 1;
      return;
    }
    if (this.failures.size >= MAX_TRACKED) this.evictOldest();
    this.failures.set(key, { count: 1, firstAt: this.now() });
  }

  reset(key: string): void {
    this.failures.delete(key);
  }

  private evictOldest(): void {
    // Maps iterate in insertion order, so the first key is the oldest window.
    const oldest = this.failures.keys().next();
    if (!oldest.done) this.failures.delete(oldest.value);
  }

  private current(key: string): Failures | undefined {
    const entry = this.failures.get(key);
    if (entry && this.now() - entry.firstAt > this.windowMs) {
      this.failures.delete(key);
      return undefined;
    }
    return entry;
  }
}

export const loginThrottle = new LoginThrottle();
