import { eq, sql } from "drizzle-orm";
import { connections, connectionStates, providerOauthApps } from "../db/schema";
import type { Db } from "../db/types";
import { keyIdOf, open, seal, vault } from "./vault";
import { tokenContext, verifierContext } from "../connections/connections";
import { OAUTH_APP_SECRET_CONTEXT } from "../connections/oauth-client";

/**
 * Re-seals every vault ciphertext under the current key (`vault rekey`): the old key must still be
 * listed in VAULT_PREVIOUS_KEYS. Each row is rewritten in its own transaction, locked, so Calls
 * refreshing a token meanwhile are not lost; ciphertexts already under the current key are left.
 */
export async function rekeyVault(db: Db): Promise<{ key_id: string; resealed: number; already_current: number }> {
  const v = vault();
  let resealed = 0;
  let current = 0;
  const needs = (sealed: string | null) => sealed !== null && keyIdOf(sealed) !== v.current.id;
  const reseal = (sealed: string | null, context: string) => (sealed === null ? null : seal(open(sealed, context, v), context, v));

  for (const { id } of await db.select({ id: connections.id }).from(connections)) {
    await db.transaction(async (tx) => {
      const [row] = await tx.select().from(connections).where(eq(connections.id, id)).for("update");
      if (!row || (!needs(row.accessToken) && !needs(row.refreshToken))) {
        if (row?.accessToken || row?.refreshToken) current++;
        return;
      }
      await tx
        .update(connections)
        .set({ accessToken: reseal(row.accessToken, tokenContext("access_token", id)), refreshToken: reseal(row.refreshToken, tokenContext("refresh_token", id)) })
        .where(eq(connections.id, id));
      resealed++;
    });
  }
  for (const row of await db.select().from(connectionStates)) {
    if (!needs(row.codeVerifier)) {
      current++;
      continue;
    }
    await db
      .update(connectionStates)
      .set({ codeVerifier: reseal(row.codeVerifier, verifierContext(row.stateHash))! })
      .where(eq(connectionStates.stateHash, row.stateHash));
    resealed++;
  }
  for (const row of await db.select().from(providerOauthApps).where(sql`${providerOauthApps.clientSecret} IS NOT NULL`)) {
    if (!needs(row.clientSecret)) {
      current++;
      continue;
    }
    await db
      .update(providerOauthApps)
      .set({ clientSecret: reseal(row.clientSecret, OAUTH_APP_SECRET_CONTEXT(row.providerId)) })
      .where(eq(providerOauthApps.providerId, row.providerId));
    resealed++;
  }
  return { key_id: v.current.id, resealed, already_current: current };
}
