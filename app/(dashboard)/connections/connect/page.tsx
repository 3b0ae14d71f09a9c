import type { Metadata } from "next";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { parseConnectRequest } from "@/lib/dashboard/connections";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { Notice } from "@/components/ui/states";
import { ConnectView } from "./_components/connect-view";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("connections.connectPage.title") };
}

/**
 * Where a refused Call's `signin_url` leads (`?provider=…&scope=…&for=<user>&shared=0|1&return_to=…`):
 * the signed-in user connects that provider with those scopes. A link made for another user offers
 * nothing: it would connect this user's account at the provider for someone else's agent.
 */
export default async function ConnectPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const t = translator(await getRequestLocale());
  const user = await requireDashboardUser();
  const query = await searchParams;
  const request = parseConnectRequest({ get: (name) => [query[name]].flat()[0] ?? null });

  if (!request || (request.forUserId && request.forUserId !== user.id)) {
    const other = request !== null;
    return (
      <div className="mx-auto max-w-2xl">
        <PageHeader title={t("connections.connectPage.title")} />
        <Notice tone="warn" title={t(other ? "connections.connectPage.otherUserTitle" : "connections.connectPage.missingTitle")} testId={other ? "connect-other-user" : "connect-missing"}>
          <p>{t(other ? "connections.connectPage.otherUserBody" : "connections.connectPage.missingBody")}</p>
          {!other && (
            <ButtonLink href="/connections" size="sm" className="mt-3">
              {t("connections.connectPage.toConnections")}
            </ButtonLink>
          )}
        </Notice>
      </div>
    );
  }
  return <ConnectView request={request} currentUserId={user.id} role={user.role} />;
}
