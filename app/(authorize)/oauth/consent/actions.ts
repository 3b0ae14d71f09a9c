"use server";

import { redirect } from "next/navigation";
import { getDatabase } from "@/lib/db";
import { requireAuthorizingUser } from "@/lib/dashboard-session/authorize-session";
import { approveAuthorizationRequest, consentPagePath, denyAuthorizationRequest, validateAuthorizationRequest } from "@/lib/oauth/authorize";
import { authorizationParams } from "./params";
import type { ConsentDecision } from "./consent-form";

/**
 * The consent decision: the request is checked again (the form is as untrusted as the URL), then
 * the browser goes back to the client with a code, or with `access_denied` (the answer names the
 * URL; ConsentForm navigates there).
 */
export async function decideConsent(_previous: ConsentDecision | null, formData: FormData): Promise<ConsentDecision> {
  const params = authorizationParams(Object.fromEntries([...formData.entries()].filter((e): e is [string, string] => typeof e[1] === "string")));
  const user = await requireAuthorizingUser(consentPagePath(params));
  const { db } = await getDatabase();
  const check = await validateAuthorizationRequest(db, params);
  if (!check.ok) redirect("redirectTo" in check ? check.redirectTo : consentPagePath(params));
  if (formData.get("decision") !== "approve" || formData.get("account_id") !== user.accountId) return { redirectTo: denyAuthorizationRequest(check.request) };
  return { redirectTo: await approveAuthorizationRequest(db, { request: check.request, userId: user.id, accountId: user.accountId }) };
}
