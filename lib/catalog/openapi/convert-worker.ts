// The worker thread of `convertOpenApiInWorker` (isolated.ts): reads one document, converts it,
// posts the result or the error, and exits with everything it allocated.
import { parentPort, workerData } from "node:worker_threads";
import { manifestFromOpenApi } from "./convert";
import { readApiDocument } from "./read";
import { serializeError, type ConvertRequest, type ConvertReply } from "./isolated";

const { location, options } = workerData as ConvertRequest;
let reply: ConvertReply;
try {
  const { document, url } = await readApiDocument(location, { allowPrivateNetwork: options.allowPrivateNetwork });
  reply = { ok: true, converted: await manifestFromOpenApi(document, { ...options, documentUrl: url }) };
} catch (err) {
  reply = { ok: false, error: serializeError(err) };
}
parentPort!.postMessage(reply);
