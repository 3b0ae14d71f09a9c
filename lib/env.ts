import path from "node:path";
import { z } from "zod";

/**
 * The environment, parsed once. Every other module reads configuration from here,
 * never from `process.env` directly (tests build their own `AppConfig`).
 */
const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Address the server binds: loopback unless a deployment opens it (0.0.0.0 or ::, behind its proxy). */
  HOST: z.string().min(1).default("127.0.0.1"),
  PUBLIC_URL: z.string().url().optional(),
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().default("./.data"),
  /** Named (server-side prepared) statements on the money path; "false" behind PgBouncer < 1.21 in transaction mode. */
  DATABASE_PREPARED_STATEMENTS: z.enum(["true", "false"]).default("true"),
  /** CSV exports that may each hold a PostgreSQL connection for a COPY at once; unset: a quarter of the pool; 0: keyset batches only. */
  EXPORT_COPY_SLOTS: z.coerce.number().int().min(0).max(1000).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  AUTH_SECRET: z.string().min(32).optional(),
  REDIS_URL: z.string().optional(),
  /** Reverse proxies in front of the server that each append to X-Forwarded-For (0: clients connect directly). */
  TRUST_PROXY: z.coerce.number().int().min(0).default(0),
  SEARCH_PRICE_CREDITS: z
    .string()
    .regex(/^\d+(\.\d{1,6})?$/, "SEARCH_PRICE_CREDITS must be a non-negative decimal")
    .default("0"),
  SEED_DEMO: z.enum(["true", "false"]).default("true"),
  ALLOW_PRIVATE_UPSTREAMS: z.string().default(""),
  /** "true": every webhook endpoint may reach private and loopback addresses (else only those the operator created with --allow-private-network). */
  WEBHOOK_ALLOW_PRIVATE_NETWORK: z.enum(["true", "false"]).default("false"),
  /** Largest request body the API reads; a larger one answers 413 before it is parsed. */
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** A reservation lives its tool's timeout plus this; one still held later is a crashed Call's, released by the sweeper. */
  RESERVATION_MARGIN_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** How often each instance's sweeper runs (expired reservations, expired stored results). */
  SWEEPER_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(15),
  RESULT_URL_TTL_SECONDS: z.coerce.number().int().min(60).max(7 * 86400).default(3600),
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().default("us-east-1"),
  S3_ENDPOINT: z.string().url().optional(),
  S3_FORCE_PATH_STYLE: z.enum(["true", "false"]).default("false"),
  /** Port of a separate listener serving only `/metrics` (unset: none); bound to METRICS_HOST. */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  /** Bearer token a scrape must carry; set, it also serves `/metrics` on the public port (unset: 404 there). */
  METRICS_TOKEN: z.string().min(16, "METRICS_TOKEN must be at least 16 characters").optional(),
  /** SMTP server invitations are mailed through (smtp://user:pass@host:587, smtps://…); unset: links are only shown. */
  SMTP_URL: z.string().regex(/^smtps?:\/\//, "SMTP_URL must start with smtp:// or smtps://").optional(),
  /** The From address of Tollgate's mail (default: tollgate@<PUBLIC_URL's host>). */
  MAIL_FROM: z.string().min(3).optional(),
  /**
   * "allow": a file parameter of an http tool (multipart part, raw body) may be an https URL, which
   * a Call fetches through the outbound guard (public addresses only, no redirects, within the
   * 10 MiB a Call's files may total); "deny" (default): files are sent inline only (base64, data: URI).
   */
  OUTBOUND_FILE_URLS: z.enum(["allow", "deny"]).default("deny"),
  /** Ed25519 private key (PKCS#8 PEM) that signs the audit digests; unset: AUDIT_DIGEST_KEY_FILE, else a key generated in DATA_DIR. */
  AUDIT_DIGEST_KEY: z.string().min(1).optional(),
  /** Path of that key's PEM file (the alternative to AUDIT_DIGEST_KEY). */
  AUDIT_DIGEST_KEY_FILE: z.string().min(1).optional(),
  /** Directory the signed digests are written to (default DATA_DIR/audit-digests); ignored with AUDIT_DIGEST_S3_BUCKET. */
  AUDIT_DIGEST_DIR: z.string().min(1).optional(),
  /** S3 bucket for the digests instead of a directory (the S3_REGION / S3_ENDPOINT / S3_FORCE_PATH_STYLE client). */
  AUDIT_DIGEST_S3_BUCKET: z.string().min(1).optional(),
  AUDIT_DIGEST_S3_PREFIX: z.string().default("audit-digests/"),
  /**
   * Stripe's secret or restricted key: set, owners buy credits through Stripe Checkout (docs/billing.md,
   * Buying credits); unset, payments are off. Its prefix is its mode: events of the other mode are refused.
   */
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(live|test)_\S+$/, "STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_live_…, sk_test_…, rk_live_…, rk_test_…)")
    .optional(),
  /** The signing secret of the webhook endpoint (`whsec_…`); required with STRIPE_SECRET_KEY, since only the signed webhook grants. */
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Another host for the Stripe API (a local stand-in in tests: http://127.0.0.1:12111); unset: api.stripe.com. */
  STRIPE_API_URL: z.string().url().optional(),
  /** How long a request to Stripe may take before the purchase is answered with an error (nothing is charged). */
  STRIPE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  /** The price of one credit in the currency's minor unit (cents for usd): a positive decimal, e.g. "1" or "0.25". */
  CREDIT_PRICE_MINOR: z
    .string()
    .regex(/^\d{1,12}(\.\d{1,6})?$/, "CREDIT_PRICE_MINOR must be a positive decimal (minor units per credit, at most 6 decimals)")
    .optional(),
  /** ISO 4217 code of the currency credits are sold in, as Stripe writes it (lowercase). */
  BILLING_CURRENCY: z
    .string()
    .regex(/^[a-zA-Z]{3}$/, "BILLING_CURRENCY must be a three-letter ISO 4217 code")
    .default("usd")
    .transform((v) => v.toLowerCase()),
  /** Fewest and most credits one purchase may buy. */
  CREDIT_PURCHASE_MIN: z.string().regex(/^\d{1,12}(\.\d{1,6})?$/, "CREDIT_PURCHASE_MIN must be a positive number of credits").default("1"),
  CREDIT_PURCHASE_MAX: z.string().regex(/^\d{1,12}(\.\d{1,6})?$/, "CREDIT_PURCHASE_MAX must be a positive number of credits").default("1000000"),
  /** Packs offered beside a free amount, as credits: "100,500,2000" (empty: none). */
  CREDIT_PACKS: z.string().default(""),
});

