import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrationsFolder } from "../db/migrate";

/**
 * A hash of the checked-in migrations and of the functions installed after them
 * (lib/db/lean-functions.ts): the cached test database template is rebuilt when they change.
 */
export function migrationsHash(): string {
  const hash = crypto.createHash("sha256");
  for (const file of fs.readdirSync(migrationsFolder, { recursive: true }).map(String).sort()) {
    const full = path.join(migrationsFolder, file);
    if (fs.statSync(full).isFile()) hash.update(file).update(fs.readFileSync(full));
  }
  hash.update(fs.readFileSync(path.join(migrationsFolder, "..", "lean-functions.ts")));
  return hash.digest("hex").slice(0, 16);
}

export function pgliteTemplatePath(): string {
  return path.join(os.tmpdir(), `tollgate-test-pglite-${migrationsHash()}.tar.gz`);
}

export function pgTemplateName(): string {
  return `tollgate_tmpl_${migrationsHash()}`;
}

/** Test databases are named `tollgate_t_<run>_<random>`; `<run>` is the base-36 time the run started and a random tag. */
const TEST_DB_PREFIX = "tollgate_t_";
/** Databases of a run this old are dropped by any later run's start, connected or not (a run takes minutes, not hours). */
const ABANDONED_AFTER_MS = 12 * 3_600_000;

/** This run's tag, made by the first global setup of the run and inherited by its test files' processes. */
export function testRunTag(): string {
  process.env.TOLLGATE_TEST_RUN ??= `${Date.now().toString(36)}${crypto.randomBytes(2).toString("hex")}`;
  return process.env.TOLLGATE_TEST_RUN;
}

/** A new database name of this run. */
export function testDatabaseName(): string {
  return `${TEST_DB_PREFIX}${testRunTag()}_${crypto.randomBytes(5).toString("hex")}`;
}

/**
 * Whether a run's teardown or start may drop a test database nobody is connected to: this run's
 * own, or a run's abandoned long ago (or named before runs were tagged). Another run going on
 * beside this one keeps its databases, even between connections.
 */
export function mayDropTestDatabase(name: string, now = Date.now()): boolean {
  if (!name.startsWith(TEST_DB_PREFIX)) return false;
  const rest = name.slice(TEST_DB_PREFIX.length);
  const end = rest.indexOf("_");
  if (end < 0) return true; // named before runs were tagged
  const tag = rest.slice(0, end);
  if (tag === testRunTag()) return true;
  const started = parseInt(tag.slice(0, -4), 36);
  return !Number.isFinite(started) || now - started > ABANDONED_AFTER_MS;
}

export function adminUrl(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
