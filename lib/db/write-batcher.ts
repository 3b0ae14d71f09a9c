/**
 * Group commit for the writes of concurrent requests: jobs submitted while `maxInFlight` batches
 * are already running wait, and go together as ONE statement (one round trip, one commit) when a
 * batch finishes. With nothing in flight a job goes at once, alone, so a quiet server adds no
 * latency; under load the cost of a round trip and a commit is shared by up to `maxBatch` jobs.
 *
 * Jobs with the same `key` (e.g. the account whose balance row they lock) never share a batch: a
 * set-based statement handles each key once, and later jobs of that key wait for the next batch.
 * A batch that fails is retried job by job, so one bad job fails alone.
 */
export interface WriteBatcherOptions {
  maxInFlight: number;
  maxBatch: number;
}

interface Pending<J, R> {
  job: J;
  key: string | null;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export class WriteBatcher<J, R> {
  private queue: Pending<J, R>[] = [];
  private inFlight = 0;

  constructor(
    private readonly run: (jobs: J[]) => Promise<R[]>,
    private readonly options: WriteBatcherOptions,
  ) {}

  submit(job: J, key: string | null): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ job, key, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** The oldest jobs, up to `maxBatch`, at most one per key; the others keep their order. */
  private take(): Pending<J, R>[] {
    const batch: Pending<J, R>[] = [];
    const rest: Pending<J, R>[] = [];
    const keys = new Set<string>();
    for (const p of this.queue) {
      if (batch.length >= this.options.maxBatch || (p.key !== null && keys.has(p.key))) rest.push(p);
      else {
        if (p.key !== null) keys.add(p.key);
        batch.push(p);
      }
    }
    this.queue = rest;
    return batch;
  }

  private async flush(batch: Pending<J, R>[]): Promise<void> {
    try {
      const results = await this.run(batch.map((p) => p.job));
      batch.forEach((p, i) => p.resolve(results[i]));
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      await Promise.all(
        batch.map((p) =>
          this.run([p.job]).then(
            (r) => p.resolve(r[0]),
            (e: unknown) => p.reject(e),
          ),
        ),
      );
    }
  }
}
