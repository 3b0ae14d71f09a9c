import type { z } from "zod";
import type { AccountSecuritySchema, ConfirmedEnrolmentSchema, EnrolmentSchema, MemberResetSchema, TwoFactorStatusSchema } from "../api/routes/two-factor-schemas";
import { apiData } from "./api-client";

/** Two-factor sign-in through `/api/v1/auth/user/two-factor…` and `/auth/account/security`; types from the API's own schemas. */
export type TwoFactorStatus = z.infer<typeof TwoFactorStatusSchema>;
export type TwoFactorEnrolment = z.infer<typeof EnrolmentSchema>;
export type TwoFactorEnabled = z.infer<typeof ConfirmedEnrolmentSchema>;
export type AccountSecurity = z.infer<typeof AccountSecuritySchema>;

export const twoFactorQueryKey = ["auth", "user", "two-factor"] as const;
export const accountSecurityQueryKey = ["auth", "account", "security"] as const;

export function fetchTwoFactorStatus(signal?: AbortSignal): Promise<TwoFactorStatus> {
  return apiData<TwoFactorStatus>("/auth/user/two-factor", { signal });
}

export function startEnrolment(password: string): Promise<TwoFactorEnrolment> {
  return apiData<TwoFactorEnrolment>("/auth/user/two-factor/enrolment", { method: "POST", body: { password } });
}

export function confirmEnrolment(code: string): Promise<TwoFactorEnabled> {
  return apiData<TwoFactorEnabled>("/auth/user/two-factor/confirm", { method: "POST", body: { code } });
}

export function disableTwoFactor(code: string): Promise<{ enabled: false }> {
  return apiData("/auth/user/two-factor", { method: "DELETE", body: { code } });
}

export function fetchAccountSecurity(signal?: AbortSignal): Promise<AccountSecurity> {
  return apiData<AccountSecurity>("/auth/account/security", { signal });
}

export function setRequireTwoFactor(require: boolean): Promise<AccountSecurity> {
  return apiData<AccountSecurity>("/auth/account/security", { method: "PUT", body: { require_two_factor: require } });
}

/** For the Members page: an owner resets a member's two-factor sign-in (a lost authenticator). */
export function resetMemberTwoFactor(userId: string): Promise<z.infer<typeof MemberResetSchema>> {
  return apiData("/auth/account/members/" + encodeURIComponent(userId) + "/two-factor/reset", { method: "POST" });
}

/** The recovery codes as a text file to keep. */
export function recoveryCodesFile(codes: readonly string[], email: string): string {
  return [`Tollgate recovery codes for ${email}`, "Each code signs you in once. Keep them somewhere safe.", "", ...codes, ""].join("\n");
}
