import type { ReactNode } from "react";
import type { Translate } from "@/lib/dashboard/i18n";
import type { AuthorizingUser } from "@/lib/dashboard-session/authorize-session";
import { isScope } from "@/lib/oauth/scopes";

function CheckIcon() {
  return (
    <svg viewBox="0 0 20 20" width={18} height={18} aria-hidden="true" className="mt-px shrink-0 text-indigo-600">
      <path d="M5 10.5l3 3 7-7" stroke="currentColor" strokeWidth="2" fill="none" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

/** What is being granted, to which account, and by whom: the body of both decision pages. */
export function RequestDetails({ t, scopes, user, children }: { t: Translate; scopes: string[]; user: AuthorizingUser; children?: ReactNode }) {
  return (
    <div className="space-y-5">
      {children}
      <section>
        <h2 className="text-sm font-medium text-zinc-900">{t("authorize.canDo")}</h2>
        <ul className="mt-2 space-y-2" data-testid="requested-scopes">
          {scopes.map((scope) => (
            <li key={scope} className="flex items-start gap-2 text-sm text-zinc-700">
              <CheckIcon />
              <span>
                {isScope(scope) ? t(`scope.${scope}`) : scope}
                <span className="ml-1.5 font-mono text-xs text-zinc-500">{scope}</span>
              </span>
            </li>
          ))}
        </ul>
      </section>
      <fieldset>
        <legend className="text-sm font-medium text-zinc-900">{t("authorize.account")}</legend>
        <label className="mt-2 flex cursor-pointer items-center gap-3 rounded-lg border border-indigo-200 bg-indigo-50/60 px-3 py-2.5">
          <input type="radio" name="account_id" value={user.accountId} defaultChecked className="accent-indigo-600" />
          <span className="min-w-0">
            <span className="block text-sm font-medium text-zinc-900">{user.accountName}</span>
            <span className="block truncate font-mono text-xs text-zinc-500">{user.accountId}</span>
          </span>
        </label>
        <p className="mt-1.5 text-xs text-zinc-500">{t("authorize.accountHint")}</p>
      </fieldset>
    </div>
  );
}

export function SignedInAs({ t, user }: { t: Translate; user: AuthorizingUser }) {
  return (
    <p className="mt-4 text-center text-xs text-zinc-500" data-testid="signed-in-as">
      {t("authorize.signedInAs", { email: user.email })}
    </p>
  );
}

/** A finished or failed request: a title and one sentence. */
export function StatusMessage({ title, body, tone }: { title: string; body: string; tone: "success" | "neutral" | "error" }) {
  const colors = { success: "bg-emerald-100 text-emerald-700", neutral: "bg-zinc-100 text-zinc-600", error: "bg-red-100 text-red-700" }[tone];
  const path = { success: "M5 10.5l3 3 7-7", neutral: "M6 6l8 8M14 6l-8 8", error: "M10 6v5M10 14h.01" }[tone];
  return (
    <div className="text-center" role="status">
      <span className={`mx-auto flex h-12 w-12 items-center justify-center rounded-full ${colors}`}>
        <svg viewBox="0 0 20 20" width={24} height={24} aria-hidden="true">
          <path d={path} stroke="currentColor" strokeWidth="2" fill="none" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      </span>
      <h1 className="mt-4 text-xl font-semibold tracking-tight text-zinc-900">{title}</h1>
      <p className="mt-2 text-sm text-zinc-500">{body}</p>
    </div>
  );
}
