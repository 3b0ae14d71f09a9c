import type { z } from "zod";
import type { BudgetSchema, SetBudgetBodySchema } from "../api/routes/budgets-schemas";
import { apiData } from "./api-client";

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

/** How full a budget is: green below 80%, amber to 100%, red at the limit. */
export function budgetTone(usedPercent: number): "green" | "amber" | "red" {
  return usedPercent >= 100 ? "red" : usedPercent >= 80 ? "amber" : "green";
}
