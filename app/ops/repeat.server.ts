// A plugin's background look, repeated: the next pass is timed from the end of the last, so two
// never overlap however slow one is; a failed pass is reported and the next still comes. The timer
// keeps no process alive (unref).

/** Runs `pass` now and again `everyMs` after each pass ends, until the returned stop is called. */
export function repeatEvery(everyMs: number, pass: () => Promise<void>, failed: (error: unknown) => void) {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    pass()
      .catch(failed)
      .finally(() => {
        if (!stopped) (timer = setTimeout(tick, everyMs)).unref();
      });
  };
  tick();
  return async () => {
    stopped = true;
    clearTimeout(timer);
  };
}
