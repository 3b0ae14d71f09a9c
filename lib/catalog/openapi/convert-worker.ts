// The worker thread of `convertOpenApiInWorker` (isolated.ts): reads one document, converts it,
// posts the result or the error, and exits with everything it allocated.
import { parentPort, workerData } from "node:worker_threads";
import { readAndConvert, serializeError, type ConvertRequest, type ConvertReply } from "./isolated";

const { location, options } = workerData as ConvertRequest;
let reply: ConvertReply;
try {
  reply = { ok: true, converted: await readAndConvert(location, options) };
} catch (err) {
  reply = { ok: false, error: serializeError(err) };
}
parentPort!.postMessage(reply);
