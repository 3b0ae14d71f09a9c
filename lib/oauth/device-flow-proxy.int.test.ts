// A deployment behind two reverse proxies (TRUST_PROXY): read once per process, so this file sets
// it before the first request.
process.env.TRUST_PROXY = "2";

import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase } from "../testing/database";
import { form, registerClient, startOAuthHarness, type OAuthHarness, type RegisteredClient } from "../testing/oauth";
import { apiAudience } from "../auth/issuer";
import { resetRateLimits } from "../http/rate-limit";

let h: OAuthHarness;
let cli: RegisteredClient;

beforeAll(async () => {
  const database = await createTestDatabase();
  h = await startOAuthHarness(database);
  cli = await registerClient(database.db, { name: "Agent CLI", type: "public", grants: ["device_code"] });
});

beforeEach(() => resetRateLimits());

/** A device authorization request; `forwardedFor` as the proxies deliver it (absent: none). */
const authorize = (forwardedFor?: string) =>
  h.fetch(`${apiAudience()}/oauth/device/authorize`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor }) },
    body: form({ client_id: cli.client.client_id, scope: "tools:read" }),
  }).then((res) => res.status);

describe("device authorization rate limit behind TRUST_PROXY=2 proxies", () => {
  it("keys on the second X-Forwarded-For address from the right, whatever the client wrote before it", async () => {
    // The client wrote the first entry; the outer proxy appended the client's address, the inner one the outer proxy's.
    for (let i = 0; i < 30; i++) expect(await authorize(`10.0.0.${i}, 192.0.2.10, 10.1.1.1`)).toBe(200);
    expect(await authorize("10.0.0.99, 192.0.2.10, 10.1.1.1")).toBe(429);
    expect(await authorize("192.0.2.10, 10.1.1.2")).toBe(429);
    // Another client behind the same proxies has its own bucket.
    expect(await authorize("10.0.0.1, 192.0.2.11, 10.1.1.1")).toBe(200);
  });

  it("keys on the socket address when X-Forwarded-For has fewer entries than trusted proxies", async () => {
    for (let i = 0; i < 30; i++) expect(await authorize()).toBe(200);
    expect(await authorize("192.0.2.20")).toBe(429);
    expect(await authorize("192.0.2.20, 10.1.1.1")).toBe(200);
  });
});
