// POST /api/e2ee/note/{ticketId} {message_id, cipher, key_version, client_id}: a private note a
// participant's browser sealed (bound to that message, so it cannot pass for a message or move to
// another one), through the host's note path, which takes only this in an encrypted conversation.
// 409 for an old key version or a replayed client id: the browser fetches the keys and seals again.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { englishText, readBody } from "~/api.server";
import { addNote, conversationById, EncryptionRefused } from "~/conversation/model.server";
import { e2eeApiUser, e2eeJson } from "../guard.server";
import { E2eeRefused } from "../e2ee.server";

const CONFLICTS = ["conversation.encryption.oldKey", "conversation.encryption.replayed"];

export async function action({ request, context, params }: ActionFunctionArgs) {
  const body = await readBody(request);
  const user = await e2eeApiUser(request, context, body);
  return e2eeJson(async () => {
    const ticket = await conversationById(user, Number(params.ticketId));
    const sealed = { cipher: String(body.cipher ?? ""), keyVersion: Number(body.key_version), clientId: String(body.client_id ?? "") };
    try {
      await addNote(user, ticket, Number(body.message_id), "", sealed);
    } catch (error) {
      if (error instanceof EncryptionRefused) throw new E2eeRefused(error.message, CONFLICTS.includes(error.message) ? 409 : 400);
      throw error;
    }
    return { saved: true };
  });
}

export const loader = () => json({ result: "failed", description: englishText("plugin_e2ee.errors.notFound") }, { status: 405 });