export type Env = z.infer<typeof EnvSchema>;

let cached: Env | undefined;

export function env(): Env {
  if (!cached) {
    const parsed = EnvSchema.safeParse(process.env);
    if (!parsed.success) {
      const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
      throw new Error(`Invalid environment:\n${lines.join("\n")}`);
    }
    cached = parsed.data;
  }
  return cached;
}

/**
 * The log level, read on its own when the logger module loads (before a test file or the CLI has
 * set the rest of the environment, which `env()` would freeze): a typo is still a clear error.
 */
export function logLevel(): Env["LOG_LEVEL"] {
  const parsed = EnvSchema.pick({ NODE_ENV: true, LOG_LEVEL: true }).safeParse(process.env);
  if (!parsed.success) throw new Error(`Invalid environment:\n${parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n")}`);
  // Tests are silent unless they ask for a level.
  return process.env.LOG_LEVEL === undefined && parsed.data.NODE_ENV === "test" ? "silent" : parsed.data.LOG_LEVEL;
}

export function dataDir(): string {
  return path.resolve(env().DATA_DIR);
}

export function publicUrl(): string {
  const e = env();
  return (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, "");
}

/** A provider's credential, named by its manifest (`auth.env`); never stored in the database. */
export function providerSecret(name: string): string | undefined {
  return process.env[name];
}

/**
 * Whether Calls may fetch file parameters from https URLs, read at each use (not frozen by `env()`)
 * so that an operator's change and the tests' take effect without a restart of the module.
 */
export function outboundFileUrlsAllowed(): boolean {
  const parsed = EnvSchema.pick({ OUTBOUND_FILE_URLS: true }).safeParse(process.env);
  if (!parsed.success) throw new Error(`Invalid environment:\n  OUTBOUND_FILE_URLS: ${parsed.error.issues[0]?.message}`);
  return parsed.data.OUTBOUND_FILE_URLS === "allow";
}

