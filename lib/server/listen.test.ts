import http from "node:http";
import net from "node:net";
import os from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { env } from "../env";
import { listen, listenLines, summarizeListen } from "./listen";

// HOST's default is read from a clean environment (env() parses it at its first call, in a test).
delete process.env.HOST;

/** This host's first non-loopback IPv4 address, if it has one. */
const hostAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

describe("HOST: what the server binds and what its banner prints", () => {
  it("defaults to loopback: the server answers on 127.0.0.1 and not on the host's other addresses", async () => {
    expect(env().HOST).toBe("127.0.0.1");
    const server = http.createServer((_req, res) => res.end("ok"));
    servers.push(server);
    const where = await listen(server, 0, env().HOST, undefined);
    const port = Number(new URL(where.bound).port);
    expect(where).toEqual({ bound: `http://127.0.0.1:${port}`, reach: "loopback only", publicUrl: undefined, local: `http://localhost:${port}`, open: `http://localhost:${port}` });
    expect(await connects("127.0.0.1", port)).toBe(true);
    if (hostAddress) expect(await connects(hostAddress, port)).toBe(false);
  });

  it("binds every interface only when HOST says so, and says so", async () => {
    const server = http.createServer();
    servers.push(server);
    const where = await listen(server, 0, "0.0.0.0", "https://gw.example.com");
    const port = Number(new URL(where.bound).port);
    expect(where).toMatchObject({ bound: `http://0.0.0.0:${port}`, reach: "every IPv4 interface", open: "https://gw.example.com" });
    if (hostAddress) expect(await connects(hostAddress, port)).toBe(true);
  });

  it("an address that cannot be bound rejects", async () => {
    await expect(listen(http.createServer(), 0, "203.0.113.1", undefined)).rejects.toMatchObject({ code: "EADDRNOTAVAIL" });
  });

  it("the banner prints the bound address, PUBLIC_URL when set, and localhost where it answers", () => {
    expect(listenLines(summarizeListen({ address: "127.0.0.1", family: "IPv4", port: 3000 }, undefined), "PostgreSQL")).toEqual([
      "Tollgate listening on http://127.0.0.1:3000 (loopback only; PostgreSQL)",
      "  On this machine: http://localhost:3000",
    ]);
    expect(listenLines(summarizeListen({ address: "::", family: "IPv6", port: 80 }, "https://gw.example.com"), "PostgreSQL")).toEqual([
      "Tollgate listening on http://[::]:80 (every interface; PostgreSQL)",
      "  Public URL:      https://gw.example.com",
      "  On this machine: http://localhost:80",
    ]);
    const one = summarizeListen({ address: "10.0.0.5", family: "IPv4", port: 3000 }, undefined);
    expect(one).toMatchObject({ reach: undefined, local: undefined, open: "http://10.0.0.5:3000" });
    expect(listenLines(one, "PostgreSQL")).toEqual(["Tollgate listening on http://10.0.0.5:3000 (PostgreSQL)"]);
    expect(summarizeListen({ address: "::1", family: "IPv6", port: 3000 }, undefined)).toMatchObject({ bound: "http://[::1]:3000", reach: "loopback only" });
  });
});
