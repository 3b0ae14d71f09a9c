import type { ComponentType, SVGProps } from "react";
import type { MessageKey } from "@/lib/dashboard/i18n";
import { BellIcon, ConsoleIcon, ExecutionsIcon, KeyIcon, LedgerIcon, OverviewIcon, PlaygroundIcon, UsageIcon } from "@/components/ui/icons";

export interface NavItem {
  href: string;
  label: MessageKey;
  icon: ComponentType<SVGProps<SVGSVGElement>>;
}

export const navItems: readonly NavItem[] = [
  { href: "/", label: "nav.overview", icon: OverviewIcon },
  { href: "/playground", label: "nav.playground", icon: PlaygroundIcon },
  { href: "/console", label: "nav.console", icon: ConsoleIcon },
  { href: "/usage", label: "nav.usage", icon: UsageIcon },
  { href: "/ledger", label: "nav.ledger", icon: LedgerIcon },
  { href: "/executions", label: "nav.executions", icon: ExecutionsIcon },
  { href: "/keys", label: "nav.keys", icon: KeyIcon },
  { href: "/budgets", label: "nav.budgets", icon: BellIcon },
];

export function isActive(href: string, pathname: string): boolean {
  return href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);
}
