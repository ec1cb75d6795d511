import { describe, expect, it } from "vitest";
import { NEW_MESSAGE_STACK, clearTyping, markFresh, realtime, setTyping, typingNames } from "./realtime-store";

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
});
