import { RecentMap } from "./recent-map";

/** A wrong password, or a wrong second factor after a right password (which says the password is known). */
export type SignInFailureKind = "password" | "second_factor";

export type FailedSignInEntry =
  | { write: false }
  | { write: true; windowMinutes: number; previousWindow?: { startedAt: Date; failures: number } };

/**
 * Which failed sign-ins reach the activity log: the first of each kind per user in a window (15
 * minutes from it), so that guessing a user's password costs the log one entry per window, however
 * many guesses. The failures after it are counted, and the next window's entry carries that
 * count. In memory, like the login throttle; only known users' failures are noted.
 */
export class FailedSignIns {
  private readonly windows: RecentMap<string, { startedAt: number; failures: number }>;

  constructor(
    private readonly windowMinutes = 15,
    maxWindows = 100_000,
  ) {
    this.windows = new RecentMap(maxWindows);
  }

  /** Counts one failure of `userId`; says whether to write it to the activity log. */
  note(userId: string, kind: SignInFailureKind): FailedSignInEntry {
    const key = `${kind}:${userId}`;
    const now = Date.now();
    const current = this.windows.get(key);
    if (current && now - current.startedAt < this.windowMinutes * 60_000) {
      current.failures += 1;
      return { write: false };
    }
    this.windows.set(key, { startedAt: now, failures: 1 });
    const previousWindow = current && current.failures > 1 ? { startedAt: new Date(current.startedAt), failures: current.failures } : undefined;
    return { write: true, windowMinutes: this.windowMinutes, ...(previousWindow ? { previousWindow } : {}) };
  }
}

export const failedSignIns = new FailedSignIns();
