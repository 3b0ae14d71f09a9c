// Reading and converting an OpenAPI document in a worker thread. A publisher's 3 MB document
// becomes hundreds of MB of short-lived objects (the YAML tree, swagger2openapi's copy, the
// dereferenced document) and seconds of CPU. In the server's own thread that stalls every request
// for as long, and V8 keeps the pages it grew into afterwards (+50 to +190 MB of server RSS per
// import, measured with `bench:search`); a worker's heap is released whole when it exits, and
// only the manifest comes back. Errors come back as the classes the caller distinguishes.
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { ManifestError } from "../manifest";
import { manifestFromOpenApi, type OpenApiImport } from "./convert";
import { readApiDocument } from "./read";
import { type OpenApiImportOptions, OpenApiOptionError } from "./types";

export interface ConvertRequest {
  location: string;
  options: Omit<OpenApiImportOptions, "documentUrl">;
}

export type SerializedError = { kind: "manifest"; message: string; issues: { path: string; message: string }[] } | { kind: "option" | "error"; message: string };

export type ConvertReply = { ok: true; converted: OpenApiImport } | { ok: false; error: SerializedError };

export function serializeError(err: unknown): SerializedError {
  if (err instanceof ManifestError) return { kind: "manifest", message: err.message, issues: err.issues };
  return { kind: err instanceof OpenApiOptionError ? "option" : "error", message: err instanceof Error ? err.message : String(err) };
}

function revive(error: SerializedError): Error {
  if (error.kind === "manifest") return new ManifestError(error.message, error.issues);
  return error.kind === "option" ? new OpenApiOptionError(error.message) : new Error(error.message);
}

let bundled: URL | undefined;

/** The production server (lib/server/main.ts) names the worker bundled beside it, dist/openapi-worker.mjs. */
export function useBundledOpenApiWorker(script: URL): void {
  bundled = script;
}

/**
 * The worker's script: the bundled one; from the TypeScript sources (tests, `npm run cli`) the
 * source through tsx's loader; none in `next dev`'s bundle, which converts in its own thread.
 */
function workerScript(): URL | string | undefined {
  if (bundled) return bundled;
  const here = fileURLToPath(import.meta.url);
  return here.endsWith(".ts") ? here.replace(/isolated\.ts$/, "convert-worker-source.mjs") : undefined;
}

/** Reads the document and converts it: the worker's whole work, and `next dev`'s in its own thread. */
export async function readAndConvert(location: string, options: ConvertRequest["options"]): Promise<OpenApiImport> {
  const { document, url } = await readApiDocument(location, { allowPrivateNetwork: options.allowPrivateNetwork });
  return manifestFromOpenApi(document, { ...options, documentUrl: url });
}

/** `readApiDocument` then `manifestFromOpenApi`, in a worker thread that ends with the conversion. */
export async function convertOpenApiInWorker(location: string, options: ConvertRequest["options"]): Promise<OpenApiImport> {
  const script = workerScript();
  if (script === undefined) return readAndConvert(location, options);
  return new Promise((resolve, reject) => {
    let answered = false;
    const worker = new Worker(/* turbopackIgnore: true */ script, { workerData: { location, options } satisfies ConvertRequest });
    worker.once("message", (reply: ConvertReply) => {
      answered = true;
      if (reply.ok) resolve(reply.converted);
      else reject(revive(reply.error));
      // Whatever it still holds open (a fetch's kept-alive socket) goes with it.
      void worker.terminate();
    });
    worker.once("error", (err) => {
      answered = true;
      reject(new Error(`Cannot import OpenAPI document ${location}: ${err.message}`));
    });
    worker.once("exit", (code) => {
      if (!answered) reject(new Error(`Cannot import OpenAPI document ${location}: the conversion stopped (exit code ${code})`));
    });
  });
}
