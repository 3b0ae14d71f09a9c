import type { Db } from "../db/types";
import { importCatalog } from "../catalog/import";
import { loadManifestFile } from "../catalog/load";
import { DEMO_CATALOG } from "../seed/seed-demo";
import { invalidateToolCache } from "../catalog/get-tool";
import { parseManifest, type ManifestInput } from "../catalog/manifest";

/** Imports the shipped demo catalog (builtin tools) into a test database. */
export async function importDemoCatalog(db: Db) {
  const result = await importCatalog(db, await loadManifestFile(DEMO_CATALOG));
  invalidateToolCache(db);
  return result;
}

/** Imports a manifest written inline by a test (e.g. an http provider pointing at a local fake). */
export async function importManifest(db: Db, manifest: ManifestInput) {
  const result = await importCatalog(db, parseManifest(manifest, "test manifest"));
  invalidateToolCache(db);
  return result;
}
