// GET /event/{eventId} (also /api/event/{eventId}) ?_token -> {result, data, more, event_id}
// The events after eventId (spec section 3 "Event": id, action delete_message | merge_session,
// ticket_id, ref_id, session_id) on conversations the caller may read, oldest first, 100 a page;
// event_id is where the next call starts. The auth check's event_id is the newest event.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { apiInput } from "~/api.server";
import { readerSession } from "~/accounts/api-auth.server";
import { eventsAfter } from "~/conversation/sync.server";

const input = z.object({
  eventId: z.coerce
    .number({ message: "The event id must be a whole number." })
    .int("The event id must be a whole number.")
    .min(0, "The event id must be a whole number."),
});

export const action = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user } = await readerSession(request);
  const { eventId } = apiInput(request, input, { eventId: params.eventId });
  const { events, more } = await eventsAfter(user, eventId);
  return json(
    {
      result: "success",
      data: events.map((e) => ({
        id: e.id,
        action: e.action,
        ticket_id: e.ticketId,
        ref_id: e.refId,
        session_id: e.sessionId,
        ts: Math.floor(e.createdAt / 1000),
      })),
      more,
      event_id: events.at(-1)?.id ?? eventId,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}
