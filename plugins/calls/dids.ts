// What the /call_config DID form needs in the browser as well as on the server (dids.server.ts):
// a `.server` module is empty in the browser bundle.

/** Ring timeout when the form leaves it out (the spec names none). */
export const DEFAULT_RING_TIMEOUT = 20;
export const MIN_RING_TIMEOUT = 5;
export const MAX_RING_TIMEOUT = 120;
export const MAX_GREETING = 500;
/** How a DID's queue rings (ADR 054): all at once, or one agent at a time in turns or longest idle first. */
export const RING_STRATEGIES = ["ring_all", "round_robin", "longest_idle"] as const;
export type RingStrategy = (typeof RING_STRATEGIES)[number];
