// POST /api/ticket/message/reply (JSON or multipart) {ticket_id, message, _token, reply, cc, email, email2, toEmail, attachment[]}
// and POST /api/upload (multipart) {attachment[], _token, ticket_id} -> {result, id, file, fileType, fileName}
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { conversationById, messagesOfTicket } from "~/conversation/model.server";
import { KeyReused, once, requestKeyOfRequest } from "~/request-keys.server";
import { apiAuth, englishText, requireApiUser } from "~/api.server";
import { jsonErrors } from "~/conversation/api.server";
import { BodyTooLarge, FormRefused, readJsonBody, readReplyForm, type ParsedForm } from "~/conversation/upload.server";
import { sendReply } from "~/conversation/reply.server";
import { editionForHost } from "~/models/editions.server";

export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

const failed = (status: number, description: string) => json({ result: "failed", description }, { status });

export async function action({ request }: ActionFunctionArgs) {
  const isJson = (request.headers.get("Content-Type") ?? "").includes("application/json");
  // a token in the query or header is checked before the body is read; one in a multipart body
  // before its first file (readReplyForm's beforeFiles), so strangers cannot have files buffered
  const url = new URL(request.url);
  if (url.searchParams.has("_token") || request.headers.has("Authorization")) await requireApiUser(request);
  let parts: ParsedForm;
  let fields: Record<string, unknown>;
  try {
    parts = isJson
      ? { form: new FormData(), files: [], fileErrors: [] }
      : await readReplyForm(request, { beforeFiles: async (sent) => !!(await apiAuth(request, Object.fromEntries(sent))) });
    fields = isJson ? await readJsonBody(request) : Object.fromEntries(parts.form);
  } catch (error) {
    if (error instanceof BodyTooLarge) return failed(413, error.message);
    if (error instanceof FormRefused) return failed(403, "Session expired. Please log in again.");
    throw error;
  }
  const { files, fileErrors } = parts;
  const user = await requireApiUser(request, fields);
  return jsonErrors(async () => {
    const ticket = await conversationById(user, Number(fields.ticket_id));
    // a retry with the first send's Idempotency-Key answers the first send's messages (ADR 045)
    const requestKey = requestKeyOfRequest(request, `user:${user.id}`, "reply", fields, files);
    try {
      return await once(
        requestKey,
        async () => {
          const { enabled } = await editionForHost(request.headers.get("Host"));
          const sent = await sendReply(user, ticket, { fields, files, fileErrors, enabled });
          if (!sent.ok) return json({ result: "failed", description: englishText(sent.message, sent.messageValues) }, { status: 400 });
          return sentAnswer(sent.created);
        },
        async (first) => sentAnswer(await messagesOfTicket(ticket, (first as { ids: number[] }).ids)),
      );
    } catch (error) {
      if (error instanceof KeyReused) return failed(422, "Idempotency-Key was used for another request");
      throw error;
    }
  });
}

function sentAnswer(created: { id: number; fileKey: string | null; fileType: string | null; fileName: string | null }[]) {
  const withFile = created.find((m) => m.fileKey);
  return json({
    result: "success",
    id: created.at(-1)?.id ?? null,
    ids: created.map((m) => m.id),
    file: withFile ? `/files/v101/${withFile.id}/${encodeURIComponent(withFile.fileName ?? "file")}` : null,
    fileType: withFile?.fileType ?? null,
    fileName: withFile?.fileName ?? null,
  });
}
