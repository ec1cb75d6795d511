// The loop every polling watcher runs (IMAP, Graph delta, Telegram's getUpdates): one pass, then a
// pause; a failing pass marks the account failing and is tried again with a growing pause (or as
// long as the provider asked, WaitAndRetry); the first good pass after that marks it ok. Stopping
// aborts the pass's signal, so a long poll in flight ends at once.
import { isWaitAndRetry } from "~/jobs/queue.server";

export function pollLoop(options: {
  accountId: number;
  /** The pause after a good pass (0: straight on, for long polling that waits at the provider). */
  intervalMs: number;
  pass: (stopped: () => boolean, signal: AbortSignal) => Promise<void>;
  setState: (outcome: { ok: true } | { ok: false; error: string }) => Promise<void>;
  describe: (error: unknown) => string;
}): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  let failures = 0;
  let reported: "ok" | "failing" | undefined;
  const controller = new AbortController();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
      timer.unref();
    });
  const running = (async () => {
    while (!stopped) {
      let waitMs: number | undefined;
      try {
        await options.pass(() => stopped, controller.signal);
        failures = 0;
        if (reported !== "ok") await options.setState({ ok: true });
        reported = "ok";
      } catch (error) {
        if (stopped) break;
        failures++;
        reported = "failing";
        if (isWaitAndRetry(error)) waitMs = error.delayMs;
        await options.setState({ ok: false, error: options.describe(error) }).catch(() => undefined);
      }
      if (stopped) break;
      // after failures: 5 s, 10 s, 20 s ... up to the poll interval (at least 5 minutes)
      const backoff = Math.min(5000 * 2 ** (failures - 1), Math.max(options.intervalMs, 300_000));
      const pause = waitMs ?? (failures ? backoff : options.intervalMs);
      if (pause > 0) await sleep(pause);
    }
  })();
  return async () => {
    stopped = true;
    controller.abort();
    clearTimeout(timer);
    wake?.();
    await running;
  };
}
