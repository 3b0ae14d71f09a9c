import { describe, expect, it } from "vitest";
import { buildRequest, RequestNotSent } from "./http-adapter";
import type { ToolTarget } from "./types";

function target(execution: Record<string, unknown>): ToolTarget {
  return { toolId: "t", providerId: "p", transport: "http", baseUrl: "https://api.example/v1", auth: null, connection: null, allowPrivateNetwork: false, execution, timeoutMs: 1_000 };
}

/** Parses a multipart body as a server would (the platform's own parser). */
async function parts(req: { body?: Buffer | string; headers: Record<string, string> }): Promise<FormData> {
  return new Request("https://receiver.example/", { method: "POST", body: typeof req.body === "string" ? req.body : new Uint8Array(req.body ?? []), headers: { "content-type": req.headers["content-type"] } }).formData();
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);

describe("form bodies (application/x-www-form-urlencoded)", () => {
  it("a nested object in deepObject style becomes a[b][c]=d, an exploded array repeats its key, spaces are +", async () => {
    const req = await buildRequest(
      target({ method: "POST", path: "/chat.postMessage", body: "form", body_types: [{ media_type: "application/x-www-form-urlencoded", kind: "form" }], encoding: { metadata: { style: "deepObject", explode: true } } }),
      { channel: "C1", text: "hello world & more", metadata: { event: { type: "x y", n: 2 } }, tags: ["a", "b"] },
    );
    expect(req.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(req.body).toBe("channel=C1&text=hello+world+%26+more&metadata%5Bevent%5D%5Btype%5D=x+y&metadata%5Bevent%5D%5Bn%5D=2&tags=a&tags=b");
    expect([...new URLSearchParams(String(req.body))]).toEqual([
      ["channel", "C1"],
      ["text", "hello world & more"],
      ["metadata[event][type]", "x y"],
      ["metadata[event][n]", "2"],
      ["tags", "a"],
      ["tags", "b"],
    ]);
  });

  it("an array not exploded is comma-joined; path, query and header parameters stay out of the body", async () => {
    const req = await buildRequest(
      target({ method: "POST", path: "/items/{id}", query: ["q"], headers: ["X-Trace"], body: "form", encoding: { ids: { style: "form", explode: false } } }),
      { id: "7", q: "z", "X-Trace": "t", ids: [1, 2] },
    );
    expect(req.url.toString()).toBe("https://api.example/v1/items/7?q=z");
    expect(req.body).toBe("ids=1%2C2");
  });
});

describe("multipart bodies (multipart/form-data, serialized by the platform's FormData)", () => {
  const mapping = { method: "POST", path: "/files", body: "multipart", files: ["file"], encoding: { file: { content_type: "image/png" } } };

  it("a file part from a data: URI carries its bytes, type and a filename; an object is a JSON part; a number a text part", async () => {
    const req = await buildRequest(target(mapping), { file: `data:image/png;base64,${PNG.toString("base64")}`, attributes: { name: "a.png", parent: { id: "0" } }, purpose: 3 });
    expect(req.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    const raw = Buffer.isBuffer(req.body) ? req.body.toString("latin1") : "";
    expect(raw).toContain('Content-Disposition: form-data; name="file"; filename="file.png"\r\nContent-Type: image/png\r\n\r\n');
    expect(raw).toContain('Content-Disposition: form-data; name="attributes"\r\nContent-Type: application/json\r\n\r\n{"name":"a.png","parent":{"id":"0"}}\r\n');
    expect(raw).toContain('Content-Disposition: form-data; name="purpose"\r\n\r\n3\r\n');
    const form = await parts(req);
    const file = form.get("file") as File;
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG);
    expect(file).toMatchObject({ name: "file.png", type: "image/png" });
    expect(form.get("purpose")).toBe("3");
  });

  it("base64 takes the encoding's content type; an array sends several parts of one name; a data: URI may name its file", async () => {
    const req = await buildRequest(target({ ...mapping, files: ["file", "more"] }), {
      file: PNG.toString("base64"),
      more: ["data:text/plain;name=notes.txt;base64,aGk=", "data:,plain%20text"],
    });
    const form = await parts(req);
    expect(form.get("file")).toMatchObject({ name: "file.png", type: "image/png" });
    const more = form.getAll("more") as File[];
    expect(more.map((f) => [f.name, f.type])).toEqual([
      ["notes.txt", "text/plain"],
      ["more.txt", "text/plain"],
    ]);
    expect(await Promise.all(more.map((f) => f.text()))).toEqual(["hi", "plain text"]);
  });

  it("an undecodable file value is not sent: the Call fails validation", async () => {
    await expect(buildRequest(target(mapping), { file: "not base64!" })).rejects.toThrow(RequestNotSent);
    await expect(buildRequest(target(mapping), { file: "not base64!" })).rejects.toMatchObject({ reasonCode: "validation_error", message: expect.stringContaining('"file" must be base64, a data: URI or an https URL') });
  });
});

describe("raw bodies and the body type a Call picks", () => {
  const mapping = {
    method: "POST",
    path: "/documents",
    body_types: [
      { media_type: "application/json", kind: "json" },
      { media_type: "text/plain", kind: "raw" },
      { media_type: "application/x-www-form-urlencoded", kind: "form" },
    ],
    content_type_param: "content_type",
    body_param: "body",
  };

  it("JSON by default; the content-type parameter picks text or form and is never sent", async () => {
    const json = await buildRequest(target(mapping), { body: { a: 1 } });
    expect([json.headers["content-type"], json.body]).toEqual(["application/json", '{"a":1}']);
    const text = await buildRequest(target(mapping), { body: "line one\nline two", content_type: "text/plain" });
    expect([text.headers["content-type"], text.body]).toEqual(["text/plain", "line one\nline two"]);
    const form = await buildRequest(target(mapping), { body: { a: "x y", b: [1, 2] }, content_type: "application/x-www-form-urlencoded" });
    expect([form.headers["content-type"], form.body]).toEqual(["application/x-www-form-urlencoded", "a=x+y&b=1&b=2"]);
  });

  it("a body_param left out sends no body, whatever other parameters the Call has", async () => {
    for (const content_type of ["application/json", "text/plain", "application/x-www-form-urlencoded"]) {
      const req = await buildRequest(target(mapping), { content_type, stray: "x" });
      expect([req.body, req.headers["content-type"]]).toEqual([undefined, undefined]);
    }
  });

  it("a JSON media type other than application/json is sent as declared (json-patch)", async () => {
    const req = await buildRequest(target({ method: "PATCH", path: "/a", body_types: [{ media_type: "application/json-patch+json", kind: "json" }], body_param: "ops" }), { ops: [{ op: "remove", path: "/x" }] });
    expect([req.headers["content-type"], req.body]).toEqual(["application/json-patch+json", '[{"op":"remove","path":"/x"}]']);
  });

  it("a raw file body is the decoded bytes, with the declared type (or the data: URI's where the document allows any)", async () => {
    const png = await buildRequest(target({ method: "PUT", path: "/blob", body_types: [{ media_type: "image/png", kind: "raw" }], body_param: "content", files: ["content"] }), { content: PNG.toString("base64") });
    expect(png.body).toEqual(PNG);
    expect(png.headers["content-type"]).toBe("image/png");
    const wildcard = await buildRequest(target({ method: "PUT", path: "/blob", body_types: [{ media_type: "*/*", kind: "raw" }], body_param: "content", files: ["content"] }), { content: "data:application/pdf;base64,JVBERg==" });
    expect([wildcard.headers["content-type"], wildcard.body]).toEqual(["application/pdf", Buffer.from("%PDF")]);
  });
});

describe("servers and cookies", () => {
  it("the operation's own base_url replaces the provider's; cookie parameters go in one Cookie header", async () => {
    const req = await buildRequest(target({ method: "GET", path: "/files/{id}", base_url: "https://upload.example/api/2.0", cookies: ["session", "prefs"] }), { id: "9", session: "a b", prefs: ["x", "y"] });
    expect(req.url.toString()).toBe("https://upload.example/api/2.0/files/9");
    expect(req.headers.cookie).toBe("session=a%20b; prefs=x; prefs=y");
    expect(req.body).toBeUndefined();
  });
});
