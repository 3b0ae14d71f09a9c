import { ulid } from "ulid";
import { v7 as uuidv7 } from "uuid";

/** Type-prefixed, time-ordered ids for opaque resources (`exe_...`, `srch_...`, `led_...`). */
export type IdPrefix = "acc" | "usr" | "exe" | "srch" | "led" | "cli" | "sal";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

/** UUIDs (v7, time-ordered) where the contract asks for uuids: usage events and API keys. */
export function newUuid(): string {
  return uuidv7();
}
