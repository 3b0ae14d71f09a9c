"use client";

import { useState, type FormEvent } from "react";
import { signIn } from "next-auth/react";
import { useI18n } from "@/components/i18n/i18n-provider";
import { AlertIcon } from "@/components/ui/icons";
import { formatWait } from "@/lib/dashboard/format";
import type { MessageKey } from "@/lib/dashboard/i18n";
import { acceptInvitationAction, type AcceptResult } from "../actions";
import { authInputClass } from "@/components/ui/form-controls";


const MIN_PASSWORD = 8;

type Failure = Extract<AcceptResult, { ok: false }>["reason"] | "mismatch" | "too_short" | "sign_in";

const failureKeys: Record<Failure, MessageKey> = {
  unknown: "invite.status.unknown",
  expired: "invite.status.expired",
  accepted: "invite.status.accepted",
  revoked: "invite.status.revoked",
  wrong_password: "invite.wrongPassword",
  weak_password: "invite.tooShort",
  separate_duties: "invite.separateDuties",
  too_short: "invite.tooShort",
  mismatch: "invite.mismatch",
  throttled: "invite.throttled",
  sign_in: "invite.signInFailed",
};

/**
 * A new user sets a password (twice); an existing user enters theirs. On acceptance the browser
 * signs in with them; the sign-in opens the account just joined (the action marked it as used last).
 */
export function AcceptForm({ token, email, existingUser }: { token: string; email: string; existingUser: boolean }) {
  const { t, locale } = useI18n();
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [failure, setFailure] = useState<{ reason: Failure; wait?: number } | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!existingUser && password.length < MIN_PASSWORD) return setFailure({ reason: "too_short" });
    if (!existingUser && password !== confirm) return setFailure({ reason: "mismatch" });
    setPending(true);
    setFailure(null);
    const result = await acceptInvitationAction({ token, password });
    if (!result.ok) {
      setFailure({ reason: result.reason, wait: result.retryAfterSeconds });
      setPending(false);
      return;
    }
    const signedIn = await signIn("credentials", { email: result.email, password, redirect: false });
    if (!signedIn?.ok || signedIn.error) {
      // Joined, but the sign-in needs more (a second factor) or was refused: the login page takes over.
      window.location.assign("/login");
      return;
    }
    window.location.assign("/");
  }

  const message = failure ? t(failureKeys[failure.reason], { wait: formatWait(failure.wait ?? 0, locale), min: MIN_PASSWORD }) : null;
  return (
    <form onSubmit={(e) => void submit(e)} className="space-y-4" data-testid="accept-form">
      {message && (
        <div role="alert" className="flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2.5 text-sm text-red-700" data-testid="accept-error">
          <AlertIcon width={18} height={18} className="mt-px shrink-0" />
          <span>{message}</span>
        </div>
      )}
      <input type="email" name="email" value={email} autoComplete="username" readOnly hidden />
      <div>
        <label htmlFor="invite-password" className="block text-sm font-medium text-zinc-700">
          {existingUser ? t("invite.yourPassword") : t("invite.newPassword")}
        </label>
        <input
          id="invite-password"
          type="password"
          required
          autoFocus
          autoComplete={existingUser ? "current-password" : "new-password"}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          className={authInputClass}
        />
        {!existingUser && <p className="mt-1 text-xs text-zinc-500">{t("invite.passwordHint", { min: MIN_PASSWORD })}</p>}
      </div>
      {!existingUser && (
        <div>
          <label htmlFor="invite-confirm" className="block text-sm font-medium text-zinc-700">
            {t("invite.confirmPassword")}
          </label>
          <input id="invite-confirm" type="password" required autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} className={authInputClass} />
        </div>
      )}
      <button
        type="submit"
        disabled={pending}
        className="flex w-full items-center justify-center rounded-lg bg-indigo-600 px-4 py-2.5 text-sm font-semibold text-white shadow-xs hover:bg-indigo-500 disabled:cursor-not-allowed disabled:opacity-60"
      >
        {pending ? t("invite.joining") : t("invite.join")}
      </button>
    </form>
  );
}
