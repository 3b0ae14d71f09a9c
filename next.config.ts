import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships WASM and must not be bundled; pg and pino are Node-only.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "pino", "bcryptjs"],
  poweredByHeader: false,
  // `npm test` type-checks the whole project (tsc --noEmit) once; a second pass here only costs build time.
  typescript: { ignoreBuildErrors: true },
  reactStrictMode: true,
  // The pages that grant access must not be framed by another site (clickjacking, RFC 9700 4.16).
  async headers() {
    const noFraming = [
      { key: "X-Frame-Options", value: "DENY" },
      { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
    ];
    return [
      { source: "/device", headers: noFraming },
      { source: "/oauth/consent", headers: noFraming },
    ];
  },
};

export default nextConfig;
