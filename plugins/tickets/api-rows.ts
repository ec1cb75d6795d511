// A list item as the ticket list's JSON twins answer it (spec section 3, Ticket): /api/ticket/load and load2.
import type { ListItem } from "./ticket-list.server";
import { englishText } from "~/api.server";

export function apiListRow(i: ListItem) {
  return {
    id: i.id,
    ticket_number: i.ticketNumber,
    title: i.title,
    channel: i.channel,
    closed: i.status,
    severity: i.severity,
    label: JSON.stringify(i.labels.map((l) => l.id)),
    assignee: i.assignees.map((a) => a.username).join(","),
    updated_at: i.updatedAt,
    ts: Math.floor(i.updatedAt / 1000),
    newMessage: i.encrypted ? englishText("conversation.encryption.message") : i.lastMessage,
    read: !i.unread,
    hasResponded: i.responded,
  };
}
