import type { NextConfig } from "next";

/**
 * Every dashboard page (docs/api.md, "Dashboard security headers"). React escapes what it renders;
 * the policy is the second line: nothing loads from another origin, no plugins, no `<base>`, no
 * framing (clickjacking, RFC 9700 4.16). Next's app router streams its payload in inline scripts,
 * so without per-request nonces `script-src` needs 'unsafe-inline'; `next dev` also needs eval.
 * No `form-action`: the OAuth consent form ends in a redirect to the client's own redirect_uri.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${process.env.NODE_ENV === "production" ? "" : " 'unsafe-eval'"}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
].join("; ");

const securityHeaders = [
  { key: "Content-Security-Policy", value: contentSecurityPolicy },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  // Dashboard URLs carry ids and filters; other sites never see them.
  { key: "Referrer-Policy", value: "same-origin" },
];

const nextConfig: NextConfig = {
  // PGlite ships WASM and must not be bundled; pg and pino are Node-only.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "pg-copy-streams", "pino", "bcryptjs"],
  poweredByHeader: false,
  // `npm test` type-checks the whole project (tsc --noEmit) once; a second pass here only costs build time.
  typescript: { ignoreBuildErrors: true },
  reactStrictMode: true,
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders }];
  },
};

export default nextConfig;
