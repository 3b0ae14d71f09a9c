import { logger } from "../log";

export type Cell = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;
const NEEDS_QUOTES = /[",\r\n]/;
/** Either of the above: most cells have neither, and are written as they are after this one test. */
const NEEDS_WORK = /^[=+\-@\t\r]|[",\r\n]/;

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

/** RFC 4180: a field holding a quote, comma, CR or LF is quoted, its quotes doubled; any other stays as it is. */
function quoted(s: string): string {
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** One CSV field: guarded, then quoted (byte for byte what csv-stringify wrote with its defaults). */
export function csvField(value: Cell): string {
  if (value === null || value === undefined) return "";
  const s = typeof value === "string" ? value : typeof value === "boolean" ? (value ? "true" : "false") : String(value);
  return NEEDS_WORK.test(s) ? quoted(guardCell(s)) : s;
}

/** One CSV record, with its line feed. */
export function csvLine(cells: Cell[]): string {
  let line = csvField(cells[0]);
  for (let i = 1; i < cells.length; i++) line += `,${csvField(cells[i])}`;
  return `${line}\n`;
}

/** The header record, with its line feed. */
export const headerLine = (header: string[]) => `${header.map(quoted).join(",")}\n`;

/**
 * At most about this much CSV a batch: rows are a few hundred bytes, but `include_details` payloads
 * can be far larger, and memory is bounded by batches, not rows.
 */
const BATCH_BYTES = 2 * 1024 * 1024;
/** Response chunks: short-lived strings for the young generation, not one rope per batch. */
const CHUNK_CHARS = 64 * 1024;
/** The next batch is read while less than this waits for the response. */
export const QUEUED_BYTES = 1024 * 1024;

/**
 * A CSV body streamed in keyset batches: each batch is one indexed range query after the last row
 * of the previous one. A batch is written as soon as it arrives, so its rows die young and what
 * waits for the response is bytes, not row objects; the next batch is read meanwhile only while
 * less than `QUEUED_BYTES` wait. Node's response takes a chunk only when the socket has drained the
 * last, so memory stays bounded by about two batches and a megabyte whatever the export size.
 */
export function keysetCsvStream<R>(opts: {
  header: string[];
  /** The most rows a batch may have; fewer when rows are large (`BATCH_BYTES`). */
  batchSize: number;
  fetch: (after: R | null, limit: number) => Promise<R[]>;
  cells: (row: R) => Cell[];
}): ReadableStream<Uint8Array> {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let after: R | null = null;
  let limit = opts.batchSize;
  let reading = false;
  let finished = false;
  let head = headerLine(opts.header);

  const write = (batch: R[]): number => {
    let text = head;
    head = "";
    let bytes = 0;
    const flush = () => {
      const chunk = Buffer.from(text);
      bytes += chunk.length;
      controller.enqueue(chunk);
      text = "";
    };
    for (const r of batch) {
      text += csvLine(opts.cells(r));
      if (text.length >= CHUNK_CHARS) flush();
    }
    if (text.length > 0) flush();
    return bytes;
  };

  const readBatch = async () => {
    const requested = limit;
    const batch = await opts.fetch(after, requested);
    reading = false;
    if (finished) return;
    const full = batch.length === requested;
    if (full) {
      after = batch[batch.length - 1];
      // PostgreSQL reads the next batch while this one is written.
      read();
    }
    const bytes = write(batch);
    if (batch.length > 0) limit = Math.max(1, Math.min(opts.batchSize, Math.floor((BATCH_BYTES * batch.length) / bytes)));
    if (!full) {
      finished = true;
      controller.close();
    }
  };

  const read = () => {
    if (reading || finished || (controller.desiredSize ?? 0) <= 0) return;
    reading = true;
    readBatch().catch((err: Error) => {
      if (finished) return;
      finished = true;
      logger.error({ err: err.message }, "CSV export failed mid-stream");
      controller.error(err);
    });
  };

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        read();
      },
      pull: read,
      cancel() {
        finished = true;
      },
    },
    { highWaterMark: QUEUED_BYTES, size: (chunk) => chunk.byteLength },
  );
}
