import { AsyncLocalStorage } from "node:async_hooks";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPageContextGate, type PageContextGate } from "./page-context-gate";

const IDLE_MS = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("page context gate", () => {
  const storage = new AsyncLocalStorage<string>();
  let gate: PageContextGate;
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    gate = installPageContextGate(IDLE_MS);
    // A page as Next renders one: its store is set by run() and read after awaits.
    server = http.createServer((req, res) => {
      gate.track(res);
      const page = new URL(req.url ?? "/", "http://x").searchParams;
      void storage.run(page.get("name") ?? "", async () => {
        await sleep(Number(page.get("ms") ?? 0));
        await Promise.resolve();
        res.end(storage.getStore() ?? "(none)");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    gate.uninstall();
    await new Promise((r) => server.close(r));
  });

  const page = (name: string, ms = 0) => fetch(`${base}/?name=${name}&ms=${ms}`).then((r) => r.text());

  it("a page keeps its store across awaits, and once no page has been served for the delay the storages are off", async () => {
    expect(await page("first", 20)).toBe("first");
    expect(gate.inUse).toBe(1);
    // A continuation made in a store before the switch-off reads no store after it: propagation is off.
    let release!: () => void;
    const later = storage.run("outside", () => new Promise<void>((r) => (release = r)).then(() => storage.getStore()));
    await sleep(IDLE_MS * 4);
    expect(gate.inUse).toBe(0);
    release();
    expect(await later).toBeUndefined();
  });

  it("a page in flight when the last one closed keeps the storages on until it closes too", async () => {
    const long = page("long", IDLE_MS * 6);
    await sleep(5);
    expect(await page("short")).toBe("short");
    // The short page closed and the delay passed while the long one still renders.
    await sleep(IDLE_MS * 3);
    expect(gate.inUse).toBe(1);
    expect(await long).toBe("long");
    await sleep(IDLE_MS * 4);
    expect(gate.inUse).toBe(0);
  });

  it("the next page after a switch-off switches its storage on again", async () => {
    await sleep(IDLE_MS * 4);
    expect(gate.inUse).toBe(0);
    expect(await page("again", 20)).toBe("again");
  });
});
