// Imported first by the production server (lib/server/main.ts), before any module allocates much.
//
// V8's allocation-site pretenuring watches where young objects survive a scavenge and, when most
// of a site's objects do, allocates that site's objects straight in the old space from then on. A
// Call's objects live for one request (a few ms), but under a sustained 50-connection load enough
// of them are still in flight at each scavenge that V8 marks their sites "tenure", and the
// decision sticks after the load is over: at 200 Calls/s the server then promoted ~7-8 KB per
// Call and ran a mark-compact every 3-4 s, the source of the Call's p99 tail (docs/call.md).
// Without pretenuring the same objects die young: ~1.5 KB promoted per Call, a mark-compact
// every 15 s or more. Setting the flag here rather than on the command line covers every way
// the server is started (`npm start`, `node dist/server.mjs`, a container's entry point); a
// command line that names the flag (`node --allocation-site-pretenuring dist/server.mjs`) wins.
// `--single-threaded-gc` cannot be set here (V8 aborts at its next collection when it changes
// after start): `npm start`'s command line gives it (lib/build/server-node-options.mjs).
import v8 from "node:v8";

const namedOnCommandLine = process.execArgv.some((arg) => /^--(no-)?allocation[-_]site[-_]pretenuring$/.test(arg));

if (!namedOnCommandLine) v8.setFlagsFromString("--no-allocation-site-pretenuring");
