/**
 * Runs `task` once after `firstMs`, then every `everyMs`, never two runs at once (a tick that finds
 * the last run still going is skipped); each result goes to `on.result`, each failure to
 * `on.error`. The timers do not keep the process alive. Returns a function that stops it.
 */
export function startTicker<T>(task: () => Promise<T>, timing: { firstMs: number; everyMs: number }, on: { result?: (value: T) => void; error?: (err: Error) => void } = {}): () => void {
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    task()
      .then((value) => on.result?.(value))
      .catch((err: Error) => on.error?.(err))
      .finally(() => {
        running = false;
      });
  };
  const first = setTimeout(run, timing.firstMs);
  const timer = setInterval(run, timing.everyMs);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
