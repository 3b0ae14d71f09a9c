"use client";

import { useState, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { formatWait } from "@/lib/dashboard/format";
import { TWO_FACTOR_REQUIRED, isTwoFactorStep, loginErrorMessage } from "@/lib/dashboard/login-errors";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Card } from "@/components/ui/card";
import { AlertIcon } from "@/components/ui/icons";
import { authInputClass } from "@/components/ui/form-controls";

interface LoginFormProps {
  callbackPath: string;
  /** A next-auth error code from `/login?error=` (next-auth's own redirects land here). */
  initialError: string | null;
  demo: { email: string; password: string } | null;
}


export function LoginForm({ callbackPath, initialError, demo }: LoginFormProps) {
  const { t, locale } = useI18n();
  const router = useRouter();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [errorCode, setErrorCode] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);
  // After a right password for a user with two-factor sign-in: the code step, keeping what was typed.
  const [codeStep, setCodeStep] = useState(false);
  const [code, setCode] = useState("");

  function errorText(code: string): string {
    const { key, retryAfterSeconds } = loginErrorMessage(code);
    return retryAfterSeconds === undefined ? t(key) : t(key, { wait: formatWait(retryAfterSeconds, locale) });
  }

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setErrorCode(null);
    try {
      const result = await signIn("credentials", { email, password, ...(codeStep ? { code } : {}), redirect: false });
      if (!result || result.error || !result.ok) {
        const error = result?.error ?? "SignInFailed";
        // At the code step, a wait (throttled) keeps it; only a refused password goes back.
        const toCodeStep = isTwoFactorStep(error) || (codeStep && error !== "CredentialsSignin");
        if (toCodeStep !== codeStep) setCode("");
        setCodeStep(toCodeStep);
        setErrorCode(error === TWO_FACTOR_REQUIRED ? null : error);
        setPending(false);
        return;
      }
      router.replace(callbackPath);
      router.refresh();
    } catch {
      setErrorCode("SignInFailed");
      setPending(false);
    }
  }

  return (
    <>
      <Card className="mt-6 p-6">
        <form onSubmit={handleSubmit} className="space-y-4" data-testid={codeStep ? "login-code-step" : undefined}>
          {codeStep && (
            <div>
              <p className="text-base font-semibold text-zinc-900">{t("twoFactor.login.title")}</p>
              <p className="mt-1 text-sm text-zinc-500">{t("twoFactor.login.body")}</p>
            </div>
          )}
          {errorCode && (
            <div role="alert" className="flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2.5 text-sm text-red-700">
              <AlertIcon width={18} height={18} className="mt-px shrink-0" />
              <span>{errorText(errorCode)}</span>
            </div>
          )}
          {codeStep ? (
            <div>
              <label htmlFor="login-code" className="block text-sm font-medium text-zinc-700">
                {t("twoFactor.login.code")}
              </label>
              <input
                id="login-code"
                name="code"
                type="text"
                inputMode="text"
                autoComplete="one-time-code"
                required
                autoFocus
                maxLength={40}
                value={code}
                onChange={(event) => setCode(event.target.value)}
                className={`${authInputClass} font-mono tracking-widest`}
              />
            </div>
          ) : (
            <>
              <div>
                <label htmlFor="login-email" className="block text-sm font-medium text-zinc-700">
                  {t("login.email")}
                </label>
                <input
                  id="login-email"
                  name="email"
                  type="email"
                  autoComplete="username"
                  required
                  autoFocus
                  value={email}
                  onChange={(event) => setEmail(event.target.value)}
                  className={authInputClass}
                />
              </div>
              <div>
                <label htmlFor="login-password" className="block text-sm font-medium text-zinc-700">
                  {t("login.password")}
                </label>
                <input
                  id="login-password"
                  name="password"
                  type="password"
                  autoComplete="current-password"
                  required
                  value={password}
                  onChange={(event) => setPassword(event.target.value)}
                  className={authInputClass}
                />
              </div>
            </>
          )}
          <button
            type="submit"
            disabled={pending}
            className="flex w-full items-center justify-center rounded-lg bg-indigo-600 px-4 py-2.5 text-sm font-semibold text-white shadow-xs hover:bg-indigo-500 disabled:cursor-not-allowed disabled:opacity-60"
          >
            {codeStep ? (pending ? t("twoFactor.login.verifying") : t("twoFactor.login.verify")) : pending ? t("login.submitting") : t("login.submit")}
          </button>
          {codeStep && (
            <button
              type="button"
              onClick={() => {
                setCodeStep(false);
                setCode("");
                setErrorCode(null);
              }}
              className="w-full text-center text-sm font-medium text-zinc-600 hover:text-zinc-900"
            >
              {t("twoFactor.login.back")}
            </button>
          )}
        </form>
      </Card>

      {demo && (
        <div className="mt-4 rounded-xl border border-dashed border-zinc-300 bg-white/60 p-4 text-sm" data-testid="demo-hint">
          <p className="font-medium text-zinc-900">{t("login.demoTitle")}</p>
          <p className="mt-1 text-zinc-500">{t("login.demoBody")}</p>
          <p className="mt-2 break-all font-mono text-xs text-zinc-700">
            {demo.email} / {demo.password}
          </p>
          <button
            type="button"
            onClick={() => {
              setEmail(demo.email);
              setPassword(demo.password);
            }}
            className="mt-3 text-sm font-medium text-indigo-600 hover:text-indigo-500"
          >
            {t("login.demoFill")}
          </button>
        </div>
      )}
    </>
  );
}
