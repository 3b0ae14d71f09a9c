"use client";

import { useI18n } from "@/components/i18n/i18n-provider";
import { Badge } from "@/components/ui/badge";
import type { CapabilityResult } from "@/lib/dashboard/discover";

/**
 * What a Call of a Discover or Inspect result needs beyond credits: the caller's own account at its
 * provider, or a region the account is not in. Nothing when it needs neither.
 */
export function ToolAccessBadges({ tool, className = "" }: { tool: Pick<CapabilityResult, "requires_connection" | "region_restricted">; className?: string }) {
  const { t } = useI18n();
  const { requires_connection: requiresConnection, region_restricted: regionRestricted } = tool;
  if (!requiresConnection && !regionRestricted) return null;
  return (
    // A span: it also sits inside the Console's candidate buttons, which take phrasing content only.
    <span className={`flex min-w-0 flex-wrap gap-1.5 ${className}`} data-testid="tool-access">
      {requiresConnection && (
        <Badge tone="amber" title={t("tool.needsConnectionHint", { provider: requiresConnection.provider_name })}>
          {t("tool.needsConnection", { provider: requiresConnection.provider_name })}
        </Badge>
      )}
      {regionRestricted && (
        <Badge tone="red" title={t("tool.regionRestrictedHint")}>
          {t("tool.regionRestricted")}
        </Badge>
      )}
    </span>
  );
}
