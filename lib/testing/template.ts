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

export function adminUrl(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
