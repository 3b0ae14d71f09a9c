import type { z } from "zod";
import type { BalanceSchema } from "../api/routes/credits-schemas";
import { apiData } from "./api-client";

/** The `GET /api/v1/auth/credits` payload; the type comes from the API's own schema. */
export type CreditsBalance = z.infer<typeof BalanceSchema>;

export const balanceQueryKey = ["auth", "credits"] as const;

export function fetchBalance(signal?: AbortSignal): Promise<CreditsBalance> {
  return apiData<CreditsBalance>("/auth/credits", { signal });
}
