import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { fusedValidator, type Hook } from "./validate-request";

// The fused validator against the library's own validators (`app.openapi`), request by request:
// the same status and the same body, for input that passes and for every way it can fail.

const hook: Hook = (result, c) => {
  if (!result.success) return c.json({ target: result.target, issues: result.error.issues.map((i) => `${i.path.join(".")}: ${i.code}`) }, 422);
};

function route(body: z.ZodType, options: { required?: boolean; headers?: z.ZodObject } = {}) {
  return createRoute({
    method: "post",
    path: "/things/{id}",
    request: {
      params: z.object({ id: z.string().regex(/^t_\d+$/) }),
      query: z.object({ limit: z.coerce.number().int().max(10).optional(), tag: z.array(z.string()).or(z.string()).optional() }),
      headers: options.headers ?? z.object({ "Idempotency-Key": z.string().min(3).optional(), "x-mode": z.enum(["a", "b"]).optional() }),
      body: { content: { "application/json": { schema: body } }, required: options.required ?? true },
    },
    responses: { 200: { description: "ok" } },
  });
}

const handler = (c: Context) => {
  const req = c.req as unknown as { valid: (t: string) => unknown };
  return c.json({ param: req.valid("param"), query: req.valid("query"), header: req.valid("header"), json: req.valid("json") });
};

function apps(config: ReturnType<typeof route>) {
  const onError = (err: Error, c: Context) => c.json({ error: err.message }, err instanceof HTTPException ? err.status : 500);
  const library = new OpenAPIHono();
  library.onError(onError);
  library.openapi(config, handler as never, hook as never);
  const fused = new OpenAPIHono();
  fused.onError(onError);
  const validate = fusedValidator(config.request, hook);
  expect(validate).toBeDefined();
  fused.post("/things/:id", validate!, handler);
  return { library, fused };
}

async function both(config: ReturnType<typeof route>, path: string, init: RequestInit) {
  const { library, fused } = apps(config);
  const answer = async (app: OpenAPIHono) => {
    const res = await app.request(`http://x${path}`, init);
    return { status: res.status, body: await res.text() };
  };
  return { library: await answer(library), fused: await answer(fused) };
}

const Body = z.object({ name: z.string().max(5), n: z.number().int().default(1), extra: z.record(z.string(), z.unknown()).optional() });
const json = { "content-type": "application/json" };

describe("fusedValidator answers as the library's validators do", () => {
  const cases: [string, string, RequestInit][] = [
    ["valid input, declared headers in any case", "/things/t_1?limit=3&tag=a&tag=b", { method: "POST", headers: { ...json, "IDEMPOTENCY-KEY": "abcd", "X-Mode": "a", other: "x" }, body: '{"name":"ab"}' }],
    ["a path parameter its schema refuses", "/things/x1", { method: "POST", headers: json, body: '{"name":"ab"}' }],
    ["a query value its schema refuses", "/things/t_1?limit=99", { method: "POST", headers: json, body: '{"name":"ab"}' }],
    ["a query key such as __proto__", "/things/t_1?__proto__=a&__proto__=b&limit=2", { method: "POST", headers: json, body: '{"name":"ab"}' }],
    ["a header its schema refuses", "/things/t_1", { method: "POST", headers: { ...json, "x-mode": "c" }, body: '{"name":"ab"}' }],
    ["a body its schema refuses", "/things/t_1", { method: "POST", headers: json, body: '{"name":"abcdefgh","n":1.5}' }],
    ["a body that is not an object", "/things/t_1", { method: "POST", headers: json, body: "[1,2]" }],
    ["malformed JSON", "/things/t_1", { method: "POST", headers: json, body: '{"name":' }],
    ["JSON with parameters in its content type", "/things/t_1", { method: "POST", headers: { "content-type": "application/json; charset=utf-8" }, body: '{"name":"ab"}' }],
    ["a +json media type", "/things/t_1", { method: "POST", headers: { "content-type": "application/problem+json" }, body: '{"name":"ab"}' }],
    ["an undeclared media type", "/things/t_1", { method: "POST", headers: { "content-type": "text/plain" }, body: '{"name":"ab"}' }],
    ["a body without a content type", "/things/t_1", { method: "POST", body: '{"name":"ab"}' }],
    ["no body and no content type", "/things/t_1", { method: "POST" }],
    ["an empty body declared as JSON", "/things/t_1", { method: "POST", headers: json, body: "" }],
  ];
  for (const [name, path, init] of cases) {
    it(name, async () => {
      const { library, fused } = await both(route(Body), path, init);
      expect(fused).toEqual(library);
    });
  }

  it("an optional body: absent, of another media type, and present", async () => {
    for (const init of [{ method: "POST" }, { method: "POST", headers: { "content-type": "text/plain" }, body: "hi" }, { method: "POST", headers: json, body: '{"name":"abcdefg"}' }, { method: "POST", headers: json, body: '{"name":"ab"}' }]) {
      const { library, fused } = await both(route(Body, { required: false }), "/things/t_1", init);
      expect(fused).toEqual(library);
    }
  });

  it("a schema with an async refinement", async () => {
    const Checked = z.object({ name: z.string().refine(async (v) => v !== "no", "refused") });
    for (const body of ['{"name":"no"}', '{"name":"ok"}']) {
      const { library, fused } = await both(route(Checked), "/things/t_1", { method: "POST", headers: json, body });
      expect(fused).toEqual(library);
      expect(fused.status).toBe(body.includes("no") ? 422 : 200);
    }
  });

  it("a header schema that keeps undeclared headers gets them all, declared ones in its casing", async () => {
    const headers = z.looseObject({ "X-Mode": z.string().optional() });
    const { library, fused } = await both(route(Body, { headers }), "/things/t_1", { method: "POST", headers: { ...json, "x-mode": "a", "x-other": "b" }, body: '{"name":"ab"}' });
    expect(fused).toEqual(library);
    expect(JSON.parse(fused.body).header).toMatchObject({ "X-Mode": "a", "x-other": "b" });
  });

  it("leaves to the library a route with a form body or cookies", () => {
    const form = createRoute({
      method: "post",
      path: "/token",
      request: { body: { content: { "application/x-www-form-urlencoded": { schema: z.object({ grant_type: z.string() }) } } } },
      responses: { 200: { description: "ok" } },
    });
    expect(fusedValidator(form.request, hook)).toBeUndefined();
    expect(fusedValidator({ cookies: z.object({ sid: z.string() }) }, hook)).toBeUndefined();
    expect(fusedValidator({ query: z.object({ q: z.string() }) }, hook)).toBeDefined();
  });
});
