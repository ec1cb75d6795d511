// New-ticket notices follow the list the agent is looking at (spec section 4: they appear only if
// the ticket passes the channel, department, campaign and priority filters). Each page tells its
// socket the list's filters (listFilters, from its address); the server sends createTicket only
// to the sockets whose filters the new ticket passes, so a tab filtered to WhatsApp hears nothing
// of a new email.
import type { Socket } from "socket.io";
import { isChannel } from "./channels";
import { fetchRoomSockets } from "~/realtime.server";
import { CLIENT_EVENTS } from "~/realtime-events";

export interface NoticeFilter {
  channel?: string;
  department?: number;
  campaign?: number;
  /** H, M, L, or "none" for tickets without a priority (as the list's filter writes it). */
  priority?: "H" | "M" | "L" | "none";
}

export interface NewTicket {
  channel?: string;
  departmentId?: number | null;
  campaignId?: number | null;
  severity?: string | null;
}

const positive = (v: unknown) => {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

/** The filters a page sent, keeping only well-formed values (anything else: no filter). */
export function parseNoticeFilter(raw: unknown): NoticeFilter {
  const r = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  const priority = typeof r.priority === "string" && ["H", "M", "L", "none"].includes(r.priority) ? (r.priority as NoticeFilter["priority"]) : undefined;
  return {
    channel: typeof r.channel === "string" && isChannel(r.channel) ? r.channel : undefined,
    department: positive(r.department),
    campaign: positive(r.campaign),
    priority,
  };
}

/** True when the new ticket is one the filtered list would show. */
export function passesNoticeFilter(filter: NoticeFilter | undefined, t: NewTicket) {
  if (!filter) return true;
  if (filter.channel && t.channel !== filter.channel) return false;
  if (filter.department && t.departmentId !== filter.department) return false;
  if (filter.campaign && t.campaignId !== filter.campaign) return false;
  if (filter.priority && (t.severity || "none") !== filter.priority) return false;
  return true;
}

/** listFilters {channel, department, campaign, priority}: this socket's notices follow them. */
export function attachNoticeFilter(socket: Socket) {
  socket.on(CLIENT_EVENTS.listFilters, (raw: unknown) => {
    socket.data.noticeFilter = parseNoticeFilter(raw);
  });
}

/** `event` to the sockets in `room` whose list filters `ticket` passes (on every node). */
export async function publishToFiltered(room: string, event: string, payload: unknown, ticket: NewTicket) {
  for (const socket of await fetchRoomSockets(room))
    if (passesNoticeFilter(socket.data.noticeFilter as NoticeFilter | undefined, ticket)) socket.emit(event, payload);
}
