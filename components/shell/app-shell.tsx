"use client";

import { Suspense, useEffect, useId, useState, type ReactNode } from "react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";
import type { UserRole } from "@/lib/vocab/roles";
import { clearAccessToken } from "@/lib/dashboard/api-client";
import { useI18n } from "@/components/i18n/i18n-provider";
import { LanguageSwitcher } from "@/components/i18n/language-switcher";
import { Logo } from "@/components/ui/logo";
import { CloseIcon, MenuIcon, SignOutIcon } from "@/components/ui/icons";
import { AccountSwitcher, type ShellAccount } from "./account-switcher";
import { isActive, navItems } from "./nav-items";
import { NotificationBanner } from "./notification-banner";
import { AccountInViewBanner } from "@/components/audit/account-in-view";

export interface ShellUser {
  email: string;
  role: UserRole;
  accountId: string;
  /** Every account the user belongs to (the current one included). */
  accounts: readonly ShellAccount[];
}

function NavLinks({ pathname, support, onNavigate }: { pathname: string; support: boolean; onNavigate?: () => void }) {
  const { t } = useI18n();
  return (
    <ul className="space-y-0.5">
      {navItems.map(({ href, label, icon: Icon }) => {
        const active = isActive(href, pathname);
        return (
          <li key={href}>
            <Link
              href={href}
              // Every dashboard page is dynamic: prefetching them all rendered each one on the server at every page load.
              prefetch={false}
              onClick={onNavigate}
              aria-current={active ? "page" : undefined}
              className={`group flex items-center gap-3 rounded-lg px-3 py-2 text-sm font-medium transition-colors ${
                active ? "bg-indigo-50 text-indigo-700" : "text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900"
              }`}
            >
              <Icon className={active ? "text-indigo-600" : "text-zinc-400 group-hover:text-zinc-600"} />
              {/* Support's home page is its desk: the lookup and the review queue. */}
              {t(support && href === "/" ? "support.title" : label)}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

function UserPanel({ user }: { user: ShellUser }) {
  const { t } = useI18n();
  const [signingOut, setSigningOut] = useState(false);

  async function handleSignOut() {
    setSigningOut(true);
    clearAccessToken();
    await signOut({ redirect: false });
    // A full load drops every cached query of the signed-out user.
    window.location.assign("/login");
  }

  return (
    <div className="space-y-3">
      <div className="min-w-0">
        <p className="text-xs text-zinc-500">{t("shell.signedInAs")}</p>
        <p className="truncate text-sm font-medium text-zinc-900" title={user.email} data-testid="shell-user-email">
          {user.email}
        </p>
        <span className="mt-1 inline-flex items-center rounded-md bg-zinc-100 px-1.5 py-0.5 text-xs font-medium text-zinc-600">
          {t(`role.${user.role}`)}
        </span>
      </div>
      <AccountSwitcher accounts={user.accounts} currentId={user.accountId} />
      <div className="flex items-center justify-between gap-2">
        <LanguageSwitcher />
        <button
          type="button"
          onClick={handleSignOut}
          disabled={signingOut}
          className="inline-flex items-center gap-1.5 rounded-lg px-2 py-1.5 text-sm font-medium text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 disabled:opacity-50"
        >
          <SignOutIcon width={18} height={18} />
          {t("shell.signOut")}
        </button>
      </div>
    </div>
  );
}

/**
 * The signed-in frame: a fixed sidebar from the `lg` breakpoint, and below it a top bar whose
 * menu button opens the same navigation as a panel.
 */
export function AppShell({ user, children }: { user: ShellUser; children: ReactNode }) {
  const { t } = useI18n();
  const pathname = usePathname();
  const [menuOpen, setMenuOpen] = useState(false);
  const menuId = useId();

  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") setMenuOpen(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [menuOpen]);

  return (
    <div className="min-h-dvh">
      <aside className="fixed inset-y-0 left-0 z-30 hidden w-64 flex-col border-r border-zinc-200 bg-white lg:flex print:hidden">
        <div className="flex h-16 items-center px-6">
          <Link href="/" aria-label={t("nav.overview")}>
            <Logo />
          </Link>
        </div>
        <nav aria-label={t("nav.label")} className="flex-1 overflow-y-auto px-3 py-4">
          <NavLinks pathname={pathname} support={user.role === "support"} />
        </nav>
        <div className="border-t border-zinc-200 px-5 py-4">
          <UserPanel user={user} />
        </div>
      </aside>

      <header className="sticky top-0 z-30 border-b border-zinc-200 bg-white/95 backdrop-blur lg:hidden print:hidden">
        <div className="flex h-14 items-center justify-between px-4">
          <Link href="/" aria-label={t("nav.overview")}>
            <Logo />
          </Link>
          <button
            type="button"
            onClick={() => setMenuOpen((open) => !open)}
            aria-expanded={menuOpen}
            aria-controls={menuId}
            aria-label={menuOpen ? t("shell.closeMenu") : t("shell.openMenu")}
            className="-mr-2 rounded-lg p-2 text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900"
          >
            {menuOpen ? <CloseIcon /> : <MenuIcon />}
          </button>
        </div>
        {menuOpen && (
          <div id={menuId} className="max-h-[calc(100dvh-3.5rem)] overflow-y-auto border-t border-zinc-200 px-3 pb-4 pt-3 shadow-sm">
            <nav aria-label={t("nav.label")}>
              <NavLinks pathname={pathname} support={user.role === "support"} onNavigate={() => setMenuOpen(false)} />
            </nav>
            <div className="mt-3 border-t border-zinc-200 px-2 pt-4">
              <UserPanel user={user} />
            </div>
          </div>
        )}
      </header>

      <main className="lg:pl-64 print:pl-0">
        <div className="mx-auto w-full max-w-6xl px-4 py-6 sm:px-6 sm:py-8 lg:px-10 lg:py-10 print:max-w-none print:p-0">
          <div className="print:hidden">
            <NotificationBanner />
            {user.role === "support" && (
              <Suspense>
                <AccountInViewBanner />
              </Suspense>
            )}
          </div>
          {children}
        </div>
      </main>
    </div>
  );
}
