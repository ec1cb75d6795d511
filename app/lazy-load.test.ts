import { describe, expect, it } from "vitest";
import { LAZY_RETRIES, LAZY_RETRY_MS, MaxRetriesExceeded, isMaxRetries, withRetries } from "./lazy-load";

/** Records the waits instead of waiting. */
function recorder() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

describe("lazy load retry", () => {
  it("retries a network failure 5 s later and returns what the next try loaded", async () => {
    const { waits, sleep } = recorder();
    let tries = 0;
    const value = await withRetries(
      async () => {
        if (++tries < 3) throw new TypeError("Failed to fetch");
        return "page";
      },
      { sleep },
    );
    expect(value).toBe("page");
    expect(tries).toBe(3);
    expect(waits).toEqual([LAZY_RETRY_MS, LAZY_RETRY_MS]);
  });

  it("gives up after 5 retries 5 s apart with 'maximum retries exceeded'", async () => {
    const { waits, sleep } = recorder();
    let tries = 0;
    const failing = withRetries(
      async () => {
        tries++;
        throw new Response("", { status: 503 });
      },
      { sleep },
    );
    await expect(failing).rejects.toBeInstanceOf(MaxRetriesExceeded);
    await expect(failing).rejects.toThrow("maximum retries exceeded");
    expect(tries).toBe(1 + LAZY_RETRIES);
    expect(waits).toEqual([5000, 5000, 5000, 5000, 5000]);
    expect(isMaxRetries(await failing.catch((e) => e))).toBe(true);
  });

  it("never retries an answer: not found, denied or a redirect", async () => {
    for (const status of [302, 403, 404]) {
      let tries = 0;
      const answer = new Response("", { status });
      await expect(withRetries(async () => (tries++, Promise.reject(answer)), { sleep: async () => {} })).rejects.toBe(answer);
      expect(tries).toBe(1);
    }
  });

  it("stops when the user went elsewhere (the load's signal aborted)", async () => {
    const controller = new AbortController();
    let tries = 0;
    const load = withRetries(
      async () => {
        tries++;
        controller.abort(new DOMException("navigated away", "AbortError"));
        throw new TypeError("Failed to fetch");
      },
      { signal: controller.signal, sleep: async () => {} },
    );
    await expect(load).rejects.toThrow("Failed to fetch");
    expect(tries).toBe(1);
  });
});
