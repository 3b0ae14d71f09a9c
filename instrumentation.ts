// Next's start hook: under `next dev` the serving process bootstraps at start (migrations, secrets,
// demo seed, admin channel, sweeper) instead of on its first API request, so signing in and the CLI
// work at once. The production server has already bootstrapped; this finds it done.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build") return;
  const { bootstrap } = await import("./lib/server/bootstrap");
  await bootstrap();
}
