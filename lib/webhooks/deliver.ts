import { sql } from "drizzle-orm";
import type { Clock } from "../clock";
import type { Db, DbKind } from "../db/types";
import { rows } from "../db/row-sql";
import { listenPglite, listenPostgres } from "../db/listen";
import { WEBHOOKS_CHANNEL } from "../alerts/notify-sql";
import { decryptWebhookSecret, UndecryptableSecretError, webhookKey } from "./secret";
import { signDelivery } from "./sign";
import { sendWebhook, type SendOutcome } from "./send";
import { privateWebhooksAllowed } from "./url";
import { countWebhookAttempt } from "../observability/metrics";

/**
 * The outbox worker. Deliveries are rows of webhook_deliveries, inserted in the transaction that
 * created their notification, so none is lost when a process dies between a settlement and the
 * send. A worker claims due rows with FOR UPDATE SKIP LOCKED in a short statement that moves
 * their next_attempt_at forward by a lease: other workers (this or another instance) skip them
 * while the send runs, and a worker that dies mid-send leaves them pending, to be claimed again
 * when the lease ends. The result is recorded only while the lease is still the one claimed.
 * Delivery is at least once: a receiver that answered but whose answer was not recorded (a crash
 * in between) gets the same webhook-id again.
 */

/** Waits after the 1st, 2nd, … failed attempt; the last repeats until the retry window closes. */
export const DEFAULT_BACKOFF_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000];
/** A delivery is retried this long after it was queued, then fails (a resend grants one more attempt). */
export const RETRY_WINDOW_MS = 24 * 3_600_000;
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface DeliveryOptions {
  /** Decides which deliveries are due and when the window closes; default: the database's clock. */
  clock?: Clock;
  backoffMs?: readonly number[];
  timeoutMs?: number;
  /** How long a claim keeps other workers off a delivery; longer than timeoutMs. */
  leaseMs?: number;
}

interface Claimed {
  id: string;
  endpoint_id: string;
  payload: unknown;
  attempts: number;
  lease: string;
  url: string;
  secret_ciphertext: string;
  allow_private_network: boolean;
  endpoint_removed: boolean;
}

const nowParam = (clock?: Clock) => (clock ? clock.now().toISOString() : null);

/** Claims up to `limit` due deliveries for this worker (one statement, its own transaction). */
export async function claimDueDeliveries(db: Db, limit: number, options: DeliveryOptions = {}): Promise<Claimed[]> {
  const leaseMs = options.leaseMs ?? (options.timeoutMs ?? DEFAULT_TIMEOUT_MS) + 20_000;
  const result = await db.execute(sql`
    WITH t AS (SELECT coalesce(${nowParam(options.clock)}::timestamptz, now()) AS now),
    due AS (
      SELECT d.id FROM webhook_deliveries d
       WHERE d.status = 'pending' AND d.next_attempt_at <= (SELECT now FROM t)
       ORDER BY d.next_attempt_at
       LIMIT ${limit}::int
       FOR UPDATE SKIP LOCKED
    )
    UPDATE webhook_deliveries d
       SET next_attempt_at = date_trunc('milliseconds', t.now + ${leaseMs}::double precision * interval '1 millisecond')
      FROM due, t, webhook_endpoints e
     WHERE d.id = due.id AND e.id = d.endpoint_id
    RETURNING d.id, d.endpoint_id, d.payload, d.attempts,
              to_char(d.next_attempt_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS lease,
              e.url, e.secret_ciphertext, e.allow_private_network, e.disabled_at IS NOT NULL AS endpoint_removed`);
  return rows<Claimed>(result);
}

export interface Attempt {
  claimed: Claimed;
  outcome: SendOutcome;
  startedAt: Date;
}

