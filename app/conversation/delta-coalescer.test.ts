import { describe, expect, it } from "vitest";
import { deltaCoalescer, type ListDelta } from "./delta-coalescer";

/** Timers run by hand: each tick fires what is due. */
function manualTimers() {
  let now = 0;
  const due: { at: number; fn: () => void }[] = [];
  return {
    setTimeout: (fn: () => void, ms: number) => due.push({ at: now + ms, fn }),
    advance(ms: number) {
      now += ms;
      for (let next = due.find((d) => d.at <= now); next; next = due.find((d) => d.at <= now)) {
        due.splice(due.indexOf(next), 1);
        next.fn();
      }
    },
  };
}
const delta = (id: number, by = "", at = id): ListDelta => ({ messageIds: [id], lastMessage: `m${id}`, updatedAt: at, by });

describe("list deltas of a busy conversation", () => {
  it("sends an ordinary conversation's delta at once, each of them", () => {
    const timers = manualTimers();
    const sent: [number, ListDelta][] = [];
    const push = deltaCoalescer((k, d) => sent.push([k, d]), 500, timers);
    push(1, delta(1));
    push(2, delta(2));
    timers.advance(600);
    push(1, delta(3));
    expect(sent.map(([k, d]) => [k, d.messageIds])).toEqual([
      [1, [1]],
      [2, [2]],
      [1, [3]],
    ]);
  });

  it("merges a flood into one delta per window, with every id, the newest text and time", () => {
    const timers = manualTimers();
    const sent: ListDelta[] = [];
    const push = deltaCoalescer((_, d) => sent.push(d), 500, timers);
    // 17 messages a second for 2 seconds
    for (let i = 1; i <= 34; i++) {
      push(7, delta(i));
      timers.advance(59);
    }
    timers.advance(1000);
    expect(sent.length).toBeLessThanOrEqual(6);
    expect(sent.flatMap((d) => d.messageIds)).toEqual(Array.from({ length: 34 }, (_, i) => i + 1));
    expect(sent.at(-1)).toMatchObject({ lastMessage: "m34", updatedAt: 34 });
  });

  it("a merged delta of several writers names none, so it is unread for everyone", () => {
    const timers = manualTimers();
    const sent: ListDelta[] = [];
    const push = deltaCoalescer((_, d) => sent.push(d), 500, timers);
    push(1, delta(1, "agent"));
    push(1, delta(2, "agent"));
    push(1, delta(3, "agent"));
    push(1, delta(4, ""));
    timers.advance(500);
    expect(sent.map((d) => d.by)).toEqual(["agent", ""]);
    // the window after a merged send: the next one waits for its end, then a quiet window closes
    push(1, delta(5, "agent2"));
    timers.advance(500);
    expect(sent.map((d) => d.by)).toEqual(["agent", "", "agent2"]);
    timers.advance(500);
    push(1, delta(6, "agent2"));
    expect(sent.map((d) => d.messageIds)).toEqual([[1], [2, 3, 4], [5], [6]]);
  });
});
