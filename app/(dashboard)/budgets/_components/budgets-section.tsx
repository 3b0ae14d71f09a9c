import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { BudgetsPanel } from "./budgets-panel";

/** The Budgets part of "Budgets & alerts": every role sees the budgets; only the owner changes them (the API enforces it too). */
export async function BudgetsSection() {
  const user = await requireDashboardUser();
  return <BudgetsPanel canEdit={user.role === "owner"} />;
}
