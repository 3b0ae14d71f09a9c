// bench:search, import at scale (issue #47 goal 6): what importing an OpenAPI document costs the
// running server. A fresh production server (embedded database) holds the public catalog
// (tools.jsonl, ~10,000 tools); each real document of `openapi/real/` is imported through the
// server's CLI (a new provider each round), then re-imported unchanged; and one tool of the
// catalog is changed by re-importing tools.jsonl with one description edited. Each figure stands
// beside a reference taken in the same round (a search with a warm index, the RSS before), and
// rounds interleave the documents: the machine is shared, medians are printed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sendAdminCommand } from "../server/admin-channel";
import { median, startProductServer, statusField, type RunningServer } from "./harness";

const ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 3);
/** A request over the whole catalog (no `source`): the index every import changes. */
const QUERY = { query: "upload a file to a folder", limit: 10 };
/** Time for the index rebuilt in the background to be done before the next figure. */
const SETTLE_MS = Number(process.env.BENCH_IMPORT_SETTLE_MS ?? 8_000);

interface ImportFigures {
  importMs: number;
  added: number;
  changed: number;
  rssBefore: number;
  rssImported: number;
  rssSearched: number;
  rssSettled: number;
  firstMs: number;
  warmMs: number;
  noopImportMs: number;
  noopAdded: number;
  noopChanged: number;
  noopFirstMs: number;
  noopWarmMs: number;
}

interface ChangeFigures {
  importMs: number;
  changed: number;
  firstMs: number;
  firstSourceMs: number;
  warmMs: number;
  warmSourceMs: number;
}

/** Prints the figures; `catalogDir` is ../shared/catalog (tools.jsonl and openapi/real/). */
export async function benchSearchImport(catalogDir: string): Promise<void> {
  const realDir = path.join(catalogDir, "openapi", "real");
  const documents = fs.readdirSync(realDir).filter((f) => /\.(json|ya?ml)$/.test(f)).sort();
  const toolsFile = path.join(catalogDir, "tools.jsonl");
  const lines = fs.readFileSync(toolsFile, "utf8").split("\n").filter(Boolean);
  const server = await startProductServer({ SEED_DEMO: "false" });
  try {
    const admin = (argv: string[]) => sendAdminCommand(server.dataDir, argv) as Promise<Record<string, unknown>>;
    const account = (await admin(["accounts", "create", "--name", "bench-import"])) as { account_id: string };
    const { api_key: key } = (await admin(["keys", "create", "--account", account.account_id, "--name", "bench"])) as { api_key: string };
    const search = (body: Record<string, unknown>) => timedSearch(server.url, key, body);
    const started = performance.now();
    await admin(["providers", "import", "--file", toolsFile]);
    const catalogMs = performance.now() - started;
    await search(QUERY);
    console.log(
      `\nimport at scale: ${lines.length} catalog tools imported in ${fmt(catalogMs / 1000)} s; server RSS ${fmt(rssMb(server), 0)} MB; ${ROUNDS} interleaved rounds, medians (search: ${JSON.stringify(QUERY.query)}, whole catalog)`,
    );

    const byDocument = new Map<string, ImportFigures[]>(documents.map((d) => [d, []]));
    const changes: ChangeFigures[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const document of documents) {
        byDocument.get(document)!.push(await importDocument(server, admin, search, path.join(realDir, document), `bench-${path.parse(document).name}-${round + 1}`));
      }
      changes.push(await changeOneTool(admin, search, lines, round));
    }

    const rows = documents.map((document) => {
      const f = byDocument.get(document)!;
      const m = (pick: (x: ImportFigures) => number) => median(f.map(pick));
      const size = fs.statSync(path.join(realDir, document)).size / 1024 / 1024;
      return [
        `${document} (${fmt(size)} MB, ${m((x) => x.added)} tools)`,
        fmt(m((x) => x.importMs), 0),
        `${fmt(m((x) => x.rssBefore), 0)} → ${fmt(m((x) => x.rssImported), 0)} → ${fmt(m((x) => x.rssSearched), 0)} → ${fmt(m((x) => x.rssSettled), 0)}`,
        signed(m((x) => x.rssSettled - x.rssBefore)),
        `${fmt(m((x) => x.firstMs), 0)} (warm ${fmt(m((x) => x.warmMs), 1)})`,
        `${fmt(m((x) => x.noopImportMs), 0)}: ${m((x) => x.noopAdded)} added, ${m((x) => x.noopChanged)} changed`,
        `${fmt(m((x) => x.noopFirstMs), 1)} (warm ${fmt(m((x) => x.noopWarmMs), 1)})`,
      ];
    });
    console.log(
      `\n${table(["document", "import ms", "RSS MB: before → imported → searched → settled", "RSS added", "first search ms", "no-op re-import ms", "first search after it ms"], rows)}`,
    );
    const worst = Math.max(...rows.map((_, i) => median(byDocument.get(documents[i])!.map((x) => x.rssSettled - x.rssBefore))));
    console.log(`RSS added by one document once searched (largest median): ${signed(worst)} MB vs goal <= 30 MB -> ${worst <= 30 ? "met" : "NOT met"}`);
    const noopBumps = [...byDocument.values()].flat().filter((x) => x.noopAdded + x.noopChanged > 0).length;
    console.log(`no-op re-imports that wrote something: ${noopBumps} (goal 0)`);

    const c = (pick: (x: ChangeFigures) => number) => median(changes.map(pick));
    console.log(
      `\none tool changed in the ${lines.length}-tool catalog (tools.jsonl re-imported with one description edited: ${c((x) => x.changed)} changed, ${fmt(c((x) => x.importMs), 0)} ms): ` +
        `first search ${fmt(c((x) => x.firstMs), 1)} ms (warm ${fmt(c((x) => x.warmMs), 1)} ms), with its source ${fmt(c((x) => x.firstSourceMs), 1)} ms (warm ${fmt(c((x) => x.warmSourceMs), 1)} ms); ` +
        `goal <= 200 ms -> ${Math.max(c((x) => x.firstMs), c((x) => x.firstSourceMs)) <= 200 ? "met" : "NOT met"}`,
    );
    console.log(collections(server));
  } finally {
    await server.stop();
  }
}

