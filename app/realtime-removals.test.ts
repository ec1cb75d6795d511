import { describe, expect, it } from "vitest";
import { markFresh, realtime, removals, removedFrom } from "./realtime-store";

describe("removed from a conversation", () => {
  it("drops it from every list, its notices and its highlight; the modal only when it is open", () => {
    markFresh(41);
    realtime.notices = [
      { ticketNumber: 1041, path: "/chat/1041", at: 1 },
      { ticketNumber: 1042, path: "/chat/1042", at: 1 },
    ];
    removedFrom({ ticketId: 41, ticketNumber: 1041 }, false);
    expect(removals.dropped[41]).toBe(true);
    expect(removals.openRemoved).toBeNull();
    expect(realtime.fresh[41]).toBeUndefined();
    expect(realtime.notices.map((n) => n.ticketNumber)).toEqual([1042]);

    removedFrom({ ticketId: 42, ticketNumber: 1042 }, true);
    expect(removals.openRemoved).toBe(1042);
    expect(realtime.notices).toEqual([]);
  });
});
