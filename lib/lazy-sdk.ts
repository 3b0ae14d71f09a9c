// The SDKs of optional features (Stripe, the MCP SDK, ioredis, nodemailer, qrcode, the AWS SDK)
// load at their first use, not when the app is imported: together they cost about a second of
// module evaluation, and most processes that import the app (a test file, a CLI command, a server
// without payments or Redis) use few of them or none. The production server preloads them all
// once it listens (lib/server/main.ts), so no request waits for one.

export interface LazySdk<T> {
  /** The module, loading it on the first call; a failed load is tried again at the next. */
  (): Promise<T>;
  /** The module if it has loaded. An error can only be an instance of its classes if it has. */
  loaded(): T | undefined;
}

const registered: LazySdk<unknown>[] = [];

export function lazySdk<T>(load: () => Promise<T>): LazySdk<T> {
  let pending: Promise<T> | undefined;
  let value: T | undefined;
  const sdk = (() =>
    (pending ??= load().then(
      (module) => (value = module),
      (err: unknown) => {
        pending = undefined;
        throw err;
      },
    ))) as LazySdk<T>;
  sdk.loaded = () => value;
  registered.push(sdk as LazySdk<unknown>);
  return sdk;
}

/** Loads every SDK declared by the modules imported so far; one that fails to load is left for its first use to report. */
export async function preloadSdks(): Promise<void> {
  await Promise.allSettled(registered.map((sdk) => sdk()));
}