/** The collections the server ran after replacing an index (lib/search/release-replaced.ts), from its log. */
function collections(server: RunningServer): string {
  const pauses = fs
    .readFileSync(path.join(server.dataDir, "server.log"), "utf8")
    .split("\n")
    .filter((line) => line.includes("released the replaced search index"))
    .map((line) => Number((JSON.parse(line) as { ms: number }).ms));
  if (pauses.length === 0) return "full collections after an index replacement: none (the server runs without --expose-gc)";
  return `full collections after an index replacement: ${pauses.length}, pause median ${fmt(median(pauses), 0)} ms, max ${fmt(Math.max(...pauses), 0)} ms`;
}

type Admin = (argv: string[]) => Promise<Record<string, unknown>>;
type Search = (body: Record<string, unknown>) => Promise<number>;

async function importDocument(server: RunningServer, admin: Admin, search: Search, file: string, id: string): Promise<ImportFigures> {
  const warmMs = await search(QUERY);
  const rssBefore = rssMb(server);
  let started = performance.now();
  const first = await admin(["providers", "import", "--openapi", file, "--id", id]);
  const importMs = performance.now() - started;
  const rssImported = rssMb(server);
  const firstMs = await search(QUERY);
  const rssSearched = rssMb(server);
  await settle(search);
  const rssSettled = rssMb(server);
  const noopWarmMs = await search(QUERY);
  started = performance.now();
  const again = await admin(["providers", "import", "--openapi", file, "--id", id]);
  const noopImportMs = performance.now() - started;
  const noopFirstMs = await search(QUERY);
  return {
    importMs,
    added: Number(first.added),
    changed: Number(first.changed),
    rssBefore,
    rssImported,
    rssSearched,
    rssSettled,
    firstMs,
    warmMs,
    noopImportMs,
    noopAdded: Number(again.added),
    noopChanged: Number(again.changed),
    noopFirstMs,
    noopWarmMs,
  };
}

/** Re-imports the catalog with one tool's description edited (the same tool, a new text each round). */
async function changeOneTool(admin: Admin, search: Search, lines: string[], round: number): Promise<ChangeFigures> {
  const at = Math.floor(lines.length / 2);
  const tool = JSON.parse(lines[at]) as { description: string; source: string };
  const edited = [...lines];
  edited[at] = JSON.stringify({ ...tool, description: `${tool.description} (revised ${round + 1})` });
  const file = path.join(os.tmpdir(), `tollgate-bench-change-${process.pid}.jsonl`);
  fs.writeFileSync(file, `${edited.join("\n")}\n`);
  try {
    const warmMs = await search(QUERY);
    const warmSourceMs = await search({ ...QUERY, source: tool.source });
    const started = performance.now();
    const result = await admin(["providers", "import", "--file", file]);
    const importMs = performance.now() - started;
    const firstMs = await search(QUERY);
    const firstSourceMs = await search({ ...QUERY, source: tool.source });
    await settle(search);
    return { importMs, changed: Number(result.changed), firstMs, firstSourceMs, warmMs, warmSourceMs };
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** Waits for a background rebuild, then searches once (the settled figures follow a search). */
async function settle(search: Search): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  await search(QUERY);
}

async function timedSearch(url: string, key: string, body: Record<string, unknown>): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/api/v1/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`POST /search answered ${res.status}`);
  return ms;
}

function rssMb(server: RunningServer): number {
  return server.child.pid === undefined ? Number.NaN : statusField(server.child.pid, "VmRSS") / 1024;
}

function fmt(n: number, digits = 1): string {
  return n.toFixed(digits);
}

function signed(n: number): string {
  return `${n >= 0 ? "+" : ""}${fmt(n, 0)}`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}
