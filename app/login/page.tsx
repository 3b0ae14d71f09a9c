import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { env } from "@/lib/env";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { getDashboardUser } from "@/lib/dashboard-session/session";
import { DEMO_USER } from "@/lib/seed/seed-demo";
import { LanguageSwitcher } from "@/components/i18n/language-switcher";
import { Logo } from "@/components/ui/logo";
import { LoginForm } from "./_components/login-form";

// Reads the session and SEED_DEMO at request time, not at build time.
export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("login.submit") };
}

/** Only same-site paths: an open redirect after sign-in would hand the session to a phishing page. */
function safeCallbackPath(value: string | string[] | undefined): string {
  const path = Array.isArray(value) ? value[0] : value;
  if (!path || !path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\") || path.startsWith("/login")) return "/";
  return path;
}

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const callbackPath = safeCallbackPath(params.callbackUrl);
  if (await getDashboardUser()) redirect(callbackPath);

  const t = translator(await getRequestLocale());
  const error = Array.isArray(params.error) ? params.error[0] : params.error;
  const demo = env().SEED_DEMO === "false" ? null : DEMO_USER;

  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex items-center justify-between px-4 py-4 sm:px-8">
        <Logo />
        <LanguageSwitcher />
      </header>
      <main className="flex flex-1 items-start justify-center px-4 pb-16 pt-6 sm:items-center sm:pt-0">
        <div className="w-full max-w-sm">
          <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">{t("login.title")}</h1>
          <p className="mt-1 text-sm text-zinc-500">{t("login.subtitle")}</p>
          <LoginForm callbackPath={callbackPath} initialError={error ?? null} demo={demo} />
        </div>
      </main>
    </div>
  );
}
