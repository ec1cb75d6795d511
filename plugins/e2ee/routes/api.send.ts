// POST /api/e2ee/send/{ticketId} (multipart) {cipher, key_version, client_id, reply_to?, attachment?}:
// an encrypted message from a participant's browser, through the host's reply path (which takes
// only ciphertext of the current key version, a fresh client id, one encrypted file at most).
// 409 for an old key version or a replayed client id: the browser fetches the keys and seals again.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { englishText } from "~/api.server";
import { conversationById } from "~/conversation/model.server";
import { sendReply } from "~/conversation/reply.server";
import { BodyTooLarge, readReplyForm } from "~/conversation/upload.server";
import { e2eeApiUser, e2eeJson } from "../guard.server";
import { E2eeRefused } from "../e2ee.server";

const CONFLICTS = ["conversation.encryption.oldKey", "conversation.encryption.replayed"];

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await e2eeApiUser(request, context);
  let parsed;
  try {
    parsed = await readReplyForm(request);
  } catch (error) {
    if (error instanceof BodyTooLarge) return json({ result: "failed", description: error.message }, { status: 413 });
    throw error;
  }
  const fields = Object.fromEntries(parsed.form);
  return e2eeJson(async () => {
    const ticket = await conversationById(user, Number(params.ticketId));
    // the reply path refuses anything that is not ciphertext in an encrypted conversation
    const sent = await sendReply(user, ticket, { fields, files: parsed.files, fileErrors: parsed.fileErrors });
    if (!sent.ok) throw new E2eeRefused(sent.message, CONFLICTS.includes(sent.message) ? 409 : 400);
    return { ids: sent.created.map((m) => m.id) };
  });
}

export const loader = () => json({ result: "failed", description: englishText("plugin_e2ee.errors.notFound") }, { status: 405 });
