"use client";

import { useEffect, useId, useRef, useState } from "react";
import { useSession } from "next-auth/react";
import type { UserRole } from "@/lib/vocab/roles";
import { clearAccessToken } from "@/lib/dashboard/api-client";
import { useI18n } from "@/components/i18n/i18n-provider";
import { CheckIcon, ChevronDownIcon } from "@/components/ui/action-icons";

export interface ShellAccount {
  accountId: string;
  name: string;
  role: UserRole;
}

/**
 * The current account's name and, for a user in several accounts, a menu of the others (name and
 * role). Switching asks next-auth to move the session (the server checks the membership), then
 * loads the page afresh so no query of the previous account survives.
 */
export function AccountSwitcher({ accounts, currentId }: { accounts: readonly ShellAccount[]; currentId: string }) {
  const { t } = useI18n();
  const { update, status } = useSession();
  const [open, setOpen] = useState(false);
  const [switching, setSwitching] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const menuId = useId();
  const root = useRef<HTMLDivElement>(null);
  const current = accounts.find((a) => a.accountId === currentId);

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && setOpen(false);
    const onClick = (event: MouseEvent) => root.current && !root.current.contains(event.target as Node) && setOpen(false);
    window.addEventListener("keydown", onKey);
    window.addEventListener("mousedown", onClick);
    return () => {
      window.removeEventListener("keydown", onKey);
      window.removeEventListener("mousedown", onClick);
    };
  }, [open]);

  async function switchTo(accountId: string) {
    setSwitching(accountId);
    setFailed(false);
    const session = await update({ accountId });
    if (session?.user.accountId !== accountId) {
      setSwitching(null);
      setFailed(true);
      return;
    }
    clearAccessToken();
    // The path only: a filter or id in the query may belong to the previous account.
    window.location.assign(window.location.pathname);
  }

  const name = <span className="truncate text-sm font-medium text-zinc-900" data-testid="shell-account-name">{current?.name ?? "—"}</span>;
  if (accounts.length < 2) {
    return (
      <div className="min-w-0">
        <p className="text-xs text-zinc-500">{t("shell.account")}</p>
        <p className="flex min-w-0">{name}</p>
      </div>
    );
  }
  return (
    <div className="relative min-w-0" ref={root}>
      <p className="text-xs text-zinc-500">{t("shell.account")}</p>
      <button
        type="button"
        onClick={() => setOpen((o) => !o)}
        aria-expanded={open}
        aria-controls={menuId}
        aria-label={t("shell.switchAccount", { name: current?.name ?? "" })}
        disabled={status !== "authenticated"}
        className="-mx-1.5 flex w-[calc(100%+0.75rem)] min-w-0 items-center justify-between gap-2 rounded-md px-1.5 py-0.5 text-left hover:bg-zinc-100"
        data-testid="account-switcher"
      >
        {name}
        <ChevronDownIcon width={16} height={16} className="shrink-0 text-zinc-500" />
      </button>
      {open && (
        <ul id={menuId} aria-label={t("shell.accounts")} className="absolute bottom-full left-0 z-40 mb-1 w-full min-w-56 rounded-lg border border-zinc-200 bg-white p-1 shadow-lg max-lg:static max-lg:mt-1 max-lg:shadow-none">
          {accounts.map((a) => {
            const active = a.accountId === currentId;
            return (
              <li key={a.accountId}>
                <button
                  type="button"
                  disabled={active || switching !== null}
                  aria-current={active ? "true" : undefined}
                  onClick={() => void switchTo(a.accountId)}
                  className="flex w-full items-center justify-between gap-3 rounded-md px-2 py-1.5 text-left text-sm hover:bg-zinc-100 disabled:cursor-default disabled:hover:bg-transparent"
                  data-testid="account-option"
                >
                  <span className="min-w-0">
                    <span className="block truncate font-medium text-zinc-900" title={a.name}>
                      {a.name}
                    </span>
                    <span className="block text-xs text-zinc-500">{switching === a.accountId ? t("shell.switching") : t(`role.${a.role}`)}</span>
                  </span>
                  {active && <CheckIcon width={16} height={16} className="shrink-0 text-indigo-600" />}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {failed && (
        <p role="alert" className="mt-1 text-xs text-red-700">
          {t("shell.switchFailed")}
        </p>
      )}
    </div>
  );
}
