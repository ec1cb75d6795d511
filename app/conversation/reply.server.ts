// Sending a reply, shared by the conversation page and POST /api/ticket/message/reply:
// validate, store the files, write the messages; nothing is half-written.
import { EncryptionRefused, reply, type TicketRow } from "~/conversation/model.server";
import { CLIENT_ID_PATTERN, ENCRYPTED_FILE_TYPE, isEnvelope } from "~/conversation/encrypted";
import type { Reader } from "~/conversation/access.server";
import { fileStorage } from "~/storage.server";
import { storeFiles } from "~/conversation/upload.server";
import { checkAddresses, replySchema } from "~/conversation/forms";
import { replyRecipients } from "~/conversation/delivery.server";
import { outgoingReply } from "~/conversation/outgoing.server";

/** A refusal is a form-level message (FormResult's message and messageValues): the page shows it above the reply. */
export type SendReplyResult = { ok: true; created: Awaited<ReturnType<typeof reply>> } | { ok: false; message: string; messageValues?: Record<string, string> };

export async function sendReply(
  actor: Reader & { name: string; username: string },
  ticket: TicketRow,
  input: {
    fields: Record<string, unknown>;
    files: File[];
    fileErrors: string[];
    /** The edition's enabled plugins: their `outgoingReply` hooks see a plain reply's text before it is written (a translation). */
    enabled?: readonly string[];
  },
): Promise<SendReplyResult> {
  if (input.fileErrors.length) return { ok: false, message: "conversation.uploadFailed", messageValues: { error: input.fileErrors.join(" ") } };
  const parsed = replySchema.safeParse({ ...input.fields, reply_to: input.fields.reply_to ?? input.fields.reply });
  if (!parsed.success) return { ok: false, message: parsed.error.issues[0].message };
  for (const field of [parsed.data.cc, parsed.data.email2, parsed.data.email, parsed.data.toEmail]) {
    const { bad } = checkAddresses(field);
    if (bad) return { ok: false, message: "conversation.badEmail", messageValues: { address: bad } };
  }
  const body = parsed.data.message.trim();
  const sealed = encryptedInput(ticket, input.fields, body, input.files);
  if (sealed && "refused" in sealed) return { ok: false, message: sealed.refused };
  if (!body && !input.files.length && !sealed) return { ok: false, message: "conversation.empty" };
  const encrypted = sealed && "cipher" in sealed ? sealed : undefined;
  const out = body && !encrypted && input.enabled ? await outgoingReply({ ticketId: ticket.id, body }, input.enabled) : { body, keep: [] };
  if ("refused" in out) return { ok: false, message: out.refused, messageValues: out.values };
  const stored = await storeFiles(input.files);
  try {
    return {
      ok: true,
      created: await reply(actor, ticket, {
        body: out.body,
        replyToId: parsed.data.reply_to,
        files: stored,
        recipients: replyRecipients(parsed.data),
        encrypted,
        // the text message is the first written
        attach: out.keep.length ? async (tx, messages) => void (await Promise.all(out.keep.map((k) => k(tx, messages[0].id)))) : undefined,
      }),
    };
  } catch (error) {
    await Promise.all(stored.map((f) => fileStorage().remove(f.key)));
    if (error instanceof EncryptionRefused) return { ok: false, message: error.message };
    throw error;
  }
}

/**
 * An encrypted conversation takes only ciphertext (the browser's envelope, `cipher`), sealed with
 * its current key version (`key_version`, or the spec's upload field `encryption`) under a fresh
 * client id (`client_id`), with no text beside it and at most one attachment, itself encrypted;
 * a conversation that is not encrypted takes no ciphertext. Null: a plain reply.
 */
function encryptedInput(
  ticket: TicketRow,
  fields: Record<string, unknown>,
  body: string,
  files: File[],
): { refused: string } | { cipher: string; keyVersion: number; clientId: string } | null {
  const cipher = typeof fields.cipher === "string" ? fields.cipher : "";
  const sealedFiles = files.filter((f) => f.type === ENCRYPTED_FILE_TYPE).length;
  if (!ticket.encryption) {
    if (cipher || sealedFiles) return { refused: "conversation.encryption.notEncrypted" };
    return null;
  }
  if (!cipher) return { refused: "conversation.encryption.plaintext" };
  const version = Number(fields.key_version ?? fields.encryption);
  const clientId = typeof fields.client_id === "string" ? fields.client_id : "";
  if (body || !isEnvelope(cipher) || !CLIENT_ID_PATTERN.test(clientId) || !Number.isSafeInteger(version) || files.length > 1 || sealedFiles !== files.length)
    return { refused: "conversation.encryption.malformed" };
  return { cipher, keyVersion: version, clientId };
}
