import { afterEach, describe, expect, it } from "vitest";
import type { Server } from "socket.io";
import { registerRealtime } from "~/realtime.server";
import { parseNoticeFilter, passesNoticeFilter, publishToFiltered } from "./notice-filter.server";

const email = { channel: "EMAIL", departmentId: 2, campaignId: 7, severity: "H" };

describe("new-ticket notices follow the list's filters", () => {
  it("pass only the channel, department, campaign and priority the list shows", () => {
    expect(passesNoticeFilter(undefined, email)).toBe(true);
    expect(passesNoticeFilter({}, email)).toBe(true);
    expect(passesNoticeFilter({ channel: "EMAIL", department: 2, campaign: 7, priority: "H" }, email)).toBe(true);
    expect(passesNoticeFilter({ channel: "WHATSAPP" }, email)).toBe(false);
    expect(passesNoticeFilter({ department: 3 }, email)).toBe(false);
    expect(passesNoticeFilter({ campaign: 8 }, email)).toBe(false);
    expect(passesNoticeFilter({ priority: "L" }, email)).toBe(false);
    // "none" is the list's word for tickets without a priority
    expect(passesNoticeFilter({ priority: "none" }, { ...email, severity: "" })).toBe(true);
    expect(passesNoticeFilter({ priority: "none" }, email)).toBe(false);
    expect(passesNoticeFilter({ department: 2 }, { ...email, departmentId: null })).toBe(false);
  });

  it("keep only well-formed filters from what a page sends", () => {
    expect(parseNoticeFilter({ channel: "EMAIL", department: "2", campaign: "x", priority: "none" })).toEqual({
      channel: "EMAIL",
      department: 2,
      campaign: undefined,
      priority: "none",
    });
    expect(parseNoticeFilter({ channel: "NOPE", department: -1, priority: "urgent" })).toEqual({});
    expect(parseNoticeFilter(null)).toEqual({});
  });

  describe("on the server, before emitting", () => {
    afterEach(() => registerRealtime(undefined));

    it("sends createTicket only to the sockets whose filters the ticket passes", async () => {
      const heard: string[] = [];
      const socket = (name: string, noticeFilter?: object) => ({ data: { noticeFilter }, emit: (event: string) => heard.push(`${name}:${event}`) });
      const rooms: Record<string, ReturnType<typeof socket>[]> = {
        "department:2": [
          socket("unfiltered"),
          socket("email tab", { channel: "EMAIL" }),
          socket("whatsapp tab", { channel: "WHATSAPP" }),
          socket("low", { priority: "L" }),
        ],
      };
      registerRealtime({ in: (room: string) => ({ fetchSockets: async () => rooms[room] ?? [] }) } as unknown as Server);
      await publishToFiltered("department:2", "createTicket", { ticketNumber: 1 }, email);
      expect(heard).toEqual(["unfiltered:createTicket", "email tab:createTicket"]);
    });
  });
});
