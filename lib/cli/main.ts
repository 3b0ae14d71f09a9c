// The admin CLI: `npm run --silent cli -- <command> ... [--json]`
import path from "node:path";
import { env, dataDir } from "../env";
import { openDatabase } from "../db/open";
import { migrateDatabase } from "../db/migrate";
import { lockHolder } from "../db/lock";
import { DomainError } from "../errors";
import { sendAdminCommand } from "../server/admin-channel";
import { parseCommand, runCommand, usageText, UsageError } from "./commands";

/** Options that name a file (`--openapi` also takes a URL, `--digests` an s3:// location, left as they are). */
const PATH_OPTIONS = ["--file", "--openapi", "--price-per-operation", "--digests", "--public-key", "--client-secret-file"];
const absolute = (value: string) => (/^(https?|s3):\/\//i.test(value) ? value : path.resolve(value));

/** Paths are resolved here, in the caller's working directory, before a command may travel to the server. */
function absolutisePaths(argv: string[]): string[] {
  return argv.map((arg, i) => {
    if (PATH_OPTIONS.includes(argv[i - 1])) return absolute(arg);
    const option = PATH_OPTIONS.find((o) => arg.startsWith(`${o}=`));
    return option ? `${option}=${absolute(arg.slice(option.length + 1))}` : arg;
  });
}

async function execute(argv: string[], json: boolean): Promise<unknown> {
  parseCommand(argv);
  const e = env();
  const progress = json ? undefined : (message: string) => process.stderr.write(`${message}\n`);
  if (e.DATABASE_URL) {
    const database = await openDatabase({ kind: "postgres", url: e.DATABASE_URL, poolSize: 2 });
    try {
      await migrateDatabase(database);
      return await runCommand(database.db, argv, { progress });
    } finally {
      await database.close();
    }
  }
  const pgdata = path.join(dataDir(), "pgdata");
  // The embedded database belongs to one process: while a server holds it, go through its admin channel.
  if (lockHolder(pgdata) !== undefined) return sendAdminCommand(dataDir(), argv, progress);
  const database = await openDatabase({ kind: "pglite", dataDir: pgdata });
  try {
    await migrateDatabase(database);
    return await runCommand(database.db, argv, { progress });
  } finally {
    await database.close();
  }
}

function isFailedCheck(result: unknown): boolean {
  return typeof result === "object" && result !== null && (result as { ok?: unknown }).ok === false;
}

async function main() {
  const raw = process.argv.slice(2);
  const json = raw.includes("--json");
  if (raw.length === 0 || raw[0] === "help" || raw.includes("--help")) {
    process.stdout.write(`${usageText()}\n`);
    return;
  }
  try {
    const result = await execute(absolutisePaths(raw), json);
    // A command that answers text (a CSV) is printed as it is.
    if (typeof result === "string" && !json) process.stdout.write(result);
    else process.stdout.write(json ? `${JSON.stringify(result)}\n` : `${JSON.stringify(result, null, 2)}\n`);
    // A check's report (`audit verify`) that found something fails the command.
    if (isFailedCheck(result)) process.exitCode = 1;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (json) process.stdout.write(`${JSON.stringify({ error: message })}\n`);
    process.stderr.write(`error: ${message}\n`);
    if (err instanceof UsageError) process.stderr.write(`\n${usageText()}\n`);
    process.exitCode = err instanceof UsageError ? 2 : err instanceof DomainError ? 1 : 1;
  }
}

void main();
