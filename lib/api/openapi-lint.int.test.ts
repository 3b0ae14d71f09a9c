import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";

/**
 * The published document against `@redocly/cli lint` with its recommended rules: no error, and no
 * warning but two. RFC 6749's authorization endpoint and the connect flow's callback answer with
 * redirects only (302 to consent or back), so the rule that every operation has a 2XX fits neither.
 */
// Both answer a browser with a redirect (302), never a 2xx.
const EXPECTED_WARNINGS = [
  { ruleId: "operation-2xx-response", pointer: "#/paths/~1oauth~1authorize/get/responses" },
  { ruleId: "operation-2xx-response", pointer: "#/paths/~1connections~1callback/get/responses" },
];

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

let server: TestServer;

type Schema = { type?: string | string[]; enum?: unknown[]; minimum?: number; maximum?: number; default?: unknown };
const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v);

/** Every schema with a `default` in the document whose default its own type, enum or bounds refuse, by JSON pointer. */
function invalidDefaults(node: unknown, pointer = "#"): string[] {
  if (node === null || typeof node !== "object") return [];
  const out = Object.entries(node).flatMap(([k, v]) => invalidDefaults(v, `${pointer}/${k}`));
  const s = node as Schema;
  if (!("default" in s) || pointer.endsWith("/properties")) return out;
  const types = s.type === undefined ? [] : [s.type].flat();
  const actual = typeOf(s.default);
  const typed = types.length === 0 || types.includes(actual) || (actual === "integer" && types.includes("number"));
  const listed = s.enum === undefined || s.enum.includes(s.default);
  const n = s.default as number;
  const bounded = typeof s.default !== "number" || ((s.minimum === undefined || n >= s.minimum) && (s.maximum === undefined || n <= s.maximum));
  return typed && listed && bounded ? out : [...out, pointer];
}

beforeAll(async () => {
  server = await startTestServer(await createTestDatabase());
});

describe("the OpenAPI document", () => {
  it("has defaults its schemas accept (a boolean flag defaults to false, not to the string)", async () => {
    const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    expect(invalidDefaults(doc)).toEqual([]);
    // The checker sees what the document used to say of include_details.
    expect(invalidDefaults({ components: { schemas: { Flag: { type: "string", enum: ["0", "1", "true", "false"], default: false } } } })).toEqual(["#/components/schemas/Flag"]);
  });

  it("passes @redocly/cli lint with the recommended rules", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-lint-"));
    try {
      const file = path.join(dir, "openapi.json");
      fs.writeFileSync(file, await (await fetch(`${server.url}/api/v1/openapi.json`)).text());
      const bin = path.resolve(__dirname, "../../node_modules/.bin/redocly");
      // Exit code 1 means errors; the JSON report is on stdout either way.
      const run = await promisify(execFile)(bin, ["lint", file, "--format=json", "--extends=recommended"], { cwd: dir }).catch((err: { stdout: string }) => err);
      const report = JSON.parse(run.stdout) as LintReport;
      const problems = report.problems.map((p) => ({ ruleId: p.ruleId, pointer: p.location[0]?.pointer, severity: p.severity, message: p.message }));
      expect(problems.filter((p) => p.severity === "error")).toEqual([]);
      expect(problems.map(({ ruleId, pointer }) => ({ ruleId, pointer }))).toEqual(EXPECTED_WARNINGS);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
