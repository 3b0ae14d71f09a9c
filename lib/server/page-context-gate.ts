import { AsyncLocalStorage } from "node:async_hooks";
import type { ServerResponse } from "node:http";

/** How long after the last page request's response closed the storages are switched off. */
const IDLE_MS = 2_000;

type Storage = AsyncLocalStorage<unknown>;

export interface PageContextGate {
  /** A page request starts; its storages stay on until `res` closes and no other page runs. */
  track(res: ServerResponse): void;
  /** Storages used since they were last switched off. */
  readonly inUse: number;
  /** Puts AsyncLocalStorage's methods back as they were (tests). */
  uninstall(): void;
}

/**
 * Node 20 carries every AsyncLocalStorage through a hook that runs on each promise the process
 * creates, once any storage has been used. Next and React switch five storages on at the first
 * page they render and never off: from then on each promise of each API request (a Call makes
 * about 130) pays five propagations, about a fifth of a Call's CPU. The gate learns the storages
 * as they are used and disables them once no page has been served for `idleMs`; the next page's
 * first `run` switches them on again. The API itself uses no storage.
 */
export function installPageContextGate(idleMs = IDLE_MS): PageContextGate {
  const methods = AsyncLocalStorage.prototype as unknown as Record<string, (this: Storage, ...args: unknown[]) => unknown>;
  const used = new Set<Storage>();
  const originals = new Map<string, (this: Storage, ...args: unknown[]) => unknown>();
  // run, enterWith and exit are what switch a storage on (Node 20); disable() switches it off.
  for (const name of ["run", "enterWith", "exit"]) {
    const original = methods[name];
    originals.set(name, original);
    methods[name] = function (this: Storage, ...args: unknown[]) {
      used.add(this);
      return original.apply(this, args);
    };
  }
  let inFlight = 0;
  let timer: NodeJS.Timeout | undefined;
  const switchOff = () => {
    timer = undefined;
    if (inFlight > 0) return;
    for (const storage of used) storage.disable();
    used.clear();
  };
  return {
    track(res) {
      inFlight++;
      if (timer) clearTimeout(timer);
      timer = undefined;
      res.once("close", () => {
        if (--inFlight === 0) {
          timer = setTimeout(switchOff, idleMs);
          timer.unref();
        }
      });
    },
    get inUse() {
      return used.size;
    },
    uninstall() {
      if (timer) clearTimeout(timer);
      for (const [name, original] of originals) methods[name] = original;
    },
  };
}
