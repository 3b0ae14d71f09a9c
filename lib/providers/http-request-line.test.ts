import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpStyle } from "../catalog/manifest";
import { startRawReceiver, type RawReceiver } from "../testing/byte-receiver";
import { httpAdapter } from "./http-adapter";
import type { ToolTarget } from "./types";

// What a Call puts on the wire, whatever its values: the request line stays under the operation's
// path (the base path and the operation's literal segments in place, each value in its own segment,
// no segment a parser would resolve away), and no value adds a header line, a query key the
// operation does not send or a cookie pair, or displaces a credential. Read below HTTP parsing.

const SECRET = "s3cret-key";
const CREDENTIALS = [
  { scheme: "h", type: "header", name: "X-Api-Key", env: "REQUEST_LINE_KEY" },
  { scheme: "q", type: "query", name: "api_key", env: "REQUEST_LINE_KEY" },
  { scheme: "c", type: "cookie", name: "sid", env: "REQUEST_LINE_KEY" },
];

let receiver: RawReceiver;
beforeAll(async () => {
  receiver = await startRawReceiver();
  process.env.REQUEST_LINE_KEY = SECRET;
});
afterAll(async () => {
  delete process.env.REQUEST_LINE_KEY;
  await receiver?.close();
});

function target(ownerStyle: HttpStyle): ToolTarget {
  const execution = {
    method: "GET",
    path: "/repos/{owner}/{repo}/issues",
    query: ["q", "filter"],
    headers: ["X-Trace"],
    cookies: ["pref", "prefs"],
    styles: { owner: ownerStyle },
    security: [CREDENTIALS],
  };
  return { toolId: "t", providerId: "request-line", transport: "http", baseUrl: `${receiver.url}/base`, auth: null, connection: null, allowPrivateNetwork: true, execution, timeoutMs: 5_000 };
}

/** Pieces that parsers treat specially, and the credentials' names, to be combined with arbitrary text. */
const NASTY = ["sid", "api_key", "X-Api-Key", ".", "..", "", "...", "%2e", "%2E%2e", ".%2e", "%2F", "/", "\\", "a/../b", "..\\..", "\r\n", "\r", "\n", "a\r\nx-admin: 1", "\u0000", "\t", " ", ";", ",", "=", "&", "?", "#", "%", "%00", "\ud800", "\udfff", "😀", "é", "复利", "\u2028", "x".repeat(20_000), "ü".repeat(3_000)];
const piece = fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: "binary", maxLength: 4 }), fc.string({ maxLength: 8 }));
const text = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...NASTY) }, { weight: 3, arbitrary: fc.array(piece, { maxLength: 4 }).map((p) => p.join("")) }, { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) });
const value = fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: fc.array(text, { maxLength: 3 }) }, { weight: 1, arbitrary: fc.dictionary(text, text, { maxKeys: 3 }) });
const style = fc.constantFrom<HttpStyle>({ style: "simple", explode: false }, { style: "simple", explode: true }, { style: "label", explode: false }, { style: "label", explode: true }, { style: "matrix", explode: false }, { style: "matrix", explode: true });

const sentAs = (v: string) => v.toWellFormed();
/** For a string path value, the segment's own part (after a label's `.` or a matrix `;owner=`). */
const prefixOf = (s: HttpStyle) => (s.style === "label" ? "." : s.style === "matrix" ? ";owner=" : "");
/** Whether a string path value must be refused: its segment would be "", "." or "..". */
const vanishes = (v: string, s: HttpStyle) => ["", ".", ".."].includes(prefixOf(s) + encodeURIComponent(sentAs(v)));
const headerRefused = (v: string) => /[^\t\x20-\x7e\x80-\xff]/.test(v);

