import { afterEach, describe, expect, it } from "vitest";
import { buildRequest, type RequestNotSent } from "./http-adapter";
import { appendQuery, headerValue, pathValue } from "./http-serialize";
import type { ToolTarget } from "./types";

function target(execution: Record<string, unknown>, auth: ToolTarget["auth"] = null): ToolTarget {
  return { toolId: "t", providerId: "p", transport: "http", baseUrl: "https://api.example/v1/", auth, connection: null, allowPrivateNetwork: false, execution, timeoutMs: 1_000 };
}

const query = (build: (q: URLSearchParams) => void) => {
  const q = new URLSearchParams();
  build(q);
  return q.toString();
};

describe("OpenAPI serialization styles (RFC 6570 as OpenAPI 3 uses it)", () => {
  it("path: simple, label and matrix, exploded or not, each value URL-encoded", () => {
    expect(pathValue("id", "a b/c")).toBe("a%20b%2Fc");
    expect(pathValue("id", [3, 4, 5])).toBe("3,4,5");
    expect(pathValue("id", { role: "admin", first: "Alex" }, { style: "simple", explode: true })).toBe("role=admin,first=Alex");
    expect(pathValue("id", [3, 4], { style: "label", explode: false })).toBe(".3,4");
    expect(pathValue("id", [3, 4], { style: "label", explode: true })).toBe(".3.4");
    expect(pathValue("id", 5, { style: "matrix", explode: false })).toBe(";id=5");
    expect(pathValue("id", [3, 4], { style: "matrix", explode: true })).toBe(";id=3;id=4");
    expect(pathValue("id", { role: "admin" }, { style: "matrix", explode: true })).toBe(";role=admin");
  });

  it("query: form (exploded by default), space and pipe delimited, deepObject", () => {
    expect(query((q) => appendQuery(q, "id", [3, 4]))).toBe("id=3&id=4");
    expect(query((q) => appendQuery(q, "id", [3, 4], { style: "form", explode: false }))).toBe("id=3%2C4");
    expect(query((q) => appendQuery(q, "id", [3, 4], { style: "spaceDelimited", explode: false }))).toBe("id=3+4");
    expect(query((q) => appendQuery(q, "id", [3, 4], { style: "pipeDelimited", explode: false }))).toBe("id=3%7C4");
    expect(query((q) => appendQuery(q, "color", { R: 100, G: 200 }))).toBe("R=100&G=200");
    expect(query((q) => appendQuery(q, "color", { R: 100, G: 200 }, { style: "deepObject", explode: true }))).toBe("color%5BR%5D=100&color%5BG%5D=200");
    expect(query((q) => appendQuery(q, "flag", true))).toBe("flag=true");
  });

  it("headers: simple", () => {
    expect(headerValue([1, 2])).toBe("1,2");
    expect(headerValue({ a: 1, b: "x" }, { style: "simple", explode: true })).toBe("a=1,b=x");
  });
});

describe("buildRequest with an imported operation's mapping", () => {
  afterEach(() => {
    delete process.env.TEST_API_KEY;
    delete process.env.TEST_BASIC;
  });

  it("sends each parameter where the document puts it: path, query, header, body fields under their wire names", async () => {
    const req = await buildRequest(
      target({
        method: "POST",
        path: "/playlists/{playlist_id}/tracks",
        query: ["uris"],
        headers: ["X-Trace"],
        body: "json",
        wire_names: { body_uris: "uris" },
        styles: { uris: { style: "form", explode: false } },
      }),
      { playlist_id: "p 1", uris: ["a", "b"], "X-Trace": "t-1", body_uris: ["c"], position: 2 },
    );
    expect(req.url.toString()).toBe("https://api.example/v1/playlists/p%201/tracks?uris=a%2Cb");
    expect(req.headers).toMatchObject({ "x-trace": "t-1", "content-type": "application/json" });
    expect(JSON.parse(String(req.body))).toEqual({ uris: ["c"], position: 2 });
  });

  it("a body_param is the whole body; body none sends nothing, even for POST", async () => {
    const whole = await buildRequest(target({ method: "POST", path: "/users", body: "json", body_param: "body" }), { body: [{ name: "a" }] });
    expect(whole.body).toBe('[{"name":"a"}]');
    const none = await buildRequest(target({ method: "POST", path: "/ping", body: "none" }), {});
    expect(none.body).toBeUndefined();
    expect(none.headers["content-type"]).toBeUndefined();
  });

  it("credentials: a query key, and basic auth encoding user:password (a value without a colon is sent as encoded)", async () => {
    process.env.TEST_API_KEY = "k&1";
    const keyed = await buildRequest(target({ method: "GET", path: "/movie/{id}" }, { type: "query", query: "api_key", env: "TEST_API_KEY" }), { id: 5 });
    expect(keyed.url.toString()).toBe("https://api.example/v1/movie/5?api_key=k%261");
    process.env.TEST_BASIC = "ann:s3cret";
    const basic = await buildRequest(target({ method: "GET", path: "/a" }, { type: "basic", env: "TEST_BASIC" }), {});
    expect(basic.headers.authorization).toBe(`Basic ${Buffer.from("ann:s3cret").toString("base64")}`);
    process.env.TEST_BASIC = "YW5uOnMzY3JldA==";
    expect((await buildRequest(target({ method: "GET", path: "/a" }, { type: "basic", env: "TEST_BASIC" }), {})).headers.authorization).toBe("Basic YW5uOnMzY3JldA==");
  });
});

