import { afterEach, describe, expect, it } from "vitest";
import { buildRequest } from "./http-adapter";
import { appendQuery, headerValue, pathValue } from "./http-serialize";
import type { ToolTarget } from "./types";

function target(execution: Record<string, unknown>, auth: ToolTarget["auth"] = null): ToolTarget {
  return { toolId: "t", providerId: "p", transport: "http", baseUrl: "https://api.example/v1/", auth, allowPrivateNetwork: false, execution, timeoutMs: 1_000 };
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