describe("a Call's request on the wire, whatever its values (fast-check, read below HTTP parsing)", () => {
  it("stays under the operation's path, adds no header line, query key or cookie pair, and displaces no credential", async () => {
    await fc.assert(
      fc.asyncProperty(value, text, style, fc.option(text, { nil: undefined }), fc.option(value, { nil: undefined }), fc.option(text, { nil: undefined }), fc.option(value, { nil: undefined }), fc.option(fc.dictionary(text, text, { maxKeys: 3 }), { nil: undefined }), async (owner, repo, ownerStyle, trace, q, pref, prefs, filter) => {
        const parameters = Object.fromEntries(Object.entries({ owner, repo, "X-Trace": trace, q, pref, prefs, filter }).filter(([, v]) => v !== undefined));
        const before = receiver.heads.length;
        const outcome = await httpAdapter.execute(target(ownerStyle), parameters);

        // Refused exactly when a string value cannot be sent (arrays and objects: whatever is sent obeys the rest).
        const mustRefuse = (typeof owner === "string" && vanishes(owner, ownerStyle)) || vanishes(repo, { style: "simple", explode: false }) || (trace !== undefined && headerRefused(trace));
        if (outcome.reasonCode === "validation_error") {
          expect(receiver.heads.length).toBe(before);
          if (typeof owner === "string") expect(mustRefuse).toBe(true);
          return;
        }
        expect(mustRefuse).toBe(false);
        expect(outcome.reasonCode).toBe("result.valid");
        expect(receiver.heads.length).toBe(before + 1);
        const [requestLine, ...lines] = receiver.heads[before].split("\r\n");

        const [, requestTarget] = /^GET (\S+) HTTP\/1\.1$/.exec(requestLine) ?? [];
        expect(requestTarget).toBeDefined();
        const [path, query = ""] = requestTarget.split(/\?(.*)/s);
        const segments = path.split("/");
        expect(segments).toHaveLength(6);
        expect([segments[0], segments[1], segments[2], segments[5]]).toEqual(["", "base", "repos", "issues"]);
        for (const segment of [segments[3], segments[4]]) {
          expect(["", ".", ".."]).not.toContain(segment.replace(/%2e/gi, "."));
        }
        // A server's URL parser leaves the path as sent: nothing in it resolves away.
        expect(new URL(requestTarget, "http://upstream.test").pathname).toBe(path);
        expect(decodeURIComponent(segments[4])).toBe(sentAs(repo));
        if (typeof owner === "string") expect(decodeURIComponent(segments[3].slice(prefixOf(ownerStyle).length))).toBe(sentAs(owner));

        const headers = lines.map((line) => {
          const [, name, field] = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+): (.*)$/s.exec(line) ?? [];
          expect(name, `a header line: ${JSON.stringify(line.slice(0, 80))}`).toBeDefined();
          return [name.toLowerCase(), field] as const;
        });
        const expectedNames = ["host", "accept", "user-agent", "x-api-key", "cookie", "connection", ...(trace === undefined ? [] : ["x-trace"])];
        expect(headers.map(([name]) => name).sort()).toEqual(expectedNames.sort());
        const header = new Map(headers);
        expect(header.get("x-api-key")).toBe(SECRET);
        if (trace !== undefined) expect(header.get("x-trace")).toBe(trace);

        const pairs = header.get("cookie")!.split("; ").map((pair) => {
          expect(pair).toMatch(/^[^;, =]*=[^;, =]*$/);
          const [name, v] = pair.split("=");
          return [decodeURIComponent(name), decodeURIComponent(v)];
        });
        expect(pairs.filter(([name]) => name === "sid")).toEqual([["sid", SECRET]]);
        if (pref !== undefined) expect(pairs).toContainEqual(["pref", sentAs(pref)]);

        const params = [...new URLSearchParams(query)];
        expect(params.filter(([name]) => name === "api_key")).toEqual([["api_key", SECRET]]);
        const allowed = new Set(["q", "api_key", ...Object.keys(filter ?? {}).map(sentAs), ...(q && typeof q === "object" && !Array.isArray(q) ? Object.keys(q).map(sentAs) : [])]);
        for (const [name] of params) expect(allowed.has(name), `query key ${JSON.stringify(name)}`).toBe(true);
        if (typeof q === "string") expect(params).toContainEqual(["q", sentAs(q)]);
      }),
      { numRuns: 400 },
    );
  });
});
