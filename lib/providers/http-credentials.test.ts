import { afterEach, describe, expect, it } from "vitest";
import type { HttpCredential } from "../catalog/manifest";
import { buildRequest } from "./http-adapter";
import { chooseCredentials } from "./http-credentials";
import type { ToolTarget } from "./types";

const VARS = ["TEST_BEARER", "TEST_BASIC", "TEST_COOKIE", "TEST_HEADER", "TEST_QUERY", "TEST_PROVIDER"];

afterEach(() => {
  for (const name of VARS) delete process.env[name];
});

function target(execution: Record<string, unknown>, auth: ToolTarget["auth"] = null): ToolTarget {
  return { toolId: "t", providerId: "p", transport: "http", baseUrl: "https://api.example", auth, connection: null, allowPrivateNetwork: false, execution, timeoutMs: 1_000 };
}

const bearer: HttpCredential = { scheme: "bearerAuth", type: "bearer", env: "TEST_BEARER" };
const basic: HttpCredential = { scheme: "basicAuth", type: "basic", env: "TEST_BASIC" };
const cookie: HttpCredential = { scheme: "session", type: "cookie", name: "sid", env: "TEST_COOKIE" };
const header: HttpCredential = { scheme: "key", type: "header", name: "X-Api-Key", env: "TEST_HEADER" };
const query: HttpCredential = { scheme: "token", type: "query", name: "token", env: "TEST_QUERY" };

describe("choosing an operation's credentials", () => {
  it("security [] sends nothing, even when the provider has auth", () => {
    process.env.TEST_PROVIDER = "p";
    expect(chooseCredentials([], { type: "bearer", env: "TEST_PROVIDER" })).toEqual({ ok: true, credentials: [] });
  });

  it("the first alternative whose variables are all set wins", () => {
    process.env.TEST_BASIC = "ann:pw";
    expect(chooseCredentials([[bearer], [basic]], null)).toEqual({ ok: true, credentials: [{ type: "basic", secret: "ann:pw" }] });
    process.env.TEST_BEARER = "b";
    expect(chooseCredentials([[bearer], [basic]], null)).toEqual({ ok: true, credentials: [{ type: "bearer", secret: "b" }] });
  });

  it("an alternative sends all of its credentials together; an empty one allows sending none", () => {
    process.env.TEST_HEADER = "h";
    expect(chooseCredentials([[header, query], []], null)).toEqual({ ok: true, credentials: [] });
    process.env.TEST_QUERY = "q";
    expect(chooseCredentials([[header, query], []], null)).toEqual({
      ok: true,
      credentials: [
        { type: "header", name: "X-Api-Key", secret: "h" },
        { type: "query", name: "token", secret: "q" },
      ],
    });
  });

  it("a scheme imported without a variable sends nothing and never blocks", () => {
    expect(chooseCredentials([[{ scheme: "oauth", type: "bearer" }]], null)).toEqual({ ok: true, credentials: [] });
  });

  it("nothing satisfiable: the message names every scheme and unset variable, never a secret", () => {
    process.env.TEST_QUERY = "s3cret-q";
    const choice = chooseCredentials([[bearer], [header, query]], null);
    expect(choice).toEqual({
      ok: false,
      message: 'None of the operation\'s credentials is configured on this server: set TEST_BEARER (scheme "bearerAuth", bearer), or TEST_HEADER (scheme "key", header)',
    });
    expect(JSON.stringify(choice)).not.toContain("s3cret");
  });

  it("the provider-wide auth whose variable is unset fails too (it used to send nothing)", () => {
    expect(chooseCredentials(undefined, { type: "header", header: "X-Key", env: "TEST_PROVIDER" })).toEqual({
      ok: false,
      message: "The provider's credential is not configured on this server: set TEST_PROVIDER (header auth)",
    });
    expect(chooseCredentials(undefined, null)).toEqual({ ok: true, credentials: [] });
    expect(chooseCredentials(undefined, { type: "none" })).toEqual({ ok: true, credentials: [] });
  });
});

describe("credentials on the request", () => {
  it("bearer, basic (user:password encoded), header, query, and a cookie merged with cookie parameters", async () => {
    Object.assign(process.env, { TEST_BEARER: "b-1", TEST_COOKIE: "c-1", TEST_HEADER: "h-1", TEST_QUERY: "q 1", TEST_BASIC: "ann:pw" });
    const withAll = await buildRequest(target({ method: "GET", path: "/a", cookies: ["theme"], security: [[header, query, cookie]] }), { theme: "dark" });
    expect(withAll.headers).toMatchObject({ "x-api-key": "h-1", cookie: "theme=dark; sid=c-1" });
    expect(withAll.url.searchParams.get("token")).toBe("q 1");
    expect((await buildRequest(target({ method: "GET", path: "/a", security: [[bearer]] }), {})).headers.authorization).toBe("Bearer b-1");
    expect((await buildRequest(target({ method: "GET", path: "/a", security: [[basic]] }), {})).headers.authorization).toBe(`Basic ${Buffer.from("ann:pw").toString("base64")}`);
  });

  it("the operation's security replaces the provider's auth", async () => {
    Object.assign(process.env, { TEST_BEARER: "b-1", TEST_PROVIDER: "p-1" });
    const req = await buildRequest(target({ method: "GET", path: "/a", security: [[bearer]] }, { type: "header", header: "X-Provider", env: "TEST_PROVIDER" }), {});
    expect(req.headers.authorization).toBe("Bearer b-1");
    expect(req.headers["x-provider"]).toBeUndefined();
    const none = await buildRequest(target({ method: "GET", path: "/a", security: [] }, { type: "header", header: "X-Provider", env: "TEST_PROVIDER" }), {});
    expect(none.headers["x-provider"]).toBeUndefined();
    expect(none.headers.authorization).toBeUndefined();
  });

  it("an unset variable: nothing is built, the Call fails with provider.error", async () => {
    await expect(buildRequest(target({ method: "POST", path: "/a", security: [[bearer]] }), { x: 1 })).rejects.toMatchObject({
      reasonCode: "provider.error",
      message: 'The operation\'s credential is not configured on this server: set TEST_BEARER (scheme "bearerAuth", bearer); nothing was sent',
    });
  });
});
