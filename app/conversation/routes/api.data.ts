// GET /ticket/data/{id}/{count} ?_token&messageId -> 30 messages before messageId (or the newest).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { conversationById, loadMessages } from "~/conversation/model.server";
import { requireApiUser } from "~/api.server";
import { jsonErrors } from "~/conversation/api.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  const before = Number(new URL(request.url).searchParams.get("messageId")) || undefined;
  return jsonErrors(async () => {
    const ticket = await conversationById(user, Number(params.id));
    const page = await loadMessages(ticket, { before });
    return json({
      result: "success",
      more: page.hasOlder,
      data: page.messages.map((m) => ({
        id: m.id,
        type: m.type,
        message: m.body,
        sender: m.sender,
        ts: Math.floor(m.createdAt / 1000),
        pinned: m.pinned,
        reply: m.reply ? { sender: m.reply.sender, message: m.reply.body } : null,
        reply_id: m.reply?.id ?? null,
        notes: m.notes.map((n) => ({ id: n.id, message_id: m.id, sender: n.author, text: n.body, updated_at: n.updatedAt })),
        reactions_2: Object.fromEntries(m.reactions.map((r) => [r.reaction, r.usernames])),
        file: m.file ? `/files/v101/${m.id}/${encodeURIComponent(m.file.name)}` : null,
        fileName: m.file?.name ?? null,
        fileType: m.file?.type ?? null,
      })),
    });
  });
}
