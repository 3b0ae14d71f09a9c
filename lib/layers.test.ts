import fs from "node:fs";
import { builtinModules } from "node:module";
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


/** Whether a file opens with the directive (after comments): "use client" marks a browser entry, "use server" an action boundary. */
function opensWith(file: string, directive: "use client" | "use server"): boolean {
  const text = fs.readFileSync(path.join(root, file), "utf8").replace(/^(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*/, "");
  return text.startsWith(`"${directive}"`) || text.startsWith(`'${directive}'`);
}

/**
 * The modules a file loads at run time: static imports, side-effect imports, re-exports and
 * `import("…")`, as project paths (`lib/x/y`, unresolved) or package names. Type-only imports
 * (`import type`, `export type`, or braces whose every name is marked `type`) are left out: the
 * compiler erases them, so they never reach the bundle.
 */
function runtimeImportsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  return [...staticImportsOf(file), ...[...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map(([, spec]) => projectPath(file, spec))];
}

/** runtimeImportsOf without `import("…")`: what is loaded with the file, before any of it runs. */
function staticImportsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  const specs: string[] = [];
  for (const [, clause, spec] of text.matchAll(/^(?:import|export)\b([^;]*?)\bfrom\s+["']([^"']+)["']/gm)) {
    const names = clause.trim();
    const braced = /^\{([\s\S]*)\}$/.exec(names)?.[1].split(",").map((n) => n.trim()).filter(Boolean);
    if (names.startsWith("type ") || (braced?.length && braced.every((n) => n.startsWith("type ")))) continue;
    specs.push(spec);
  }
  for (const [, spec] of text.matchAll(/^import\s+["']([^"']+)["']/gm)) specs.push(spec);
  return specs.map((spec) => projectPath(file, spec));
}

/** An import's specifier as a project path (`lib/x/y`, unresolved), or the package's name. */
function projectPath(file: string, spec: string): string {
  return spec.startsWith(".") ? path.join(path.dirname(file), spec) : spec.startsWith("@/") ? spec.slice(2) : spec;
}

/** The project file a project path names, as the bundler resolves it; undefined for a package. */
function projectFile(mod: string): string | undefined {
  if (!fs.existsSync(path.join(root, mod.split("/")[0]))) return undefined;
  const found = [mod, `${mod}.ts`, `${mod}.tsx`, `${mod}/index.ts`, `${mod}/index.tsx`].find((f) => fs.statSync(path.join(root, f), { throwIfNoEntry: false })?.isFile());
  if (!found) throw new Error(`cannot resolve ${mod}`);
  return found;
}

/**
 * Each project file and package that loading `entries` reaches through `follow` (a file's imports),
 * with the chain of imports that reaches it; a file where `stop` holds is reached, not followed.
 */
function reach(entries: string[], follow: (file: string) => string[], stop: (file: string, chain: string[]) => boolean = () => false): Map<string, string[]> {
  const reached = new Map<string, string[]>();
  const queue = entries.map((entry) => [entry]);
  for (let chain = queue.shift(); chain; chain = queue.shift()) {
    const file = chain[chain.length - 1];
    if (reached.has(file)) continue;
    reached.set(file, chain);
    if (!/\.tsx?$/.test(file) || stop(file, chain)) continue;
    for (const mod of follow(file)) {
      const next = projectFile(mod) ?? mod;
      if (!reached.has(next)) queue.push([...chain, next]);
    }
  }
  return reached;
}

/**
 * What the browser bundle of `entries` can load. A "use server" module is a boundary: a client
 * component that imports a server action gets a reference to it, not its code.
 */
const browserReach = (entries: string[]) => reach(entries, runtimeImportsOf, (file, chain) => chain.length > 1 && opensWith(file, "use server"));

/** What loading `entries` loads before any of it runs: static imports only, import() and type-only imports not followed. */
const staticReach = (entries: string[]) => reach(entries, staticImportsOf);

/** Server-side code the browser must never load: the database and domain areas, next-auth's server, Node. */
const serverOnlyAreas = ["db", "accounts", "audit", "auth", "billing", "payments", "execution", "oauth", "search", "catalog", "providers", "security", "webhooks", "dashboard-session"];
const serverOnlyPackages = [/^next-auth(?!\/react$)(\/|$)/, /^server-only$/, /^node:/, /^pg(\/|$)/, /^@electric-sql\/pglite(\/|$)/, /^drizzle-/];

function serverOnlyIn(reach: Map<string, string[]>): string[] {
  return [...reach]
    .filter(([mod]) => serverOnlyAreas.some((area) => mod.startsWith(`lib/${area}/`)) || serverOnlyPackages.some((p) => p.test(mod)) || builtinModules.includes(mod))
    .map(([, chain]) => chain.join(" → "));
}

