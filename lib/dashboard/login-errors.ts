import type { MessageKey } from "./i18n";

/** The sign-in error code for a throttled email (next-auth passes a thrown message through). */
export const LOGIN_THROTTLED_ERROR = "TooManyAttempts";

/** The message for a next-auth sign-in error code (from `signIn()` or `/login?error=`). */
export function loginErrorMessageKey(code: string): MessageKey {
  if (code === "CredentialsSignin") return "login.invalid";
  if (code === LOGIN_THROTTLED_ERROR) return "login.throttled";
  return "login.failed";
}
