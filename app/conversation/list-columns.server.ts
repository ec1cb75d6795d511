// The ticket columns every list of conversations shows (the ticket list, sync deltas, profile cards);
// the rest of a ticket stays on disk.
import { getDb } from "@db/client";

export function listColumns() {
  const t = getDb().schema.tickets;
  return {
    id: t.id,
    ticketNumber: t.ticketNumber,
    title: t.title,
    channel: t.channel,
    kind: t.kind,
    status: t.status,
    severity: t.severity,
    lastMessage: t.lastMessage,
    /** End-to-end encrypted: the lists say 'Encrypted message' instead of the (empty) last message. */
    encryption: t.encryption,
    updatedAt: t.updatedAt,
    responded: t.responded,
  };
}

/** A row of listColumns(): each column's value type. */
export type ListRow = { [K in keyof ReturnType<typeof listColumns>]: ReturnType<typeof listColumns>[K]["_"]["data"] };
