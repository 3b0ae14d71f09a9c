// GET /api/dashboard/token — a short-lived API access token for the signed-in dashboard user
import { NextResponse, type NextRequest } from "next/server";
import { getToken } from "next-auth/jwt";
import { getDatabase } from "@/lib/db";
import { getMembership } from "@/lib/accounts/members";
import { DEFAULT_SCOPE, issueAccessToken } from "@/lib/auth/jwt";
import { DomainError } from "@/lib/errors";
import { getDashboardSecret } from "@/lib/dashboard-session/auth-secret";

export const dynamic = "force-dynamic";

const TOKEN_TTL_SECONDS = 300;
const noStore = { "Cache-Control": "no-store" };

function notSignedIn(): NextResponse {
  return NextResponse.json({ status: "failure", status_code: 401, message: "Not signed in to the dashboard" }, { status: 401, headers: noStore });
}

export async function GET(req: NextRequest): Promise<NextResponse> {
  const session = await getToken({ req, secret: await getDashboardSecret() });
  if (!session?.userId) return notSignedIn();

  const { db } = await getDatabase();
  // Read the membership again rather than trusting the cookie: a removed member or a changed role
  // must not keep minting API tokens for the rest of a 7-day session.
  let member: Awaited<ReturnType<typeof getMembership>>;
  try {
    member = await getMembership(db, session.userId, session.accountId ?? "");
  } catch (err) {
    if (err instanceof DomainError && err.code === "not_found") return notSignedIn();
    throw err;
  }

  const issued = await issueAccessToken(db, {
    userId: member.userId,
    accountId: member.accountId,
    role: member.role,
    scope: DEFAULT_SCOPE,
    ttlSeconds: TOKEN_TTL_SECONDS,
  });
  return NextResponse.json(
    { access_token: issued.accessToken, token_type: "Bearer", expires_in: issued.expiresIn },
    { headers: noStore },
  );
}
