// The conversation's "Video meeting" panel (app/conversation/panels.server.ts): the meetings of
// this conversation still running (Join), and Start a video meeting (the form on /meetings, which
// posts with the conversation's number, so it works without JavaScript).
import type { PanelInput, PanelSection } from "~/conversation/panels.server";
import { runningMeetingsOf } from "./meeting.server";

export async function meetingPanel({ ticket }: PanelInput): Promise<PanelSection | null> {
  const running = await runningMeetingsOf(ticket.id);
  return {
    title: "plugin_meeting.panel.title",
    items: running.map((m) => ({
      label: { key: "plugin_meeting.panel.running", values: { title: m.title || "t:plugin_meeting.untitled" } },
      href: `/meeting/${m.token}`,
    })),
    empty: "plugin_meeting.panel.none",
    actions: [{ label: { key: "plugin_meeting.panel.start" }, href: `/meetings?ticket=${ticket.ticketNumber}` }],
  };
}