describe("layers", () => {
  // Domain verbs run from the CLI, a test or a worker: they know nothing of HTTP (docs/architecture.md).
  const domainAreas = ["accounts", "alerts", "audit", "auth", "billing", "catalog", "db", "execution", "oauth", "payments", "providers", "search", "security", "webhooks"];

  it("domain code imports neither the HTTP layer nor the web framework", () => {
    const offending = domainAreas
      .flatMap((area) => sources(`lib/${area}`))
      .flatMap((file) => importsOf(file).filter((m) => /^lib\/(http|api)\//.test(m) || m === "hono" || m.startsWith("hono/") || m.startsWith("@hono/node-server")).map((m) => `${file} → ${m}`));
    expect(offending).toEqual([]);
  });

  // The payment processor (Stripe) calls the credits' verbs; credits and budgets never need Stripe.
  it("credits and budgets (lib/billing) never import the payment processor (lib/payments)", () => {
    const billing = sources("lib/billing");
    expect(billing).toContain("lib/billing/grant-credits.ts");
    expect(importsOf("lib/payments/stripe-events.ts")).toContain("lib/billing/grant-credits");
    const offending = billing.flatMap((file) => [...new Set([...importsOf(file), ...runtimeImportsOf(file)])].filter((m) => m.startsWith("lib/payments/")).map((m) => `${file} → ${m}`));
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

  const browserEntries = ["app", "components"].flatMap((dir) => sources(dir)).filter((file) => opensWith(file, "use client"));

  it("the browser bundle loads neither the database, the domain areas, the dashboard's session code nor server packages", () => {
    expect(browserEntries.length).toBeGreaterThan(20);
    expect(serverOnlyIn(browserReach(browserEntries))).toEqual([]);
  });

  it("sees what the browser would load: server code used as an entry is caught through @/ and relative imports; type-only imports are not followed", () => {
    const reach = browserReach(browserEntries);
    expect(reach.get("lib/dashboard/api-client.ts")?.[0]).toMatch(/^(app|components)\//);
    const caught = serverOnlyIn(browserReach(["app/(dashboard)/layout.tsx"]));
    expect(caught).toContain("app/(dashboard)/layout.tsx → lib/dashboard-session/session.ts");
    expect(caught).toContain("app/(dashboard)/layout.tsx → lib/dashboard-session/session.ts → next-auth");
    expect(caught.some((c) => c.endsWith("→ lib/db/index.ts"))).toBe(true);
    expect(caught.some((c) => c.endsWith("→ drizzle-orm"))).toBe(true);
    expect(serverOnlyIn(new Map([["node:fs", ["node:fs"]], ["crypto", ["crypto"]], ["server-only", ["server-only"]], ["next-auth/react", ["next-auth/react"]]]))).toEqual(["node:fs", "crypto", "server-only"]);
    // next-auth.d.ts takes next-auth's types only: erased, so not followed.
    expect(runtimeImportsOf("lib/dashboard-session/next-auth.d.ts")).toEqual([]);
  });

  // lib/lazy-sdk.ts: a process that imports the app (a test file, a CLI command) does not pay for SDKs it may never use.
  it("the app's static imports reach no optional SDK: Stripe, MCP, ioredis, nodemailer, qrcode and the AWS SDK load at first use", () => {
    const optional = [/^stripe$/, /^@modelcontextprotocol\/sdk(\/|$)/, /^ioredis$/, /^nodemailer$/, /^qrcode$/, /^@aws-sdk\//];
    const reach = staticReach(["lib/api/app.ts", "lib/server/main.ts", "lib/cli/main.ts"]);
    expect(reach.has("lib/payments/stripe-client.ts") && reach.has("lib/providers/mcp-adapter.ts") && reach.has("lib/http/rate-limit.ts")).toBe(true);
    const eager = [...reach].filter(([mod]) => optional.some((p) => p.test(mod))).map(([, chain]) => chain.join(" → "));
    expect(eager).toEqual([]);
    // It would see one: the MCP server's module imports the SDK, and is itself loaded by import().
    expect(staticReach(["lib/mcp/answer.ts"]).has("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js")).toBe(true);
    expect(runtimeImportsOf("lib/api/routes/mcp.ts")).toContain("lib/mcp/answer");
  });

  it("closed vocabularies import nothing, so the schema, the API and the browser may all take them", () => {
    const vocab = sources("lib/vocab");
    expect(vocab).toContain("lib/vocab/roles.ts");
    expect(vocab.flatMap((file) => importsOf(file).map((m) => `${file} → ${m}`))).toEqual([]);
  });
});
