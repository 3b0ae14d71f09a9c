import type { MessageKey } from "./i18n";

const THROTTLED_PREFIX = "TooManyAttempts:";

/** The sign-in error code of a refused attempt; next-auth passes a thrown message through to the form. */
export function loginThrottledError(retryAfterSeconds: number): string {
  return `${THROTTLED_PREFIX}${retryAfterSeconds}`;
}

/** The password was right and the user signs in with a second factor: the form asks for the code. */
export const TWO_FACTOR_REQUIRED = "TwoFactorRequired";
/** The second factor was wrong (or already used): the form stays at the code step. */
export const TWO_FACTOR_INVALID = "TwoFactorInvalid";

/** Codes after which the form shows (or keeps) the code step, with the email and password kept. */
export function isTwoFactorStep(code: string): boolean {
  return code === TWO_FACTOR_REQUIRED || code === TWO_FACTOR_INVALID;
}

export interface LoginErrorMessage {
  key: MessageKey;
  /** For `login.throttled`: how long to wait before the next attempt. */
  retryAfterSeconds?: number;
}

/** The message for a next-auth sign-in error code (from `signIn()` or `/login?error=`). */
export function loginErrorMessage(code: string): LoginErrorMessage {
  if (code === "CredentialsSignin") return { key: "login.invalid" };
  if (code === TWO_FACTOR_INVALID) return { key: "twoFactor.login.invalid" };
  if (code.startsWith(THROTTLED_PREFIX)) {
    const seconds = Number(code.slice(THROTTLED_PREFIX.length));
    if (Number.isInteger(seconds) && seconds > 0) return { key: "login.throttled", retryAfterSeconds: seconds };
  }
  return { key: "login.failed" };
}
