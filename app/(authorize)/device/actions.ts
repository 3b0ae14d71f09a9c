"use server";

import { redirect } from "next/navigation";
import { getDatabase } from "@/lib/db";
import { requireAuthorizingUser } from "@/lib/dashboard-session/authorize-session";
import { decideDeviceAuthorization } from "@/lib/oauth/device";
import { UserCodeThrottledError } from "@/lib/oauth/user-code-throttle";

/** The signed-in user approves or denies a user code for their own account. */
export async function decideDevice(formData: FormData): Promise<void> {
  const userCode = String(formData.get("user_code") ?? "");
  const approve = formData.get("decision") === "approve";
  const user = await requireAuthorizingUser(`/device?user_code=${encodeURIComponent(userCode)}`);
  // Only the user's own account can be chosen; anything else in the form is a forgery.
  if (formData.get("account_id") !== user.accountId) redirect("/device?done=stale");
  const { db } = await getDatabase();
  let decided: boolean;
  try {
    decided = await decideDeviceAuthorization(db, { userCode, userId: user.id, accountId: user.accountId, approve });
  } catch (err) {
    if (!(err instanceof UserCodeThrottledError)) throw err;
    // The page says how long the wait is; it refuses the code again until the window passes.
    redirect(`/device?user_code=${encodeURIComponent(userCode)}`);
  }
  redirect(`/device?done=${decided ? (approve ? "approved" : "denied") : "stale"}`);
}
