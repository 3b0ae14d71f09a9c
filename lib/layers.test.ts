import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");

/** Every non-test TypeScript file under `dir` (relative to the project root). */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(rel));
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) out.push(rel);
  }
  return out;
}

/** The modules a file imports (static imports and re-exports), resolved to project paths where relative. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  return [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms)].map(([, spec]) =>
    spec.startsWith(".") ? path.join(path.dirname(file), spec) : spec.replace(/^@\//, ""),
  );
}

describe("layers", () => {
  // Domain verbs run from the CLI, a test or a worker: they know nothing of HTTP (docs/architecture.md).
  const domainAreas = ["accounts", "alerts", "audit", "auth", "billing", "catalog", "db", "execution", "oauth", "providers", "search", "security", "webhooks"];

  it("domain code imports neither the HTTP layer nor the web framework", () => {
    const offending = domainAreas
      .flatMap((area) => sources(`lib/${area}`))
      .flatMap((file) => importsOf(file).filter((m) => /^lib\/(http|api)\//.test(m) || m === "hono" || m.startsWith("hono/") || m.startsWith("@hono/node-server")).map((m) => `${file} → ${m}`));
    expect(offending).toEqual([]);
  });

  it("shared UI components do not import the database layer", () => {
    const offending = sources("components").flatMap((file) => importsOf(file).filter((m) => m.startsWith("lib/db")).map((m) => `${file} → ${m}`));
    expect(offending).toEqual([]);
  });

  it("the metrics module takes its vocabulary from modules below it: none of its imports imports it back", () => {
    const metrics = "lib/observability/metrics";
    const local = importsOf(`${metrics}.ts`).filter((m) => m.startsWith("lib/"));
    expect(local.length).toBeGreaterThan(0);
    const circular = local.filter((m) => importsOf(fs.existsSync(path.join(root, `${m}.ts`)) ? `${m}.ts` : `${m}/index.ts`).includes(metrics));
    expect(circular).toEqual([]);
  });

  it("sees the imports it checks (a file known to import the HTTP layer is found)", () => {
    expect(importsOf("lib/api/audit-route-support.ts")).toContain("lib/http/context");
  });
});
