import { describe, expect, it } from "vitest";
import { connectPageHref, currentReturnTo, mayShare, parseConnectRequest, safeReturnTo, signinRequiredOf, withConnected } from "./connections";

describe("the connect page's link", () => {
  it("reads a refused Call's signin_url: provider, space-separated scopes, the user it is for, shared and where to return", () => {
    const url = new URL("https://tollgate.example/connections/connect?provider=github&scope=repo%20read%3Aorg%20repo&for=usr_1&shared=0&return_to=%2Fconsole%3Ftool_id%3Dgithub.issues.list");
    expect(parseConnectRequest(url.searchParams)).toEqual({ providerId: "github", scopes: ["repo", "read:org"], forUserId: "usr_1", shared: false, returnTo: "/console?tool_id=github.issues.list" });
  });

  it("is nothing without a provider, and drops a return_to that leaves the dashboard", () => {
    expect(parseConnectRequest(new URLSearchParams("scope=repo"))).toBeNull();
    expect(parseConnectRequest(new URLSearchParams("provider=github&return_to=https://evil.example/"))?.returnTo).toBeNull();
    expect(parseConnectRequest(new URLSearchParams("provider=github&return_to=//evil.example/"))?.returnTo).toBeNull();
    expect(parseConnectRequest(new URLSearchParams("provider=github&shared=1"))).toMatchObject({ shared: true, forUserId: null, scopes: [] });
  });

  it("is built back from the same parts", () => {
    const href = connectPageHref({ providerId: "github", scopes: ["repo", "read:org"], shared: true, returnTo: "/console?tool_id=x" });
    expect(parseConnectRequest(new URL(href, "http://x").searchParams)).toEqual({ providerId: "github", scopes: ["repo", "read:org"], forUserId: null, shared: true, returnTo: "/console?tool_id=x" });
  });
});

describe("return paths", () => {
  it("keep only paths inside the dashboard", () => {
    expect(safeReturnTo("/connections")).toBe("/connections");
    expect(safeReturnTo("/\\evil.example")).toBeNull();
    expect(safeReturnTo("/x\ny")).toBeNull();
    expect(safeReturnTo("")).toBeNull();
  });

  it("are the current page without an earlier connect's banners, so coming back twice does not pile them up", () => {
    expect(currentReturnTo({ pathname: "/console", search: "?tool_id=a.b&connected=github&connect_error=x" })).toBe("/console?tool_id=a.b");
    expect(currentReturnTo({ pathname: "/connections", search: "" })).toBe("/connections");
  });

  it("say what was connected when a pasted secret returns, replacing an earlier error", () => {
    expect(withConnected("/console?tool_id=a.b&connect_error=denied", "stripe")).toBe("/console?tool_id=a.b&connected=stripe");
  });
});

describe("a Call refused with oauth_signin_required", () => {
  it("names the provider, the scopes and the user from its result", () => {
    const result = { data: {}, provider_id: "github", scopes: ["repo", 7], signin_url: "https://t.example/connections/connect?provider=github&scope=repo&for=usr_9" };
    expect(signinRequiredOf(result)).toEqual({ providerId: "github", scopes: ["repo"], signinUrl: result.signin_url, forUserId: "usr_9", shared: false });
  });

  it("is shared when its link has no user (a key the operator's CLI made)", () => {
    expect(signinRequiredOf({ provider_id: "github", signin_url: "https://t.example/connections/connect?provider=github&shared=1" })).toMatchObject({ forUserId: null, shared: true });
  });

  it("is nothing when the result names no provider", () => {
    expect(signinRequiredOf({ data: {} })).toBeNull();
    expect(signinRequiredOf(undefined)).toBeNull();
  });
});

describe("who may share a connection with the account", () => {
  it("is owners always, members when the owners allow it, support never", () => {
    expect(mayShare("owner", "owners")).toBe(true);
    expect(mayShare("member", "owners")).toBe(false);
    expect(mayShare("member", "members")).toBe(true);
    expect(mayShare("support", "members")).toBe(false);
  });
});