/** Providers (ids) allowed to reach private and loopback addresses, beside their manifest flag. */
export function privateUpstreamAllowList(): Set<string> {
  return new Set(
    env()
      .ALLOW_PRIVATE_UPSTREAMS.split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

export interface AuditDigestConfig {
  /** PEM text of the signing key, when given in the environment. */
  key?: string;
  keyFile: string;
  /** The key file is Tollgate's own, generated on first use (neither variable set). */
  generatedKey: boolean;
  store: { kind: "dir"; dir: string } | { kind: "s3"; bucket: string; prefix: string };
}

/**
 * Where the audit digests' key and store are (lib/audit/digests.ts), read at each use like
 * OUTBOUND_FILE_URLS, so the CLI's admin channel and the tests see the current settings.
 */
export function auditDigestConfig(): AuditDigestConfig {
  const parsed = EnvSchema.pick({
    DATA_DIR: true,
    AUDIT_DIGEST_KEY: true,
    AUDIT_DIGEST_KEY_FILE: true,
    AUDIT_DIGEST_DIR: true,
    AUDIT_DIGEST_S3_BUCKET: true,
    AUDIT_DIGEST_S3_PREFIX: true,
  }).safeParse(process.env);
  if (!parsed.success) throw new Error(`Invalid environment:\n${parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n")}`);
  const e = parsed.data;
  if (e.AUDIT_DIGEST_KEY && e.AUDIT_DIGEST_KEY_FILE) throw new Error("Invalid environment:\n  set AUDIT_DIGEST_KEY or AUDIT_DIGEST_KEY_FILE, not both");
  const data = path.resolve(e.DATA_DIR);
  return {
    // A PEM in one line (\n escaped), as some secret stores hand it over, reads the same.
    key: e.AUDIT_DIGEST_KEY?.replace(/\\n/g, "\n"),
    keyFile: path.resolve(e.AUDIT_DIGEST_KEY_FILE ?? path.join(data, "audit-digest-key.pem")),
    generatedKey: !e.AUDIT_DIGEST_KEY && !e.AUDIT_DIGEST_KEY_FILE,
    store: e.AUDIT_DIGEST_S3_BUCKET
      ? { kind: "s3", bucket: e.AUDIT_DIGEST_S3_BUCKET, prefix: e.AUDIT_DIGEST_S3_PREFIX }
      : { kind: "dir", dir: path.resolve(e.AUDIT_DIGEST_DIR ?? path.join(data, "audit-digests")) },
  };
}

/** The S3 client settings the result store uses, read at each use. */
export function s3ClientConfig(): { region: string; endpoint?: string; forcePathStyle: boolean } {
  const parsed = EnvSchema.pick({ S3_REGION: true, S3_ENDPOINT: true, S3_FORCE_PATH_STYLE: true }).safeParse(process.env);
  if (!parsed.success) throw new Error(`Invalid environment:\n${parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n")}`);
  return { region: parsed.data.S3_REGION, endpoint: parsed.data.S3_ENDPOINT, forcePathStyle: parsed.data.S3_FORCE_PATH_STYLE === "true" };
}

export interface PaymentSettings {
  secretKey: string;
  /** The key's mode (`sk_live_`/`rk_live_`): only events of the same mode are applied. */
  livemode: boolean;
  webhookSecret: string;
  /** STRIPE_API_URL taken apart for the SDK's constructor (host, port, protocol). */
  api?: { host: string; port: number; protocol: "http" | "https" };
  timeoutMs: number;
  priceMinor: string;
  currency: string;
  minCredits: string;
  maxCredits: string;
  packs: string[];
}

/**
 * Payments through Stripe (lib/payments/payment-config.ts checks the amounts): undefined while
 * STRIPE_SECRET_KEY is unset. Read at each use like OUTBOUND_FILE_URLS, so the tests' settings and
 * the CLI's take effect without a restart of the module.
 */
export function paymentSettings(): PaymentSettings | undefined {
  const parsed = EnvSchema.pick({
    STRIPE_SECRET_KEY: true,
    STRIPE_WEBHOOK_SECRET: true,
    STRIPE_API_URL: true,
    STRIPE_TIMEOUT_MS: true,
    CREDIT_PRICE_MINOR: true,
    BILLING_CURRENCY: true,
    CREDIT_PURCHASE_MIN: true,
    CREDIT_PURCHASE_MAX: true,
    CREDIT_PACKS: true,
  }).safeParse(process.env);
  if (!parsed.success) throw new Error(`Invalid environment:\n${parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n")}`);
  const e = parsed.data;
  if (!e.STRIPE_SECRET_KEY) return undefined;
  const missing = [
    !e.STRIPE_WEBHOOK_SECRET && "STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY: credits are granted only from Stripe's signed webhook",
    !e.CREDIT_PRICE_MINOR && "CREDIT_PRICE_MINOR is required with STRIPE_SECRET_KEY: the price of one credit in the currency's minor unit",
  ].filter((m): m is string => typeof m === "string");
  if (missing.length > 0) throw new Error(`Invalid environment:\n${missing.map((m) => `  ${m}`).join("\n")}`);
  let api: PaymentSettings["api"];
  if (e.STRIPE_API_URL) {
    const url = new URL(e.STRIPE_API_URL);
    const protocol = url.protocol === "http:" ? "http" : "https";
    api = { host: url.hostname, port: url.port ? Number(url.port) : protocol === "http" ? 80 : 443, protocol };
  }
  return {
    secretKey: e.STRIPE_SECRET_KEY,
    livemode: /^(sk|rk)_live_/.test(e.STRIPE_SECRET_KEY),
    webhookSecret: e.STRIPE_WEBHOOK_SECRET!,
    api,
    timeoutMs: e.STRIPE_TIMEOUT_MS,
    priceMinor: e.CREDIT_PRICE_MINOR!,
    currency: e.BILLING_CURRENCY,
    minCredits: e.CREDIT_PURCHASE_MIN,
    maxCredits: e.CREDIT_PURCHASE_MAX,
    packs: e.CREDIT_PACKS.split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  };
}
