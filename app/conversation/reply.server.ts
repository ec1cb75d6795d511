// Sending a reply, shared by the conversation page and POST /api/ticket/message/reply:
// validate, store the files, write the messages; nothing is half-written.
import { reply, type TicketRow } from "~/conversation/model.server";
import type { Reader } from "~/conversation/access.server";
import { fileStorage } from "~/storage.server";
import { storeFiles } from "~/conversation/upload.server";
import { checkAddresses, replySchema } from "~/conversation/forms";
import { replyRecipients } from "~/conversation/delivery.server";

/** A refusal is a form-level message (FormResult's message and messageValues): the page shows it above the reply. */
export type SendReplyResult = { ok: true; created: Awaited<ReturnType<typeof reply>> } | { ok: false; message: string; messageValues?: Record<string, string> };

export async function sendReply(
  actor: Reader & { name: string; username: string },
  ticket: TicketRow,
  input: { fields: Record<string, unknown>; files: File[]; fileErrors: string[] },
): Promise<SendReplyResult> {
  if (input.fileErrors.length) return { ok: false, message: "conversation.uploadFailed", messageValues: { error: input.fileErrors.join(" ") } };
  const parsed = replySchema.safeParse({ ...input.fields, reply_to: input.fields.reply_to ?? input.fields.reply });
  if (!parsed.success) return { ok: false, message: parsed.error.issues[0].message };
  for (const field of [parsed.data.cc, parsed.data.email2, parsed.data.email, parsed.data.toEmail]) {
    const { bad } = checkAddresses(field);
    if (bad) return { ok: false, message: "conversation.badEmail", messageValues: { address: bad } };
  }
  const body = parsed.data.message.trim();
  if (!body && !input.files.length) return { ok: false, message: "conversation.empty" };
  const stored = await storeFiles(input.files);
  try {
    return {
      ok: true,
      created: await reply(actor, ticket, { body, replyToId: parsed.data.reply_to, files: stored, recipients: replyRecipients(parsed.data) }),
    };
  } catch (error) {
    await Promise.all(stored.map((f) => fileStorage().remove(f.key)));
    throw error;
  }
}
