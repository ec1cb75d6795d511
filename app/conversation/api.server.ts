// The conversation's JSON twins answer its errors as the pages do.
import { json } from "@remix-run/node";
import { AccessDenied } from "~/conversation/access.server";
import { NotFound } from "~/conversation/model.server";
import type { MessageView } from "~/conversation/message-view.server";
import { englishText } from "~/api.server";

/** Runs a JSON twin, answering 403 'Access denied' / 404 as the pages do. */
export async function jsonErrors<T>(fn: () => Promise<T>): Promise<T | Response> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof AccessDenied) return json({ result: "failed", description: "Access denied", message: error.message }, { status: 403 });
    if (error instanceof NotFound) return json({ result: "failed", description: "Ticket not found." }, { status: 404 });
    throw error;
  }
}

const ENCRYPTED_TEXT = englishText("conversation.encryption.message");

/** A message in the JSON twins' shape (GET /ticket/data, POST /api/ticket/data/check). */
export const apiMessage = (m: MessageView) => ({
  id: m.id,
  type: m.type,
  // the server cannot read an encrypted message: the twins say so (the envelope is for the participants' clients)
  message: m.encrypted ? ENCRYPTED_TEXT : m.body,
  encrypted: m.encrypted,
  sender: m.sender,
  ts: Math.floor(m.createdAt / 1000),
  pinned: m.pinned,
  reply: m.reply ? { sender: m.reply.sender, message: m.reply.encrypted ? ENCRYPTED_TEXT : m.reply.body } : null,
  reply_id: m.reply?.id ?? null,
  notes: m.notes.map((n) => ({
    id: n.id,
    message_id: m.id,
    sender: n.author,
    text: n.encrypted ? ENCRYPTED_TEXT : n.body,
    encrypted: n.encrypted,
    updated_at: n.updatedAt,
  })),
  reactions_2: Object.fromEntries(m.reactions.map((r) => [r.reaction, r.usernames])),
  file: m.file ? `/files/v101/${m.id}/${encodeURIComponent(m.file.name)}` : null,
  fileName: m.file?.name ?? null,
  fileType: m.file?.type ?? null,
});
