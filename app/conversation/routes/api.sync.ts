// GET /ticket/data/sync (also /api/ticket/data/sync) ?_token&ts[&after]
//   -> {result, data, messages, messagesCut, unread, more, ts, after}
// What changed since ts for the caller (app/conversation/sync.server.ts): conversations they may
// read that changed after ts, oldest change first, 50 a page (more: call again with the answer's
// ts and after), the ids of their messages written after ts, and the caller's unread counts.
// ts is unix seconds or milliseconds (values under 10^11 are seconds); the answer's ts is milliseconds.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { apiInput, englishText } from "~/api.server";
import { readerSession } from "~/accounts/api-auth.server";
import { syncSince } from "~/conversation/sync.server";

const input = z.object({
  ts: z.coerce.number({ message: "ts must be a time." }).int("ts must be a time.").min(0, "ts must be a time."),
  after: z.coerce.number().int().min(0).default(0),
});

export const action = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

export async function loader({ request }: LoaderFunctionArgs) {
  const { user } = await readerSession(request);
  const q = apiInput(request, input);
  const r = await syncSince(user, { ts: q.ts < 1e11 ? q.ts * 1000 : q.ts, after: q.after });
  return json(
    {
      result: "success",
      data: r.tickets.map((t) => ({
        id: t.id,
        ticket_number: t.ticketNumber,
        title: t.title,
        channel: t.channel,
        type: t.kind,
        closed: t.status,
        severity: t.severity,
        newMessage: t.encryption ? englishText("conversation.encryption.message") : t.lastMessage,
        updated_at: t.updatedAt,
        ts: Math.floor(t.updatedAt / 1000),
        read: !t.unread,
      })),
      messages: r.messages.map((m) => ({ id: m.id, ticket_id: m.ticketId })),
      // more new messages than one answer carries: reload those conversations' messages
      messagesCut: r.messagesCut,
      unread: r.unread,
      more: r.more,
      ts: r.next.ts,
      after: r.next.after,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}
