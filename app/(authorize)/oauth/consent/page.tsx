import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getDatabase } from "@/lib/db";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireAuthorizingUser } from "@/lib/dashboard-session/authorize-session";
import { consentPagePath, validateAuthorizationRequest } from "@/lib/oauth/authorize";
import { Card } from "@/components/ui/card";
import { DecisionButtons } from "../../_components/decision-buttons";
import { RequestDetails, SignedInAs, StatusMessage } from "../../_components/request-details";
import { decideConsent } from "./actions";
import { ConsentForm } from "./consent-form";
import { authorizationParams } from "./params";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("authorize.approve") };
}

/**
 * The consent page of the authorization code grant. `GET /api/v1/oauth/authorize` sends the
 * browser here with the request's parameters; they are validated again before anything is shown.
 */
export default async function ConsentPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = authorizationParams(await searchParams);
  const user = await requireAuthorizingUser(consentPagePath(params));
  const t = translator(await getRequestLocale());
  const { db } = await getDatabase();
  const check = await validateAuthorizationRequest(db, params);
  if (!check.ok) {
    if ("redirectTo" in check) redirect(check.redirectTo);
    return (
      <Card className="p-8">
        <StatusMessage title={t("consent.invalidTitle")} body={check.error.message} tone="error" />
      </Card>
    );
  }
  const { request } = check;
  return (
    <>
      <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">{t("consent.title", { client: request.client.name })}</h1>
      <p className="mt-1 text-sm text-zinc-500">{t("consent.onlyIfYou")}</p>
      <Card className="mt-6 p-6">
        <ConsentForm action={decideConsent}>
          {Object.entries(params).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <RequestDetails t={t} scopes={request.scope.split(" ")} user={user} />
          <p className="text-xs text-zinc-500">{t("consent.returnTo", { host: new URL(request.redirectUri).host || request.redirectUri })}</p>
          <DecisionButtons />
        </ConsentForm>
      </Card>
      <SignedInAs t={t} user={user} />
    </>
  );
}