describe("a Call reaches only the URL its operation describes", () => {
  afterEach(() => {
    delete process.env.TEST_API_KEY;
  });
  const issues = target({ method: "GET", path: "/repos/{owner}/{repo}/issues" });
  const refusal = (parameters: Record<string, unknown>, t = issues) => buildRequest(t, parameters).then(() => undefined, (err: RequestNotSent) => [err.reasonCode, err.message]);

  it('a path value "." or ".." (the issue\'s /repos/../../issues, which URL parsing made /issues) is refused, nothing built', async () => {
    expect(await refusal({ owner: "..", repo: ".." })).toEqual(["validation_error", expect.stringMatching(/^"owner" would make the path segment "\.\.", which URL parsers remove or merge: .*\/repos\/\{owner\}\/\{repo\}\/issues; nothing was sent$/)]);
    expect(await refusal({ owner: "x", repo: "." })).toEqual(["validation_error", expect.stringContaining('"repo" would make the path segment "."')]);
    expect(await refusal({ owner: "", repo: "x" })).toEqual(["validation_error", expect.stringContaining('"owner" would make the path segment ""')]);
  });

  it("so is a segment that several values or a style make a dot segment: {a}{b} of . and ., a label of . or of nothing", async () => {
    expect(await refusal({ a: ".", b: "." }, target({ method: "GET", path: "/x/{a}{b}/y" }))).toEqual(["validation_error", expect.stringContaining('"a" would make the path segment ".."')]);
    const label = target({ method: "GET", path: "/x/{id}", styles: { id: { style: "label", explode: true } } });
    expect(await refusal({ id: "." }, label)).toEqual(["validation_error", expect.stringContaining('segment ".."')]);
    expect(await refusal({ id: ["", ""] }, label)).toEqual(["validation_error", expect.stringContaining('segment ".."')]);
  });

  it("values that only look like dot segments are sent as given, encoded so that no parser resolves them", async () => {
    const sent = async (owner: string) => (await buildRequest(issues, { owner, repo: "r" })).url.pathname;
    expect(await sent("...")).toBe("/v1/repos/.../r/issues");
    expect(await sent("%2e%2e")).toBe("/v1/repos/%252e%252e/r/issues");
    expect(await sent("../..")).toBe("/v1/repos/..%2F../r/issues");
    expect(await sent("..\\..")).toBe("/v1/repos/..%5C../r/issues");
    expect(await sent("a\ud800")).toBe("/v1/repos/a%EF%BF%BD/r/issues");
  });

  it("a header value with CR, LF, NUL or a character beyond U+00FF is refused; Latin-1 is sent", async () => {
    const traced = target({ method: "GET", path: "/a", headers: ["X-Trace"] });
    for (const bad of ["a\r\nx-admin: 1", "a\nb", "a\u0000", "😀"]) expect(await refusal({ "X-Trace": bad }, traced)).toEqual(["validation_error", expect.stringContaining('"X-Trace" holds a character a header cannot carry')]);
    expect(await refusal({ "X-Trace": { "a\r\nx-admin": "1" } }, traced)).toEqual(["validation_error", expect.stringContaining("X-Trace")]);
    expect((await buildRequest(traced, { "X-Trace": "café\tok" })).headers["x-trace"]).toBe("café\tok");
  });

  it("an exploded cookie object's keys are encoded: they cannot add pairs of their own", async () => {
    const req = await buildRequest(target({ method: "GET", path: "/a", cookies: ["prefs"] }), { prefs: { "a; session": "x", "b=c": "d e" } });
    expect(req.headers.cookie).toBe("a%3B%20session=x; b%3Dc=d%20e");
  });

  it("a cookie credential replaces a caller's pair of its name, as header and query credentials replace theirs", async () => {
    process.env.TEST_API_KEY = "k1";
    const security = [[{ scheme: "c", type: "cookie", name: "sid", env: "TEST_API_KEY" }]];
    const req = await buildRequest(target({ method: "GET", path: "/a", cookies: ["prefs"], security }), { prefs: { sid: "mine", theme: "dark" } });
    expect(req.headers.cookie).toBe("theme=dark; sid=k1");
  });
});

describe("parameters named like object members are read as the Call gives them", () => {
  const mapping = (extra: Record<string, unknown> = {}) =>
    target({ method: "POST", path: "/m", query: ["constructor"], headers: ["toString"], cookies: ["valueOf"], body: "json", ...extra });

  it("left out, nothing is sent for them: no query key, header, cookie or body field", async () => {
    const req = await buildRequest(mapping(), {});
    expect(req.url.search).toBe("");
    expect(Object.keys(req.headers).sort()).toEqual(["accept", "content-type", "user-agent"]);
    expect(req.body).toBe("{}");
  });

  it("given, exactly their values are sent", async () => {
    const req = await buildRequest(mapping(), { constructor: "c", toString: "t", valueOf: "v", hasOwnProperty: "h" });
    expect(req.url.search).toBe("?constructor=c");
    expect(req.headers).toMatchObject({ tostring: "t", cookie: "valueOf=v" });
    expect(req.body).toBe('{"hasOwnProperty":"h"}');
  });

  it("wire names, styles and encodings are looked up by own key: a parameter without one gets the default", async () => {
    const req = await buildRequest(mapping({ wire_names: {}, styles: {}, encoding: {} }), { constructor: ["a", "b"] });
    expect(req.url.search).toBe("?constructor=a&constructor=b");
  });
});
