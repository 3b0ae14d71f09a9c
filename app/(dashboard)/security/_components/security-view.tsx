import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import type { DashboardUser } from "@/lib/dashboard-session/session";
import { PageHeader } from "@/components/ui/page-header";
import { TwoFactorPanel } from "./two-factor-panel";
import { RequireTwoFactor } from "./require-two-factor";

/**
 * The Security page's body. The dashboard layout shows it in place of any page while the account
 * requires two-factor sign-in and the user has none (`enrolmentRequired`): enrolment comes first.
 */
export async function SecurityView({ user, enrolmentRequired = false }: { user: DashboardUser; enrolmentRequired?: boolean }) {
  const t = translator(await getRequestLocale());
  return (
    <>
      <PageHeader title={t("twoFactor.pageTitle")} description={t("twoFactor.pageSubtitle")} />
      <div className="space-y-10">
        <TwoFactorPanel email={user.email} enrolmentRequired={enrolmentRequired} />
        {!enrolmentRequired && <RequireTwoFactor canEdit={user.role === "owner"} />}
      </div>
    </>
  );
}
