// Lazy loads in the browser (a screen's data, older messages, a list's next page): a load that
// fails for a passing reason is tried again, 5 times 5 s apart, then the page says
// 'maximum retries exceeded' (spec sections 2, 8, 9).
import type { ClientLoaderFunctionArgs } from "@remix-run/react";

export const LAZY_RETRIES = 5;
export const LAZY_RETRY_MS = 5_000;

/** The load failed on every try; route error boundaries show it as an alert. */
export class MaxRetriesExceeded extends Error {
  /** The load kept the open screen up to date (a revalidation, not a navigation): a sync error. */
  sync = false;
  constructor() {
    super("maximum retries exceeded");
    this.name = "MaxRetriesExceeded";
  }
}

export const isMaxRetries = (error: unknown): error is MaxRetriesExceeded => error instanceof Error && error.name === "MaxRetriesExceeded";

/**
 * Worth another try: the network failed or the server answered 5xx. A 4xx answer (not found,
 * denied) or a redirect is the answer itself and is never retried.
 */
export function isTransient(error: unknown) {
  if (error instanceof Response) return error.status >= 500;
  if (error && typeof error === "object" && "status" in error && typeof error.status === "number") return error.status >= 500;
  return error instanceof Error && error.name !== "AbortError";
}

const wait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/**
 * Runs `load`; after a passing failure tries again `retries` times, `delayMs` apart, then throws
 * MaxRetriesExceeded. Stops at once when `signal` aborts (the user went elsewhere).
 */
export async function withRetries<T>(
  load: () => Promise<T>,
  {
    retries = LAZY_RETRIES,
    delayMs = LAZY_RETRY_MS,
    signal,
    sleep = wait,
  }: { retries?: number; delayMs?: number; signal?: AbortSignal; sleep?: typeof wait } = {},
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await load();
    } catch (error) {
      if (signal?.aborted || !isTransient(error)) throw error;
      if (attempt >= retries) throw new MaxRetriesExceeded();
      await sleep(delayMs, signal);
    }
  }
}

/** No navigation under way: the load refreshes the screen the user is on (Remix's router state). */
const isRefresh = () => (window as { __remixRouter?: { state: { navigation: { state: string } } } }).__remixRouter?.state.navigation.state === "idle";

/** A route's clientLoader: its server loader, retried as above (the first render stays the server's). */
export async function retryingClientLoader({ request, serverLoader }: ClientLoaderFunctionArgs) {
  try {
    return await withRetries(() => serverLoader(), { signal: request.signal });
  } catch (error) {
    if (isMaxRetries(error) && isRefresh()) {
      error.sync = true;
      console.error("Sync error. Please close the app and try again.");
    }
    throw error;
  }
}
