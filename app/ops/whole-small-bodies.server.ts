// Remix's adapter streams every body: it sets the headers, writes the body's one chunk, then ends.
// compression() decides at the first write, before it can know the length, so it started zlib for
// every 60-byte JSON answer and redirect (about 0.75 ms of CPU and a deflate context of garbage
// each). Mounted after compression(), this holds a small first chunk until the same turn's end()
// and hands both to compression's end() together: it then sees the length and leaves bodies under
// its 1 KB threshold alone. A first chunk not ended by the next turn (a streamed page's shell) goes
// out as it came, so streaming is not delayed.
import type { RequestHandler } from "express";

const SMALL = 1024;

const bufferOf = (chunk: unknown, encoding?: BufferEncoding) =>
  Buffer.isBuffer(chunk)
    ? chunk
    : chunk instanceof Uint8Array
      ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
      : Buffer.from(String(chunk), encoding);

export function wholeSmallBodies(): RequestHandler {
  return (_req, res, next) => {
    const write = res.write.bind(res) as (chunk: unknown, encoding?: BufferEncoding) => boolean;
    const end = res.end.bind(res) as (chunk?: unknown, encoding?: BufferEncoding) => typeof res;
    let held: Buffer | undefined;
    let first = true;
    const release = () => {
      if (!held) return;
      const chunk = held;
      held = undefined;
      write(chunk);
      // Remix flushed right after its write, when compression had no stream yet: flush now
      (res as unknown as { flush?: () => void }).flush?.();
    };
    res.write = function (chunk: unknown, encoding?: unknown, callback?: unknown) {
      const plain = typeof encoding !== "function" && callback === undefined;
      if (first && plain && !res.headersSent && chunk != null) {
        first = false;
        const buffer = bufferOf(chunk, encoding as BufferEncoding | undefined);
        if (buffer.length < SMALL) {
          held = buffer;
          setImmediate(release);
          return true;
        }
      }
      first = false;
      release();
      return (write as (...args: unknown[]) => boolean)(chunk, encoding, callback);
    } as typeof res.write;
    res.end = function (chunk?: unknown, encoding?: unknown, callback?: unknown) {
      if (held) {
        const rest =
          chunk != null && typeof chunk !== "function" ? bufferOf(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : undefined) : undefined;
        const whole = rest ? Buffer.concat([held, rest]) : held;
        held = undefined;
        const done = typeof chunk === "function" ? chunk : typeof encoding === "function" ? encoding : callback;
        return (end as (...args: unknown[]) => typeof res)(whole, ...(typeof done === "function" ? [done] : []));
      }
      return (end as (...args: unknown[]) => typeof res)(chunk, encoding, callback);
    } as typeof res.end;
    next();
  };
}
