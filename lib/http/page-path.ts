import type { IncomingMessage } from "node:http";

/**
 * The header in which the custom server hands a page request's path and query to Next: a server
 * component cannot read its own URL, and the dashboard's sign-in redirect needs it to bring the
 * person back to the page they opened (a `signin_url` with its query, say).
 */
export const PAGE_PATH_HEADER = "x-tollgate-page-path";

/** The custom server's side: the request's path and query, replacing any copy the client sent. */
export function stampPagePath(req: IncomingMessage): void {
  req.headers[PAGE_PATH_HEADER] = req.url ?? "/";
}

/**
 * The login page for a signed-out visit to `pagePath`: with `callbackUrl` when there is somewhere
 * to come back to. Next's own `_rsc` parameter (a client-side navigation) is not part of the page.
 * The login page checks the path again before following it.
 */
export function loginPathFor(pagePath: string | null | undefined): string {
  if (!pagePath || !pagePath.startsWith("/") || pagePath.startsWith("//") || pagePath.startsWith("/\\")) return "/login";
  // The query is kept as it came (re-encoding it would change what the page reads), less `_rsc`.
  const [pathname, query = ""] = pagePath.split(/\?(.*)/s, 2);
  const kept = query.split("&").filter((pair) => pair !== "" && !pair.startsWith("_rsc=") && pair !== "_rsc");
  const back = kept.length ? `${pathname}?${kept.join("&")}` : pathname;
  return back === "/" || back.startsWith("/login") ? "/login" : `/login?callbackUrl=${encodeURIComponent(back)}`;
}
