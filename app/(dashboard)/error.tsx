"use client";

import { useI18n } from "@/components/i18n/i18n-provider";
import { ErrorState } from "@/components/ui/error-state";

/** Anything a dashboard page throws while rendering ends here, inside the shell. */
export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const { t } = useI18n();
  return <ErrorState title={t("common.errorTitle")} message={error.digest ? `${error.message} (${error.digest})` : error.message} retryLabel={t("common.retry")} onRetry={reset} />;
}
