// The same Hono API app, mounted in Next for `next dev` (production serves it from the custom server).
import { createApiApp, type RootApp } from "@/lib/api/app";
import { bootstrap } from "@/lib/server/bootstrap";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

let app: Promise<RootApp> | undefined;

async function handle(req: Request): Promise<Response> {
  app ??= bootstrap().then(({ database }) => createApiApp({ database }));
  return (await app).fetch(req);
}

export { handle as GET, handle as POST, handle as PUT, handle as PATCH, handle as DELETE, handle as OPTIONS };
