// POST /api/ticket/message/reply (JSON or multipart) {ticket_id, message, _token, reply, cc, email, email2, attachment[]}
// and POST /api/upload (multipart) {attachment[], _token, ticket_id} -> {result, id, file, fileType, fileName}
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { conversationById } from "~/conversation/model.server";
import { englishText, requireApiUser } from "~/api.server";
import { jsonErrors } from "~/conversation/api.server";
import { readReplyForm } from "~/conversation/upload.server";
import { sendReply } from "~/conversation/reply.server";

export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

export async function action({ request }: ActionFunctionArgs) {
  const isJson = (request.headers.get("Content-Type") ?? "").includes("application/json");
  const { form, files, fileErrors } = isJson ? { form: null, files: [], fileErrors: [] } : await readReplyForm(request);
  const fields: Record<string, unknown> = isJson ? ((await request.json().catch(() => ({}))) as Record<string, unknown>) : Object.fromEntries(form!);
  const user = await requireApiUser(request, fields);
  return jsonErrors(async () => {
    const ticket = await conversationById(user, Number(fields.ticket_id));
    const sent = await sendReply(user, ticket, { fields, files, fileErrors });
    if (!sent.ok) return json({ result: "failed", description: englishText(sent.message, sent.messageValues) }, { status: 400 });
    const withFile = sent.created.find((m) => m.fileKey);
    return json({
      result: "success",
      id: sent.created.at(-1)!.id,
      ids: sent.created.map((m) => m.id),
      file: withFile ? `/files/v101/${withFile.id}/${encodeURIComponent(withFile.fileName ?? "file")}` : null,
      fileType: withFile?.fileType ?? null,
      fileName: withFile?.fileName ?? null,
    });
  });
}
