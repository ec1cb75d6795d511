import { describe, expect, it, vi } from "vitest";
import { Manager } from "socket.io-client";
import {
  NEW_MESSAGE_STACK,
  clearTyping,
  markFresh,
  mergeMessages,
  realtime,
  receiveMessages,
  retryDelay,
  SOCKET_OPTIONS,
  setTyping,
  typingNames,
  withDelta,
} from "./realtime-store";

describe("realtime store", () => {
  it("keeps the 40 newest conversations on the new-message stack", () => {
    for (let i = 1; i <= 45; i++) markFresh(i, 1000 + i);
    const ids = Object.keys(realtime.fresh).map(Number);
    expect(ids).toHaveLength(NEW_MESSAGE_STACK);
    expect(Math.min(...ids)).toBe(6);
    markFresh(3, 5000); // news again puts it back on top
    expect(realtime.fresh[3]).toBe(5000);
    expect(realtime.fresh[6]).toBeUndefined();
  });

  it("forgets remote typing after 5 s without news, or at once on removeTyping", () => {
    setTyping(7, "agent", "Alya Agent", 10_000);
    setTyping(7, "agent2", "Brian Agent", 12_000);
    expect(typingNames(realtime.typing, 7, 14_999)).toEqual(["Alya Agent", "Brian Agent"]);
    expect(typingNames(realtime.typing, 7, 15_000)).toEqual(["Brian Agent"]);
    clearTyping(7, "agent2");
    expect(typingNames(realtime.typing, 7, 15_000)).toEqual([]);
  });

  it("shows each arrived message once, in order, after those the page loaded", () => {
    receiveMessages(5, [{ id: 12 }, { id: 11 }]);
    receiveMessages(5, [{ id: 12 }, { id: 13 }]); // the replay brings one the event brought too
    expect(realtime.arrived[5].map((m) => m.id)).toEqual([11, 12, 13]);
    // the page's data already holds 11 (a reload after the event): it is not shown twice
    expect(mergeMessages([{ id: 9 }, { id: 11 }], realtime.arrived[5]).map((m) => m.id)).toEqual([9, 11, 12, 13]);
  });

  it("patches a list item with a newer delta, unread for everyone but its writer", () => {
    const item = { id: 1, lastMessage: "old", updatedAt: 100, unread: false };
    expect(withDelta(item, { lastMessage: "new", updatedAt: 200, by: "agent2" }, "agent", false)).toMatchObject({ lastMessage: "new", unread: true });
    expect(withDelta(item, { lastMessage: "new", updatedAt: 200, by: "agent" }, "agent", false).unread).toBe(false);
    expect(withDelta(item, { lastMessage: "new", updatedAt: 200, by: "agent2" }, "agent", true).unread).toBe(false);
    expect(withDelta(item, { lastMessage: "stale", updatedAt: 50, by: "agent2" }, "agent", false)).toBe(item);
  });

  it("retries a cut socket within the spec's 5 s, spread over its second half", () => {
    expect(retryDelay(0)).toBe(5_000);
    expect(retryDelay(1)).toBe(2_500);
  });

  it("lets socket.io retry first after 1.25-3.75 s, then every 2.5-5 s", () => {
    const waits = (random: number) => {
      const manager = new Manager("http://localhost:9", { ...SOCKET_OPTIONS, autoConnect: false });
      const backoff = (manager as unknown as { backoff: { duration(): number } }).backoff;
      const spy = vi.spyOn(Math, "random").mockReturnValue(random);
      try {
        return [backoff.duration(), backoff.duration(), backoff.duration(), backoff.duration()];
      } finally {
        spy.mockRestore();
      }
    };
    // socket.io moves each wait down (an even first decimal of the random) or up by random x half of it
    expect(waits(0.05)).toEqual([2_500 - 62, 5_000 - 125, 5_000, 5_000]);
    expect(waits(0.45)).toEqual([2_500 - 562, 5_000 - 1_125, 5_000, 5_000]);
    expect(waits(0.95)).toEqual([2_500 + 1_187, 5_000, 5_000, 5_000]);
  });
});
