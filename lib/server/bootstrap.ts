import { sql } from "drizzle-orm";
import { env, dataDir, publicUrl } from "../env";
import { getDatabase } from "../db";
import type { Database, Db } from "../db/types";
import { logger } from "../log";
import { getAuthSecret } from "../auth/app-secret";
import { seedDemoIfEmpty, syncDemoCatalog, type DemoCredentials } from "../seed/seed-demo";
import { startReservationSweeper } from "../billing/sweep-reservations";
import { startToolStatsRefresher } from "../catalog/refresh-stats";
import { analyzeChangedTables, startEmbeddedAnalyzer } from "../db/embedded-analyze";
import { startAdminChannel } from "./admin-channel";
import { startAuthListener } from "../auth/auth-listener";
import { startWebhookWorker } from "../webhooks/deliver";
import { startAuditDigests } from "../audit/digests";
import { paymentConfig } from "../payments/payment-config";
import { startPaymentReconciliation } from "../payments/reconcile-nightly";
import { startAutoTopups } from "../payments/auto-topup";

export interface Bootstrapped {
  database: Database;
  credentials?: DemoCredentials;
  stop(): void;
}

const key = Symbol.for("tollgate.bootstrap");
type G = typeof globalThis & { [key]?: Promise<Bootstrapped> };

/**
 * Everything a serving process needs before its first request, done once per process (the
 * custom server and `next dev`'s API route share it): database + migrations, run-time secrets,
 * the demo catalog and seed, the admin channel (embedded database), the reservation sweeper, the
 * tool stats refresher, the webhook delivery worker, the hourly signed audit digest and, when
 * payments are configured, the nightly payments reconciliation.
 */
export function bootstrap(): Promise<Bootstrapped> {
  const g = globalThis as G;
  g[key] ??= (async () => {
    const e = env();
    // An inconsistent payment configuration stops the start here rather than failing the first purchase.
    const payments = paymentConfig();
    const database = await getDatabase();
    const { db } = database;
    // next-auth reads these before its first request; generated secrets live in the database.
    process.env.NEXTAUTH_SECRET ??= await getAuthSecret(db);
    process.env.NEXTAUTH_URL ??= publicUrl();
    // Instances starting together on one database take turns (a transaction-scoped advisory
    // lock): otherwise each would find no account and seed its own demo account.
    const seed = await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(7201301)`);
      await syncDemoCatalog(tx);
      return e.SEED_DEMO === "true" ? seedDemoIfEmpty(tx, dataDir()) : { created: false as const };
    });
    const closeAdmin = database.kind === "pglite" ? await startAdminChannel(db, dataDir()) : undefined;
    // The embedded database has no autovacuum: its statistics are kept current here, first before the warm-up plans its reads.
    const stopAnalyzer = database.kind === "pglite" ? await startAnalyzing(db) : undefined;
    const stopSweeper = startReservationSweeper(db, e.SWEEPER_INTERVAL_SECONDS * 1000, (err) => logger.error({ err: err.message }, "reservation sweeper failed"));
    const stopStatsRefresher = startToolStatsRefresher(db, (err) => logger.error({ err: err.message }, "tool stats refresh failed"));
    // Revoked keys and disabled accounts announced by any instance or the CLI (PostgreSQL only: the embedded database has one process).
    const stopAuthListener = database.kind === "postgres" && e.DATABASE_URL ? startAuthListener(e.DATABASE_URL, db, (err) => logger.warn({ err: err.message }, "auth listener")) : undefined;
    // Webhook deliveries queued by any instance wake it at once (pg_notify); it polls for retries.
    const webhookWorker = startWebhookWorker(db, {
      listen: { kind: database.kind, url: e.DATABASE_URL },
      onError: (err) => logger.error({ err: err.message }, "webhook delivery failed"),
    });
    // One instance an hour signs every account's ledger and activity heads, with a key kept outside the database.
    const stopDigests = startAuditDigests(db, {
      written: (o) => {
        logger.info({ digests: o.digests.map((d) => d.name), location: o.location }, "audit digest written");
        if (o.foreign.length > 0) logger.warn({ files: o.foreign, location: o.location }, "audit digest store holds files this writer did not write (audit verify --digests reports them)");
      },
      error: (err) => logger.error({ err: err.message }, "audit digest failed"),
    });
    // Payments on: one instance a night matches yesterday's Stripe balance transactions to the ledger.
    const stopReconciliation = payments
      ? startPaymentReconciliation(db, payments, {
          done: (o) => logger.info(o, "payments reconciled"),
          error: (err) => logger.error({ err: err.message }, "payments reconciliation failed"),
        })
      : undefined;
    // Payments on: every instance retries top-ups Stripe has not answered and tops up accounts that fell below their threshold.
    const stopAutoTopups = payments ? startAutoTopups(db, { error: (err) => logger.error({ err: err.message }, "auto top-up sweep failed") }) : undefined;
    logger.info(payments ? { currency: payments.currency, credit_price_minor: payments.priceMinor, stripe_api: payments.api?.host ?? "api.stripe.com" } : {}, payments ? "payments through Stripe: on" : "payments through Stripe: off (STRIPE_SECRET_KEY unset)");
    return {
      database,
      credentials: "credentials" in seed ? seed.credentials : undefined,
      stop: () => {
        closeAdmin?.();
        stopAnalyzer?.();
        stopSweeper();
        stopStatsRefresher();
        stopAuthListener?.();
        void webhookWorker.stop();
        stopDigests();
        stopReconciliation?.();
        stopAutoTopups?.();
      },
    };
  })();
  return g[key];
}

/** Analyzes the embedded database's changed tables now, then every few minutes. */
async function startAnalyzing(db: Db): Promise<() => void> {
  const started = performance.now();
  const tables = await analyzeChangedTables(db);
  if (tables.length > 0) logger.info({ tables: tables.length, ms: Math.round(performance.now() - started) }, "statistics updated");
  return startEmbeddedAnalyzer(
    db,
    (changed, ms) => changed.length > 0 && logger.debug({ tables: changed.length, ms }, "statistics updated"),
    (err) => logger.error({ err: err.message }, "statistics update failed"),
  );
}
