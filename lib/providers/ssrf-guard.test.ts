import { describe, expect, it } from "vitest";
import { assertPublicHost, guardedLookup, PrivateAddressError, refusePrivateLiteral } from "./ssrf-guard";
import { classifyResponse } from "./http-adapter";

// Which addresses are refused: lib/providers/public-address.test.ts.
describe("refusePrivateLiteral (hosts Node connects to without a DNS lookup)", () => {
  it.each(["http://127.0.0.1:8080/x", "http://[::1]/", "http://2130706433/", "http://127.1/", "http://[::ffff:127.0.0.1]/", "http://169.254.169.254/latest/meta-data"])("refuses %s", (url) => {
    expect(() => refusePrivateLiteral(new URL(url))).toThrow(PrivateAddressError);
  });

  it("lets public literals and host names through (names are checked at lookup)", () => {
    expect(() => refusePrivateLiteral(new URL("http://93.184.216.34/"))).not.toThrow();
    expect(() => refusePrivateLiteral(new URL("http://localhost/"))).not.toThrow();
  });
});

describe("assertPublicHost", () => {
  it("resolves a host name and refuses a loopback answer", async () => {
    await expect(assertPublicHost(new URL("http://localhost:1/"))).rejects.toThrow(PrivateAddressError);
    await expect(assertPublicHost(new URL("http://127.0.0.1:1/"))).rejects.toThrow(PrivateAddressError);
  });
});

describe("guardedLookup", () => {
  it("fails the lookup when the name resolves to a private address", async () => {
    const err = await new Promise<Error | null>((resolve) => guardedLookup("localhost", {}, (e) => resolve(e)));
    expect(err).toBeInstanceOf(PrivateAddressError);
  });
});

describe("classifyResponse", () => {
  const body = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v));
  it.each([
    [429, "x", "provider.rate_limited"],
    [401, "x", "provider.auth_or_permission"],
    [403, "x", "provider.auth_or_permission"],
    [400, "x", "provider.http_error"],
    [404, "x", "provider.http_error"],
    [500, "x", "provider.http_error"],
    [503, "x", "provider.http_error"],
    [302, "x", "provider.http_error"],
    [200, "", "result.empty"],
    [200, "{}", "result.empty"],
    [200, "[]", "result.empty"],
    [200, "null", "result.empty"],
    [200, "<html>", "transport.execution_failed"],
    [200, { a: 1 }, "result.valid"],
    [200, { data: [1], errors: [{ m: "x" }] }, "result.partial_success"],
    [200, { data: [1], partial: true }, "result.partial_success"],
  ] as const)("HTTP %s with %j → %s", (status, payload, reason) => {
    expect(classifyResponse(status, body(payload)).reasonCode).toBe(reason);
  });

  it("applies result_path, and an absent path is an empty result", () => {
    expect(classifyResponse(200, body({ data: { x: 1 } }), "data")).toMatchObject({ reasonCode: "result.valid", data: { x: 1 } });
    expect(classifyResponse(200, body({ other: 1 }), "data").reasonCode).toBe("result.empty");
  });
});
