import type { ComponentType, SVGProps } from "react";
import type { MessageKey } from "@/lib/dashboard/i18n";
import { RunsIcon } from "@/components/audit/runs-icon";
import { ActivityIcon, BellIcon, CardIcon, ConsoleIcon, ExecutionsIcon, KeyIcon, LedgerIcon, LinkIcon, OverviewIcon, PlaygroundIcon, ShieldIcon, SpendIcon, StatementIcon, UsageIcon, UsersIcon } from "@/components/ui/icons";

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
  { href: "/spend", label: "nav.spend", icon: SpendIcon },
  { href: "/runs", label: "nav.runs", icon: RunsIcon },
  { href: "/ledger", label: "nav.ledger", icon: LedgerIcon },
  { href: "/statements", label: "nav.statements", icon: StatementIcon },
  { href: "/billing", label: "nav.billing", icon: CardIcon },
  { href: "/executions", label: "nav.executions", icon: ExecutionsIcon },
  { href: "/keys", label: "nav.keys", icon: KeyIcon },
  { href: "/connections", label: "nav.connections", icon: LinkIcon },
  { href: "/budgets", label: "nav.budgets", icon: BellIcon },
  { href: "/members", label: "nav.members", icon: UsersIcon },
  { href: "/activity", label: "nav.activity", icon: ActivityIcon },
  { href: "/security", label: "nav.security", icon: ShieldIcon },
];

export function isActive(href: string, pathname: string): boolean {
  return href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);
}