/** Signs and sends one claimed delivery (never throws for the receiver's sake: the outcome says what happened). */
export async function sendClaimed(db: Db, claimed: Claimed, options: DeliveryOptions = {}): Promise<Attempt> {
  const startedAt = new Date();
  if (claimed.endpoint_removed) return { claimed, startedAt, outcome: { statusCode: null, ok: false, error: "endpoint removed", durationMs: 0 } };
  let secret: string;
  try {
    secret = decryptWebhookSecret(await webhookKey(db), claimed.endpoint_id, claimed.secret_ciphertext);
  } catch (err) {
    if (!(err instanceof UndecryptableSecretError)) throw err;
    return { claimed, startedAt, outcome: { statusCode: null, ok: false, error: err.message, durationMs: 0 } };
  }
  const body = JSON.stringify(claimed.payload);
  // Signed with the wall clock: receivers check webhook-timestamp against theirs.
  const headers = signDelivery(secret, claimed.id, new Date(), body);
  const outcome = await sendWebhook(claimed.url, body, headers, {
    allowPrivateNetwork: claimed.allow_private_network || privateWebhooksAllowed(),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
  return { claimed, startedAt, outcome };
}

/**
 * Records attempts (one statement for all): an attempt row each, and the delivery delivered,
 * scheduled again after its backoff (never past the end of its retry window), or failed. A
 * delivery whose lease is no longer the one claimed (another worker took it over) keeps its state.
 */
export async function recordAttempts(db: Db, attempts: readonly Attempt[], options: DeliveryOptions = {}): Promise<void> {
  if (attempts.length === 0) return;
  for (const a of attempts) countWebhookAttempt(a.outcome.statusCode);
  const backoff = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const items = attempts.map(({ claimed, outcome, startedAt }) => ({
    id: claimed.id,
    lease: claimed.lease,
    attempted_at: startedAt.toISOString(),
    status_code: outcome.statusCode,
    error: outcome.error,
    duration_ms: outcome.durationMs,
    ok: outcome.ok,
    // A removed endpoint ends its delivery at once.
    give_up: claimed.endpoint_removed,
    delay_ms: backoff[Math.min(claimed.attempts, backoff.length - 1)],
  }));
  await db.execute(sql`
    WITH t AS (SELECT coalesce(${nowParam(options.clock)}::timestamptz, now()) AS now),
    r AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(items)}::jsonb)
        AS r(id text, lease timestamptz, attempted_at timestamptz, status_code int, error text, duration_ms int, ok boolean, give_up boolean, delay_ms double precision)
    ),
    attempt AS (
      INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, error, duration_ms)
      SELECT id, attempted_at, status_code, error, duration_ms FROM r
    )
    UPDATE webhook_deliveries d
       SET attempts = d.attempts + 1,
           last_status_code = r.status_code,
           last_error = r.error,
           status = CASE WHEN r.ok THEN 'delivered'
                         WHEN r.give_up OR t.now >= d.created_at + ${RETRY_WINDOW_MS}::double precision * interval '1 millisecond' THEN 'failed'
                         ELSE 'pending' END,
           delivered_at = CASE WHEN r.ok THEN t.now ELSE d.delivered_at END,
           next_attempt_at = least(t.now + r.delay_ms * interval '1 millisecond',
                                   d.created_at + ${RETRY_WINDOW_MS}::double precision * interval '1 millisecond')
      FROM r, t
     WHERE d.id = r.id AND d.status = 'pending' AND d.next_attempt_at = r.lease`);
}

/**
 * One pass for tests and tools: claims what is due and sends it all, until nothing is due.
 * Returns the number of attempts made.
 */
export async function deliverDue(db: Db, options: DeliveryOptions & { batchSize?: number } = {}): Promise<number> {
  let total = 0;
  for (;;) {
    const claimed = await claimDueDeliveries(db, options.batchSize ?? 32, options);
    if (claimed.length === 0) return total;
    await recordAttempts(db, await Promise.all(claimed.map((c) => sendClaimed(db, c, options))), options);
    total += claimed.length;
  }
}

/** How long a finished attempt waits for others to be recorded with it (the webhook has already arrived). */
const RECORD_LINGER_MS = 10;

/**
 * Writes attempts as they finish, all that finished within a few milliseconds in one statement:
 * the embedded database runs one statement at a time, and a burst of deliveries should not queue
 * one each.
 */
function attemptRecorder(db: Db, options: DeliveryOptions) {
  let queue: { attempt: Attempt; done: (err?: Error) => void }[] = [];
  let flushing = false;
  const flush = async () => {
    await new Promise((r) => setTimeout(r, RECORD_LINGER_MS));
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await recordAttempts(db, batch.map((b) => b.attempt), options);
        for (const b of batch) b.done();
      } catch (err) {
        for (const b of batch) b.done(err as Error);
      }
    }
    flushing = false;
  };
  return (attempt: Attempt) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ attempt, done: (err) => (err ? reject(err) : resolve()) });
      if (!flushing) {
        flushing = true;
        void flush();
      }
    });
}

export interface WebhookWorkerOptions extends DeliveryOptions {
  /** Where to hear that deliveries were queued: the database's LISTEN/NOTIFY (none: poll only). */
  listen?: { kind: DbKind; url?: string };
  /** Deliveries in flight at once. */
  concurrency?: number;
  /** Polls this often for retries that came due and notifications that were missed. */
  pollMs?: number;
  onError?: (err: Error) => void;
}

export interface WebhookWorker {
  /** Looks for due deliveries now (the listener and the poll call it). */
  wake(): void;
  /** Stops claiming, and waits for the sends in flight to be recorded. */
  stop(): Promise<void>;
}

/**
 * Runs the outbox worker: woken at once by pg_notify on `tollgate_webhooks` (sent at the commit of
 * every statement that queued deliveries, from any instance), and by a poll every `pollMs`.
 */
export function startWebhookWorker(db: Db, options: WebhookWorkerOptions = {}): WebhookWorker {
  const concurrency = options.concurrency ?? 32;
  const minBatch = Math.max(1, Math.floor(concurrency / 4));
  const record = attemptRecorder(db, options);
  const inflight = new Set<Promise<unknown>>();
  let stopped = false;
  let pumping: Promise<void> | undefined;
  let again = false;

  const pump = async () => {
    do {
      again = false;
      while (!stopped) {
        // Claim in batches: one slot freed at a time would cost a claim (and a record) per delivery.
        if (inflight.size > 0 && concurrency - inflight.size < minBatch) {
          await Promise.race(inflight);
          continue;
        }
        const claimed = await claimDueDeliveries(db, concurrency - inflight.size, options);
        if (claimed.length === 0) break;
        for (const c of claimed) {
          const p: Promise<unknown> = sendClaimed(db, c, options)
            .then(record)
            .catch((err: Error) => options.onError?.(err))
            .finally(() => inflight.delete(p));
          inflight.add(p);
        }
      }
    } while (again && !stopped);
  };

  const wake = () => {
    if (stopped) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = pump()
      .catch((err: Error) => options.onError?.(err))
      .finally(() => {
        pumping = undefined;
      });
  };

  const handlers = { onNotification: wake, onConnect: wake, onError: options.onError };
  const unlisten =
    options.listen?.kind === "postgres" && options.listen.url
      ? listenPostgres(options.listen.url, WEBHOOKS_CHANNEL, handlers)
      : options.listen?.kind === "pglite"
        ? listenPglite(db, WEBHOOKS_CHANNEL, handlers)
        : undefined;
  const poll = setInterval(wake, options.pollMs ?? 5_000);
  poll.unref();
  wake();

  return {
    wake,
    stop: async () => {
      stopped = true;
      clearInterval(poll);
      unlisten?.();
      await pumping;
      await Promise.all(inflight);
    },
  };
}
