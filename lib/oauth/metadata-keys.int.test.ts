import { beforeAll, describe, expect, it, vi } from "vitest";
import { decodeProtectedHeader } from "jose";
import { createTestDatabase } from "../testing/database";
import { bearer, seedAccount } from "../testing/fixtures";
import { startOAuthHarness, type OAuthHarness } from "../testing/oauth";
import { apiAudience } from "../auth/issuer";
import { issueAccessToken, verifyAccessToken } from "../auth/jwt";
import { JWKS_MAX_AGE_SECONDS, PUBLISH_BEFORE_SIGNING_MS, createSigningKey } from "../auth/signing-keys";
import { runCommand } from "../cli/commands";
import type { Database } from "../db/types";

let database: Database;
let h: OAuthHarness;
let user: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  database = await createTestDatabase();
  h = await startOAuthHarness(database);
  user = await seedAccount(database.db);
});

const issue = async () => (await issueAccessToken(database.db, { userId: user.userId, accountId: user.accountId, role: "owner", scope: "usage:read", ttlSeconds: 600 })).accessToken;
const kidOf = (token: string) => decodeProtectedHeader(token).kid;
const verifyStatus = async (token: string) => (await h.fetch(`${apiAudience()}/auth/verify-token`, { method: "POST", headers: bearer(token) })).status;
async function jwksKids(): Promise<string[]> {
  const res = await h.fetch(h.as.jwks_uri!);
  return ((await res.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
}

describe("authorization server metadata (RFC 8414)", () => {
  it("is served at /.well-known/oauth-authorization-server with every endpoint and capability", () => {
    // startOAuthHarness discovered it with oauth4webapi, which checked the issuer.
    expect(h.as).toMatchObject({
      issuer: "http://tollgate.test",
      authorization_endpoint: "http://tollgate.test/api/v1/oauth/authorize",
      token_endpoint: "http://tollgate.test/api/v1/oauth/token",
      device_authorization_endpoint: "http://tollgate.test/api/v1/oauth/device/authorize",
      introspection_endpoint: "http://tollgate.test/api/v1/oauth/introspect",
      revocation_endpoint: "http://tollgate.test/api/v1/oauth/revoke",
      jwks_uri: "http://tollgate.test/.well-known/jwks.json",
      code_challenge_methods_supported: ["S256"],
      response_types_supported: ["code"],
      authorization_response_iss_parameter_supported: true,
    });
    expect(h.as.grant_types_supported).toEqual([
      "authorization_code",
      "refresh_token",
      "urn:ietf:params:oauth:grant-type:device_code",
      "urn:ietf:params:oauth:grant-type:token-exchange",
    ]);
    expect(h.as.scopes_supported).toEqual(["tools:read", "tools:execute", "usage:read", "ledger:read", "account:manage", "connections:manage"]);
  });

  it("publishes the OAuth operations with form-encoded bodies in the OpenAPI description", async () => {
    const doc = (await (await h.fetch(`${apiAudience()}/openapi.json`)).json()) as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>> };
    for (const path of ["/oauth/device/authorize", "/oauth/token", "/oauth/introspect", "/oauth/revoke"]) {
      expect(Object.keys(doc.paths[path].post.requestBody!.content), path).toEqual(["application/x-www-form-urlencoded"]);
    }
    expect(doc.paths["/oauth/authorize"].get).toBeDefined();
    expect(doc.paths["/.well-known/oauth-authorization-server"].get).toBeDefined();
  });
});

describe("JWKS", () => {
  it("is the same document with the same caching at /.well-known/jwks.json and /api/v1/oauth/jwks", async () => {
    const wellKnown = await h.fetch(h.as.jwks_uri!);
    const api = await h.fetch(`${apiAudience()}/oauth/jwks`);
    expect(wellKnown.status).toBe(200);
    expect(api.status).toBe(200);
    expect(wellKnown.headers.get("cache-control")).toBe(`public, max-age=${JWKS_MAX_AGE_SECONDS}`);
    expect(api.headers.get("cache-control")).toBe(wellKnown.headers.get("cache-control"));
    expect(api.headers.get("content-type")).toBe(wellKnown.headers.get("content-type"));
    expect(await api.json()).toEqual(await wellKnown.json());
  });
});

/** Runs `fn` with the clock `ms` ahead, as if that much time had passed since the keys were created. */
async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + ms });
  try {
    return await fn();
  } finally {
    vi.useRealTimers();
  }
}

describe("signing-key rotation", () => {
  it("publishes a new key at once, signs with it only once every cached JWKS can list it, and keeps live tokens valid", async () => {
    const before = await issue();
    const oldKid = kidOf(before);
    const newKid = await createSigningKey(database.db);
    expect(newKid).not.toBe(oldKid);
    expect(await jwksKids()).toEqual(expect.arrayContaining([oldKid, newKid]));
    expect(kidOf(await issue())).toBe(oldKid);
    expect(await later(PUBLISH_BEFORE_SIGNING_MS - 5_000, async () => kidOf(await issue()))).toBe(oldKid);

    const after = await later(PUBLISH_BEFORE_SIGNING_MS + 5_000, async () => {
      const token = await issue();
      expect(kidOf(token)).toBe(newKid);
      expect((await verifyAccessToken(database.db, before)).sub).toBe(user.userId);
      expect(await verifyStatus(before)).toBe(200);
      expect(await verifyStatus(token)).toBe(200);
      return token;
    });
    expect(await verifyStatus(after)).toBe(200);
  });

  it("`keys rotate-signing` (CLI) adds a key that is published at once and signs after the publication delay", async () => {
    const before = await issue();
    const { kid } = (await runCommand(database.db, ["keys", "rotate-signing"])) as { kid: string };
    expect(await jwksKids()).toContain(kid);
    expect(kidOf(await issue())).not.toBe(kid);
    expect(await later(PUBLISH_BEFORE_SIGNING_MS + 5_000, async () => kidOf(await issue()))).toBe(kid);
    expect(await verifyStatus(before)).toBe(200);
  });
});
