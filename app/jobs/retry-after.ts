// An HTTP answer's Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP date. The one reader
// for every outside service a job talks to (push, channels, mail, the AI's model server).

/** Retry-After as seconds or an HTTP date, in ms from now; null without one (or an unreadable one). */
export function retryAfterMs(header: string | null | undefined, now = Date.now()) {
  if (!header) return null;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
