import { describe, expect, it } from "vitest";
import { loginPathFor } from "./page-path";

describe("loginPathFor", () => {
  it("brings a signed-out visitor back to the page and its query", () => {
    expect(loginPathFor("/connections/connect?provider=github&scope=repo%20read:org&for=usr_1")).toBe(
      `/login?callbackUrl=${encodeURIComponent("/connections/connect?provider=github&scope=repo%20read:org&for=usr_1")}`,
    );
  });

  it("drops Next's _rsc parameter of a client-side navigation", () => {
    expect(loginPathFor("/usage?range=7d&_rsc=1x2y")).toBe(`/login?callbackUrl=${encodeURIComponent("/usage?range=7d")}`);
  });

  it("is the plain login page for Overview, the login page itself, nothing known, or another origin", () => {
    expect(loginPathFor("/")).toBe("/login");
    expect(loginPathFor("/login?callbackUrl=%2Fusage")).toBe("/login");
    expect(loginPathFor(null)).toBe("/login");
    expect(loginPathFor("//evil.example/x")).toBe("/login");
    expect(loginPathFor("/\\evil.example")).toBe("/login");
    expect(loginPathFor("https://evil.example/")).toBe("/login");
  });
});
