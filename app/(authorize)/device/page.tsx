import type { Metadata } from "next";
import { getDatabase } from "@/lib/db";
import { translator, type Translate } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireAuthorizingUser } from "@/lib/dashboard-session/authorize-session";
import { formatWait, formatZonedDateTime } from "@/lib/dashboard/format";
import { findPendingDeviceAuthorization, type PendingDeviceAuthorization } from "@/lib/oauth/device";
import { UserCodeThrottledError } from "@/lib/oauth/user-code-throttle";
import { Card } from "@/components/ui/card";
import { AlertIcon } from "@/components/ui/icons";
import { DecisionButtons } from "../_components/decision-buttons";
import { RequestDetails, SignedInAs, StatusMessage } from "../_components/request-details";
import { decideDevice } from "./actions";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("device.title") };
}

type SearchParams = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

const inputClass =
  "mt-1.5 block w-full rounded-lg border border-zinc-300 bg-white px-3 py-2.5 text-center font-mono text-lg uppercase tracking-[0.3em] text-zinc-900 shadow-xs placeholder:text-zinc-500 focus:border-indigo-500 focus:outline-2 focus:outline-offset-0 focus:outline-indigo-500/30";

function CodeForm({ t, value, error }: { t: Translate; value?: string; error?: string }) {
  return (
    <>
      <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">{t("device.title")}</h1>
      <p className="mt-1 text-sm text-zinc-500">{t("device.subtitle")}</p>
      <Card className="mt-6 p-6">
        <form method="get" action="/device" className="space-y-4">
          {error && (
            <div role="alert" className="flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2.5 text-sm text-red-700">
              <AlertIcon width={18} height={18} className="mt-px shrink-0" />
              <span>{error}</span>
            </div>
          )}
          <div>
            <label htmlFor="user-code" className="block text-sm font-medium text-zinc-700">
              {t("device.codeLabel")}
            </label>
            <input
              id="user-code"
              name="user_code"
              required
              autoFocus
              autoComplete="off"
              autoCapitalize="characters"
              spellCheck={false}
              maxLength={12}
              placeholder="BCDF-GHJK"
              defaultValue={value}
              className={inputClass}
            />
          </div>
          <button type="submit" className="w-full rounded-lg bg-indigo-600 px-4 py-2.5 text-sm font-semibold text-white shadow-xs hover:bg-indigo-500">
            {t("device.continue")}
          </button>
        </form>
      </Card>
    </>
  );
}

/**
 * The device flow's verification page (RFC 8628 section 3.3): the signed-in user enters the user
 * code (or arrives with it from `verification_uri_complete`), checks what is asked, and approves
 * or denies for their account.
 */
export default async function DevicePage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const userCode = one(params.user_code)?.trim();
  const done = one(params.done);
  const user = await requireAuthorizingUser(userCode ? `/device?user_code=${encodeURIComponent(userCode)}` : "/device");
  const locale = await getRequestLocale();
  const t = translator(locale);

  if (done === "approved" || done === "denied" || done === "stale") {
    const status = {
      approved: { title: t("device.approvedTitle"), body: t("device.approvedBody"), tone: "success" as const },
      denied: { title: t("device.deniedTitle"), body: t("device.deniedBody"), tone: "neutral" as const },
      stale: { title: t("device.staleTitle"), body: t("device.staleBody"), tone: "error" as const },
    }[done];
    return (
      <>
        <Card className="p-8">
          <StatusMessage {...status} />
        </Card>
        <SignedInAs t={t} user={user} />
      </>
    );
  }

  if (!userCode) return <CodeForm t={t} />;
  const { db } = await getDatabase();
  let pending: PendingDeviceAuthorization | null;
  try {
    pending = await findPendingDeviceAuthorization(db, { userCode, userId: user.id });
  } catch (err) {
    if (!(err instanceof UserCodeThrottledError)) throw err;
    return <CodeForm t={t} value={userCode} error={t("device.throttled", { wait: formatWait(err.retryAfterSeconds, locale) })} />;
  }
  if (!pending) return <CodeForm t={t} value={userCode} error={t("device.notFound")} />;

  return (
    <>
      <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">{t("device.requestTitle", { client: pending.clientName })}</h1>
      <p className="mt-1 text-sm text-zinc-500">{t("authorize.onlyIfYou")}</p>
      <Card className="mt-6 p-6">
        <form action={decideDevice} className="space-y-6">
          <input type="hidden" name="user_code" value={pending.userCode} />
          <RequestDetails t={t} scopes={pending.scope} user={user}>
            <section>
              <h2 className="text-sm font-medium text-zinc-900">{t("device.confirmCode")}</h2>
              <p className="mt-2 rounded-lg bg-zinc-100 py-3 text-center font-mono text-2xl font-semibold tracking-[0.25em] text-zinc-900" data-testid="user-code">
                {pending.userCode}
              </p>
            </section>
          </RequestDetails>
          <p className="text-xs text-zinc-500">{t("authorize.expiresAt", { time: formatZonedDateTime(pending.expiresAt.toISOString(), "UTC", locale) })}</p>
          <DecisionButtons />
        </form>
      </Card>
      <SignedInAs t={t} user={user} />
    </>
  );
}
