import crypto from "node:crypto";
import { ulid } from "ulid";
import { v7 as uuidv7 } from "uuid";

/** Type-prefixed, time-ordered ids for opaque resources (`exe_...`, `srch_...`, `led_...`). */
export type IdPrefix = "acc" | "usr" | "exe" | "srch" | "led" | "cli" | "sal" | "whe" | "bud" | "act" | "inv" | "pay" | "rev" | "set" | "con";

// ulid's default source asks the CSPRNG for one byte per character, uuid's for 16 bytes per id
// (a measurable share of a Call's CPU): the same CSPRNG bytes, drawn 4 KiB at a time.
const POOL_SIZE = 4096;
let pool = crypto.randomBytes(POOL_SIZE);
let offset = 0;
function pooledBytes(n: number): Buffer {
  if (offset + n > POOL_SIZE) {
    pool = crypto.randomBytes(POOL_SIZE);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + n);
  offset += n;
  return bytes;
}
function pooledRandom(): number {
  return pooledBytes(1)[0] / 256;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid(undefined, pooledRandom).toLowerCase()}`;
}

/** UUIDs (v7, time-ordered) where the contract asks for uuids: usage events and API keys. */
export function newUuid(): string {
  return uuidv7({ random: pooledBytes(16) });
}

// A request id needs to be unique, not unguessable: a random tag per process (48 bits) and a
// counter, instead of a UUID per request (which costs ~4% of serving a small request).
const processTag = crypto.randomBytes(6).toString("hex");
let requestSeq = 0;

/** `req_<process tag>_<sequence>`: unique across processes and restarts, ordered within one. */
export function newRequestId(): string {
  return `req_${processTag}_${(++requestSeq).toString(36)}`;
}
