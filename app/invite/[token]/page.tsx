import type { Metadata } from "next";
import Link from "next/link";
import { getDatabase } from "@/lib/db";
import { describeInvitation } from "@/lib/accounts/members";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { LanguageSwitcher } from "@/components/i18n/language-switcher";
import { Card } from "@/components/ui/card";
import { AlertIcon } from "@/components/ui/icons";
import { Logo } from "@/components/ui/logo";
import { AcceptForm } from "./_components/accept-form";

// Reads the database on every request: never prerendered.
export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("invite.title"), robots: { index: false } };
}

/** The path segment as the link wrote it; a malformed escape is just an unknown token. */
function decodedToken(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The page an invitation link opens (public: the token in the path is the credential). */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const token = decodedToken((await params).token);
  const t = translator(await getRequestLocale());
  const { db } = await getDatabase();
  const invitation = await describeInvitation(db, token);

  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex items-center justify-between px-4 py-4 sm:px-8">
        <Logo />
        <LanguageSwitcher />
      </header>
      <main className="flex flex-1 items-start justify-center px-4 pb-16 pt-4 sm:pt-10">
        <div className="w-full max-w-md">
          {invitation.status === "pending" ? (
            <>
              <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">{t("invite.heading", { account: invitation.accountName })}</h1>
              <p className="mt-1 text-sm text-zinc-500">{invitation.existingUser ? t("invite.existingBody") : t("invite.newBody")}</p>
              <Card className="mt-6 p-6">
                <dl className="mb-5 grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-2 text-sm" data-testid="invitation-details">
                  <dt className="text-zinc-500">{t("invite.account")}</dt>
                  <dd className="break-words font-medium text-zinc-900">{invitation.accountName}</dd>
                  <dt className="text-zinc-500">{t("invite.email")}</dt>
                  <dd className="break-all font-medium text-zinc-900">{invitation.email}</dd>
                  <dt className="text-zinc-500">{t("invite.role")}</dt>
                  <dd className="font-medium text-zinc-900">{t(`role.${invitation.role}`)}</dd>
                </dl>
                <AcceptForm token={token} email={invitation.email} existingUser={invitation.existingUser} />
              </Card>
            </>
          ) : (
            <>
              <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">{t("invite.title")}</h1>
              <Card className="mt-6 p-6">
                <div role="alert" className="flex items-start gap-2 text-sm text-zinc-700" data-testid="invitation-unusable" data-status={invitation.status}>
                  <AlertIcon width={18} height={18} className="mt-px shrink-0 text-amber-600" />
                  <div className="space-y-1">
                    <p className="font-medium text-zinc-900">{t(`invite.status.${invitation.status}`)}</p>
                    <p>{t("invite.askAgain")}</p>
                  </div>
                </div>
                <p className="mt-4 text-sm">
                  <Link href="/login" className="font-medium text-indigo-600 hover:text-indigo-500">
                    {t("invite.toLogin")}
                  </Link>
                </p>
              </Card>
            </>
          )}
        </div>
      </main>
    </div>
  );
}
