import type { z } from "zod";
import type { BudgetSchema, SetBudgetBodySchema } from "../api/routes/budgets-schemas";
import { apiData } from "./api-client";
import { shortId } from "./format";
import type { Translate } from "./i18n";

/** `GET/PUT/DELETE /api/v1/auth/budgets`; types come from the API's own schemas. */
export type BudgetItem = z.infer<typeof BudgetSchema>;
export type SetBudgetBody = z.infer<typeof SetBudgetBodySchema>;

export const budgetsQueryKey = ["auth", "budgets"] as const;

export async function fetchBudgets(signal?: AbortSignal): Promise<BudgetItem[]> {
  return (await apiData<{ items: BudgetItem[] }>("/auth/budgets", { signal })).items;
}

export function saveBudget(body: SetBudgetBody): Promise<BudgetItem> {
  return apiData<BudgetItem>("/auth/budgets", { method: "PUT", body });
}

export function removeBudget(budgetId: string): Promise<{ budget_id: string; removed: true }> {
  return apiData("/auth/budgets/" + encodeURIComponent(budgetId), { method: "DELETE" });
}

/**
 * Who a budget limits, as a person names it: the whole account, the key or the OAuth client by the
 * name the API gives with it (`scope_name`); the id, shortened, for one that no longer has a name.
 */
export function budgetScopeLabel(t: Translate, b: { scope: BudgetItem["scope"]; scope_id: string | null; scope_name?: string | null }): string {
  if (b.scope === "account") return t("budgets.scopeAccount");
  const name = b.scope_name ?? shortId(b.scope_id);
  return b.scope === "api_key" ? t("budgets.scopeKeyNamed", { name }) : t("budgets.scopeClientByName", { name });
}

/** How full a budget is: green below 80%, amber to 100%, red at the limit. */
export function budgetTone(usedPercent: number): "green" | "amber" | "red" {
  return usedPercent >= 100 ? "red" : usedPercent >= 80 ? "amber" : "green";
}
