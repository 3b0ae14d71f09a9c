import type { Context } from "hono";
import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { DomainError } from "../errors";
import { env } from "../env";
import { lazySdk } from "../lazy-sdk";
import { logger } from "../log";
import { countRateLimitRejection } from "../observability/metrics";
import { clientAddress } from "./client-address";
import { setResponseHeader } from "./headers";
import type { ApiEnv } from "./context";
import { rateLimits, type RateLimitedAction } from "./rate-limits";


const WINDOW_SECONDS = 60;
const limiters = new Map<RateLimitedAction, RateLimiterAbstract>();
const ioredis = lazySdk(() => import("ioredis"));
let redis: Redis | undefined;

/**
 * With REDIS_URL the buckets live in Redis, shared by every instance; otherwise in memory
 * (correct for one instance, the embedded-database default). A bucket once made is found without
 * waiting for anything: the Calls' path takes no extra turn of the event loop.
 */
function limiter(action: RateLimitedAction): RateLimiterAbstract | Promise<RateLimiterAbstract> {
  const made = limiters.get(action);
  if (made) return made;
  const { REDIS_URL } = env();
  const options = { points: rateLimits[action], duration: WINDOW_SECONDS, keyPrefix: `tg_rl_${action}` };
  if (!REDIS_URL) return keep(action, new RateLimiterMemory(options));
  return ioredis().then(({ Redis }) => {
    if (!redis) {
      redis = new Redis(REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
      redis.on("error", (err) => logger.warn({ err: err.message }, "redis error"));
    }
    return limiters.get(action) ?? keep(action, new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new RateLimiterMemory(options) }));
  });
}

function keep(action: RateLimitedAction, made: RateLimiterAbstract): RateLimiterAbstract {
  limiters.set(action, made);
  return made;
}

function setHeaders(c: Context, limit: number, res: RateLimiterRes) {
  setResponseHeader(c, "X-RateLimit-Limit", String(limit));
  setResponseHeader(c, "X-RateLimit-Remaining", String(Math.max(0, res.remainingPoints)));
  setResponseHeader(c, "X-RateLimit-Reset", String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)));
}

/** Consumes one request from the bucket, sets the rate-limit headers, throws `rate_limited` when empty. */
export async function consumeRateLimit(c: Context, action: RateLimitedAction, key: string): Promise<void> {
  const limit = rateLimits[action];
  try {
    const bucket = limiter(action);
    const res = await (bucket instanceof Promise ? await bucket : bucket).consume(key);
    setHeaders(c, limit, res);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    countRateLimitRejection(action);
    setHeaders(c, limit, rejection);
    const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    setResponseHeader(c, "Retry-After", String(retryAfter));
    throw new DomainError("rate_limited", `Rate limit exceeded: at most ${limit} requests per minute for ${action}`, { retry_after: retryAfter });
  }
}

/** The client address that per-IP limits key on (`clientAddress`: the socket, or behind TRUST_PROXY proxies their entry). */
export function clientIp(c: Context<ApiEnv>): string {
  return clientAddress(c.env.incoming?.socket?.remoteAddress, c.req.header("x-forwarded-for"), env().TRUST_PROXY);
}

/** Test hook: forget every bucket (each test file starts with fresh limits). */
export function resetRateLimits(): void {
  limiters.clear();
}
