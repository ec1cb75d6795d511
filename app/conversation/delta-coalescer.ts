// A conversation's news for lists (its last message, time and writer), coalesced: the first delta
// goes out at once, those that follow within the window are merged into one sent when it ends. A
// customer who writes 1,000 messages a minute then costs each agent's list two events a second
// instead of seventeen; an ordinary conversation's delta is not delayed at all.
export interface ListDelta {
  messageIds: number[];
  lastMessage: string;
  updatedAt: number;
  /** The writer's username, "" for a customer: with several writers merged, "" (unread for everyone). */
  by: string;
}

/** Message ids one merged delta carries at most (the newest). */
const MAX_IDS = 100;

export function mergeDeltas(a: ListDelta, b: ListDelta): ListDelta {
  const newer = b.updatedAt >= a.updatedAt ? b : a;
  return {
    messageIds: [...a.messageIds, ...b.messageIds].slice(-MAX_IDS),
    lastMessage: newer.lastMessage,
    updatedAt: newer.updatedAt,
    by: a.by === b.by ? a.by : "",
  };
}

type Timers = { setTimeout: (fn: () => void, ms: number) => unknown };

/** `send(key, delta)` for each delta or merged run of deltas of one key (a ticket). */
export function deltaCoalescer(send: (key: number, delta: ListDelta) => void, windowMs = 500, timers: Timers = globalThis) {
  const open = new Map<number, ListDelta | null>();
  const close = (key: number) => {
    const pending = open.get(key);
    if (!pending) return void open.delete(key);
    // what gathered during the window goes now, and opens the next window
    open.set(key, null);
    send(key, pending);
    timers.setTimeout(() => close(key), windowMs);
  };
  return (key: number, delta: ListDelta) => {
    if (!open.has(key)) {
      open.set(key, null);
      send(key, delta);
      timers.setTimeout(() => close(key), windowMs);
      return;
    }
    const pending = open.get(key);
    open.set(key, pending ? mergeDeltas(pending, delta) : delta);
  };
}
