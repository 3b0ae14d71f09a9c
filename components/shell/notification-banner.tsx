"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { BellIcon } from "@/components/ui/icons";
import { fetchNotifications, notificationsQueryKey } from "@/lib/dashboard/alerts";

const PAGE = "/budgets";

/** Says that a threshold was crossed (unread notifications) on every page but the one that lists them. */
export function NotificationBanner() {
  const { t } = useI18n();
  const pathname = usePathname();
  const query = useQuery({
    queryKey: [...notificationsQueryKey, "unread"],
    queryFn: ({ signal }) => fetchNotifications(1, signal),
    refetchInterval: 60_000,
    // A failure here must not disturb the page: the banner simply stays away.
    throwOnError: false,
  });
  const unread = query.data?.unread_count ?? 0;
  if (unread === 0 || pathname === PAGE) return null;
  return (
    <div role="status" data-testid="unread-banner" className="mb-6 flex flex-col gap-2 rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900 sm:flex-row sm:items-center sm:justify-between">
      <p className="flex items-start gap-2">
        <BellIcon className="mt-0.5 shrink-0 text-amber-600" width={18} height={18} />
        {t("banner.unread", { count: unread })}
      </p>
      <Link href={`${PAGE}#notifications`} className="shrink-0 font-medium text-amber-900 underline underline-offset-2 hover:text-amber-700">
        {t("banner.view")}
      </Link>
    </div>
  );
}
