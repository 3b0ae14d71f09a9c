import fs from "node:fs";
import path from "node:path";
import type { Db } from "../db/types";
import { createAccount } from "../accounts/create-account";
import { createUser } from "../accounts/create-user";
import { createApiKey, isLiveApiKey } from "../auth/api-keys";
import { hasAnyAccount } from "../auth/app-secret";
import { importCatalog } from "../catalog/import";
import { loadManifestFile } from "../catalog/load";

export const DEMO_USER = { email: "demo@tollgate.local", password: "tollgate-demo" } as const;
export const SUPPORT_USER = { email: "support@tollgate.local", password: "tollgate-support" } as const;
export const DEMO_CATALOG = path.resolve(process.env.TOLLGATE_ROOT ?? process.cwd(), "lib/catalog/demo-catalog.json");

export interface DemoCredentials {
  account_id: string;
  email: string;
  password: string;
  /** Absent when the demo key has been revoked. */
  api_key?: string;
  support_email: string;
  support_password: string;
}

/** Imports (or updates) the shipped demo catalog; idempotent, run at every start. */
export async function syncDemoCatalog(db: Db) {
  return importCatalog(db, await loadManifestFile(DEMO_CATALOG));
}

/**
 * Seeds the demo account, user, API key and a support user when the database has no account.
 * The demo key's plaintext is kept in DATA_DIR (mode 0600) so later starts can print it again.
 */
export async function seedDemoIfEmpty(db: Db, dataDir: string): Promise<{ created: boolean; credentials?: DemoCredentials }> {
  const file = path.join(dataDir, "demo-credentials.json");
  if (await hasAnyAccount(db)) {
    let saved: DemoCredentials;
    try {
      saved = JSON.parse(fs.readFileSync(file, "utf8")) as DemoCredentials;
    } catch {
      return { created: false };
    }
    // A demo key revoked since is not advertised again.
    const keyWorks = saved.api_key !== undefined && (await isLiveApiKey(db, saved.api_key));
    return { created: false, credentials: keyWorks ? saved : { ...saved, api_key: undefined } };
  }
  const { account_id } = await createAccount(db, { name: "Demo", credits: "1000" });
  await createUser(db, { accountId: account_id, email: DEMO_USER.email, password: DEMO_USER.password, role: "owner" });
  const { api_key } = await createApiKey(db, { accountId: account_id, name: "demo" });
  const support = await createAccount(db, { name: "Tollgate Support" });
  await createUser(db, { accountId: support.account_id, email: SUPPORT_USER.email, password: SUPPORT_USER.password, role: "support" });
  const credentials: DemoCredentials = {
    account_id,
    email: DEMO_USER.email,
    password: DEMO_USER.password,
    api_key,
    support_email: SUPPORT_USER.email,
    support_password: SUPPORT_USER.password,
  };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(credentials, null, 2), { mode: 0o600 });
  return { created: true, credentials };
}
