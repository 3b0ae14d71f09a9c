import pino from "pino";
import { logLevel } from "./env";

const level = logLevel();

/**
 * Access lines (one per request) are joined here and handed to the destination in 8 KB chunks (and
 * at least every 250 ms, and on exit) instead of one write system call per line: on this machine
 * such a call costs about as much as serving a small request, and sonic-boom, given lines one by
 * one, measures the byte length of its whole pending buffer on every write. Other log lines are
 * rare: they flush the pending access lines first, so order holds, and are written at once.
 */
const destination = pino.destination({ dest: 1, sync: false });
const ACCESS_CHUNK = 8192;
let pendingAccess = "";
/** Where lines go: stdout, unless `redirectLogs` has taken them. */
let out: (chunk: string) => void = (chunk) => destination.write(chunk);

function flushAccess(): void {
  if (pendingAccess === "") return;
  const chunk = pendingAccess;
  pendingAccess = "";
  out(chunk);
}

const ordered = {
  write(line: string) {
    flushAccess();
    out(line);
  },
  flush(cb?: (err?: Error) => void) {
    flushAccess();
    destination.flush(cb);
  },
};

if (level !== "silent") {
  setInterval(flushAccess, 250).unref();
  process.once("exit", () => {
    flushAccess();
    destination.flushSync();
  });
}

const base = { service: "tollgate" };

/**
 * Structured JSON logs. Secrets never reach them: credential-bearing fields are redacted
 * wherever they appear, and request logs carry only method, path, status, timing and ids.
 */
export const logger = pino(
  {
    level,
    base,
    redact: {
      paths: [
        "authorization",
        "*.authorization",
        "headers.authorization",
        "password",
        "*.password",
        "api_key",
        "*.api_key",
        "token",
        "*.token",
        "client_secret",
        "*.client_secret",
        "access_token",
        "*.access_token",
        "refresh_token",
        "*.refresh_token",
      ],
      censor: "[redacted]",
    },
  },
  ordered,
);

const logsAccess = (l: string) => pino.levels.values[l] !== undefined && pino.levels.values[l] <= pino.levels.values.info;
let accessEnabled = logsAccess(level);

/**
 * Sends every line (access lines too) to `sink` at `atLevel` until the returned function restores
 * stdout and the level before: for a process that embeds the API and ships its own logs, and for
 * the test that reads everything a run logged (lib/security/secrets.int.test.ts).
 */
export function redirectLogs(sink: (chunk: string) => void, atLevel: pino.LevelWithSilent = level): () => void {
  flushAccess();
  const before = { out, level: logger.level };
  out = sink;
  logger.level = atLevel;
  accessEnabled = logsAccess(atLevel);
  return () => {
    flushAccess();
    out = before.out;
    logger.level = before.level;
    accessEnabled = logsAccess(before.level);
  };
}

/**
 * The per-request access line (`lib/http/request-context.ts`), in pino's line format (level 30).
 * Its fields are fixed and none is a secret, so it is composed directly: pino's generic
 * serialisation and redaction cost about a tenth of a small request.
 */
export function logAccess(fields: { requestId: string; method: string; path: string; status: number; ms: number; account?: string }): void {
  if (!accessEnabled) return;
  const account = fields.account === undefined ? "" : `,"account":${JSON.stringify(fields.account)}`;
  // requestId is validated ([\w.:-]) or a UUID and method an HTTP token: neither needs escaping.
  pendingAccess +=
    `{"level":30,"time":${Date.now()},"service":"tollgate","requestId":"${fields.requestId}","method":"${fields.method}",` +
    `"path":${JSON.stringify(fields.path)},"status":${fields.status},"ms":${fields.ms}${account}}\n`;
  if (pendingAccess.length >= ACCESS_CHUNK) flushAccess();
}
