import { IncomingMessage, ServerResponse } from "node:http";
import type { NodeBindings } from "./context";

/**
 * After a 413 the rest of the request body is read and dropped, up to 64 MiB or 10 s, whichever
 * comes first, and only then is the connection closed. Closing at once resets the connection while
 * the client is still sending, and a client that reads only once it has sent everything (urllib,
 * Node's http, often fetch) gets EPIPE instead of the 413.
 */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
export const DRAIN_MAX_MS = 10_000;

/** Node's HTTP/1 request and response, when the API runs under a Node server. */
export interface Http1Exchange {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

export function http1Exchange(node: NodeBindings | undefined): Http1Exchange | undefined {
  if (!node || !(node.incoming instanceof IncomingMessage) || !(node.outgoing instanceof ServerResponse)) return undefined;
  return { incoming: node.incoming, outgoing: node.outgoing };
}

/**
 * The request body, or undefined once it passes `limit` bytes (the stream is then left paused,
 * unread, for `answerThenDrain`).
 */
export function readBodyWithin(incoming: IncomingMessage, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => incoming.off("data", onData).off("end", onEnd).off("error", onError);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stop();
      incoming.pause();
      resolve(undefined);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      stop();
      reject(err);
    };
    incoming.on("data", onData).on("end", onEnd).on("error", onError);
  });
}

/**
 * Writes the whole answer at once, then reads and drops the rest of the request body (within
 * DRAIN_MAX_BYTES and DRAIN_MAX_MS) before ending the response, which closes the connection.
 */
export function answerThenDrain({ incoming, outgoing }: Http1Exchange, status: number, body: string): void {
  outgoing.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), Connection: "close" });
  // Not ended yet: Node closes a `Connection: close` socket as soon as the response ends.
  outgoing.write(body);
  let drained = 0;
  const finish = () => {
    clearTimeout(timer);
    incoming.off("data", onData).off("end", finish).off("close", finish);
    outgoing.end();
  };
  const onData = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_MAX_BYTES) finish();
  };
  const timer = setTimeout(finish, DRAIN_MAX_MS).unref();
  if (incoming.readableEnded) return finish();
  incoming.on("data", onData).once("end", finish).once("close", finish);
  incoming.resume();
}
