import { z } from "@hono/zod-openapi";
import { PublicApiErrorSchema } from "../../http/schemas";
import type { AuthContext } from "../../auth/auth-context";
import { unauthorized } from "../../errors";

/** Two-factor sign-in's shapes, written once: the routes validate and describe with them, the dashboard types with them. */
export const TWO_FACTOR_EXTENSION = "Extension (not in the published contract): two-factor sign-in for dashboard users (docs/team.md, Two-factor sign-in).";

/** The user a user token speaks for (the access table admits only user tokens to these operations). */
export function userCaller(auth: AuthContext): { userId: string; accountId: string } {
  if (auth.kind !== "jwt") throw unauthorized("Two-factor sign-in is managed with a user's own token");
  return { userId: auth.userId, accountId: auth.accountId };
}

export const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: PublicApiErrorSchema } } });
export const wrongCodeResponses = {
  403: errorResponse("Wrong or already used code"),
  409: errorResponse("Not in a state that allows this (no enrolment started, already on, not on)"),
  429: errorResponse("Too many wrong codes: wait before the next attempt"),
} as const;

export const TwoFactorStatusSchema = z
  .object({
    enabled: z.boolean().openapi({ description: "Sign-in asks for a code after the password" }),
    enabled_at: z.string().nullable(),
    pending_enrolment: z.boolean().openapi({ description: "An enrolment was started and awaits its confirmation code" }),
    recovery_codes_remaining: z.number().int().openapi({ description: "Unused recovery codes (each works once instead of a code)" }),
    required_by_account: z.boolean().openapi({ description: "The account's owner requires every member to use two-factor sign-in" }),
    must_enrol: z.boolean().openapi({ description: "Required and not on: the dashboard shows enrolment before anything else" }),
  })
  .openapi("TwoFactorStatus");

export const StartEnrolmentBodySchema = z
  .object({ password: z.string().min(1).max(1000).openapi({ description: "The user's password, asked again: a token alone cannot bind an authenticator" }) })
  .openapi("StartTwoFactorEnrolmentRequest");

export const EnrolmentSchema = z
  .object({
    secret: z.string().openapi({ description: "The TOTP secret (base32), for typing into an authenticator app; shown only now" }),
    otpauth_uri: z.string().openapi({ description: "The otpauth:// URI the QR code encodes (SHA-1, 6 digits, 30 s)" }),
    qr_svg: z.string().openapi({ description: "The URI as an SVG QR code" }),
  })
  .openapi("TwoFactorEnrolment");

const CodeSchema = z.string().min(6).max(40).openapi({ description: "The 6-digit code the authenticator shows now", example: "123456" });

export const ConfirmEnrolmentBodySchema = z.object({ code: CodeSchema }).openapi("ConfirmTwoFactorEnrolmentRequest");

export const ConfirmedEnrolmentSchema = z
  .object({
    enabled: z.literal(true),
    enabled_at: z.string(),
    recovery_codes: z.array(z.string()).openapi({ description: "Ten single-use recovery codes, shown only now (only their SHA-256 is kept)" }),
  })
  .openapi("TwoFactorEnabled");

export const DisableBodySchema = z
  .object({ code: CodeSchema.openapi({ description: "A current 6-digit code, or an unused recovery code" }) })
  .openapi("DisableTwoFactorRequest");

export const DisabledSchema = z.object({ enabled: z.literal(false) }).openapi("TwoFactorDisabled");

export const MemberUserIdParam = z.object({
  user_id: z.string().min(1).max(100).openapi({ param: { name: "user_id", in: "path" }, example: "usr_01J0000000000000000000000" }),
});

export const MemberResetSchema = z
  .object({ user_id: z.string(), reset: z.boolean().openapi({ description: "false: the member had no two-factor sign-in to reset" }) })
  .openapi("TwoFactorReset");

export const AccountSecuritySchema = z
  .object({
    require_two_factor: z.boolean(),
    required_since: z.string().nullable(),
    members_without_two_factor: z.number().int().openapi({ description: "Members who will be sent to enrolment at their next dashboard page" }),
  })
  .openapi("AccountSecurity");

export const AccountSecurityBodySchema = z
  .object({ require_two_factor: z.boolean().openapi({ description: "Every member must sign in with a second factor; only an owner who uses it may turn it on" }) })
  .openapi("AccountSecurityRequest");
