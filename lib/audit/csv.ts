import { Readable, pipeline } from "node:stream";
import { stringify } from "csv-stringify";
import { logger } from "../log";

export type Cell = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * Spreadsheet formula-injection guard (OWASP "CSV injection"): a text cell starting with
 * = + - @ TAB or CR is prefixed with a single quote so spreadsheets show it as text. Plain numbers
 * (e.g. a negative ledger amount) are data, not formulas, and stay as they are.
 */
export function guardCell(value: Cell): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return value ? "true" : "false";
  const s = String(value);
  return FORMULA_START.test(s) && !PLAIN_NUMBER.test(s) ? `'${s}` : s;
}

/** Serialises a JSON column for one cell. */
export function jsonCell(value: unknown): string {
  return value === null || value === undefined ? "" : JSON.stringify(value);
}

/**
 * A CSV body streamed in keyset batches: each batch is one indexed range query after the last row
 * of the previous one, read while the previous batch is still being written. Rows flow through
 * csv-stringify's streaming stringifier into the response; Node stream backpressure paces the
 * reads, so memory stays bounded by about two batches whatever the export size.
 */
export function keysetCsvStream<R>(opts: {
  header: string[];
  batchSize: number;
  fetch: (after: R | null, limit: number) => Promise<R[]>;
  cells: (row: R) => Cell[];
}): ReadableStream<Uint8Array> {
  let next: Promise<R[]> | null = opts.fetch(null, opts.batchSize);
  const rows = new Readable({
    objectMode: true,
    highWaterMark: opts.batchSize,
    read() {
      const current = next;
      if (!current) return;
      next = null;
      current.then(
        (batch) => {
          if (this.destroyed) return;
          const full = batch.length === opts.batchSize;
          if (full) next = opts.fetch(batch[batch.length - 1], opts.batchSize);
          for (const r of batch) this.push(opts.cells(r).map(guardCell));
          if (!full) this.push(null);
        },
        (err: Error) => this.destroy(err),
      );
    },
    destroy(err, callback) {
      // A read still in flight settles unobserved.
      next?.catch(() => undefined);
      next = null;
      callback(err);
    },
  });
  const csv = stringify({ header: true, columns: opts.header });
  pipeline(rows, csv, (err) => {
    if (err && err.code !== "ERR_STREAM_PREMATURE_CLOSE") logger.error({ err: err.message }, "CSV export failed mid-stream");
  });
  return coalesced(csv, 64 * 1024);
}

/** The stringifier emits one chunk per record: hand the response ~64 KB chunks instead. */
function coalesced(source: Readable, size: number): ReadableStream<Uint8Array> {
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const parts: Buffer[] = [];
      let length = 0;
      let done = false;
      while (length < size) {
        const next = await chunks.next();
        if (next.done) {
          done = true;
          break;
        }
        parts.push(next.value);
        length += next.value.length;
      }
      if (length > 0) controller.enqueue(Buffer.concat(parts, length));
      if (done) controller.close();
    },
    async cancel() {
      await chunks.return?.();
    },
  });
}
