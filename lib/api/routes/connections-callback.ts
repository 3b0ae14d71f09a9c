// GET /api/v1/connections/callback — where a provider returns the browser after its consent page (extension)
import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { ApiApp } from "../../http/context";
import { clientIp } from "../../http/rate-limit";
import { users } from "../../db/schema";
import { browserSessionUser } from "../../dashboard-session/browser-session";
import { completeOAuthConnect, redirectUri } from "../../connections/connections";
import { CONNECTIONS_EXTENSION } from "./connections-schemas";

const CallbackQuery = z
  .object({
    code: z.string().max(4096).optional(),
    state: z.string().max(512).optional(),
    error: z.string().max(512).optional(),
    error_description: z.string().max(2048).optional(),
    iss: z.string().max(2048).optional(),
  })
  .openapi("ConnectionCallbackQuery");

const route = createRoute({
  method: "get",
  path: "/connections/callback",
  operationId: "connectionCallback",
  tags: ["Connections"],
  summary: "The redirect URI of every connect flow: exchanges the provider's code for tokens (PKCE) and returns the browser to the dashboard",
  description: `${CONNECTIONS_EXTENSION} The state must be unused, unexpired and the browser signed in to the dashboard as the user who started the flow; a browser without a session is sent to sign in and back here.`,
  request: { query: CallbackQuery },
  responses: {
    302: { description: "To the dashboard page the flow started from (`connected=<provider>` or `connect_error=<message>`), or to the login page" },
    400: { description: "An unknown, used or expired state (HTML page)", content: { "text/html": { schema: z.string() } } },
    403: { description: "The browser is signed in as another user than the one who started the flow (HTML page)", content: { "text/html": { schema: z.string() } } },
  },
});

const escape = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function page(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)} · Tollgate</title></head><body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5"><h1 style="font-size:1.25rem">${escape(title)}</h1><p>${escape(message)}</p><p><a href="/connections">Connections</a></p></body></html>`;
}

/** `path` with `name=value` added to its query. */
function withParam(path: string, name: string, value: string): string {
  const url = new URL(path, "http://x");
  url.searchParams.set(name, value);
  return `${url.pathname}${url.search}${url.hash}`;
}

export function registerConnectionsCallback(app: ApiApp) {
  app.openapi(route, async (c) => {
    c.header("Cache-Control", "no-store");
    c.header("Referrer-Policy", "no-referrer");
    const db = c.env.db;
    const search = new URL(c.req.url).search;
    const browserUser = await browserSessionUser(db, c.req.header("cookie"));
    if (!browserUser) {
      // Signed out (the link was opened in another browser): sign in, then come back with the same code and state.
      return c.redirect(`/login?callbackUrl=${encodeURIComponent(`/api/v1/connections/callback${search}`)}`, 302);
    }
    const outcome = await completeOAuthConnect(db, {
      // The URL as registered (PUBLIC_URL), whatever host the request came through: it is the redirect_uri sent with the code.
      callbackUrl: new URL(`${redirectUri()}${search}`),
      browserUser,
      actor: async (_accountId, userId) => {
        const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId));
        return { type: "user", id: userId, label: user?.email ?? null, ipAddress: clientIp(c), userAgent: c.req.header("user-agent") ?? null };
      },
    });
    if (outcome.ok) return c.redirect(withParam(outcome.returnTo ?? "/connections", "connected", outcome.providerId), 302);
    if (outcome.returnTo && outcome.status !== 403) return c.redirect(withParam(outcome.returnTo, "connect_error", outcome.message), 302);
    return c.html(page(outcome.status === 403 ? "Connection refused" : "Connection not completed", outcome.message), outcome.status === 403 ? 403 : 400);
  });
}
