import type { z } from "zod";
import type { CreditExpirationsSchema } from "../api/routes/credits-schemas";
import { apiData } from "./api-client";

/** The `GET /api/v1/auth/credits/expirations` payload; the type comes from the API's own schema. */
export type CreditExpirations = z.infer<typeof CreditExpirationsSchema>;

export const expirationsQueryKey = ["auth", "credits", "expirations"] as const;

export function fetchExpirations(signal?: AbortSignal): Promise<CreditExpirations> {
  return apiData<CreditExpirations>("/auth/credits/expirations", { signal });
}
