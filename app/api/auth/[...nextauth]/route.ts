// /api/auth/* — next-auth (dashboard sign-in, sign-out, session, CSRF)
import type { NextRequest } from "next/server";
import NextAuth from "next-auth";
import { buildAuthOptions } from "@/lib/dashboard-session/auth-options";

// The options need the database (secret, users): build them per request, never at build time.
export const dynamic = "force-dynamic";

interface RouteContext {
  params: Promise<{ nextauth: string[] }>;
}

async function handler(req: NextRequest, context: RouteContext): Promise<Response> {
  return NextAuth(req, context, await buildAuthOptions()) as Promise<Response>;
}

export { handler as GET, handler as POST };
