// POST /api/ticket/message/reply (JSON or multipart) {ticket_id, message, _token, reply, cc, email, email2, attachment[]}
// and POST /api/upload (multipart) {attachment[], _token, ticket_id} -> {result, id, file, fileType, fileName}
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { conversationById, reply } from "~/models/conversation.server";
import { jsonErrors, requireApiUser } from "~/api-tickets.server";
import { fileStorage } from "~/storage.server";
import { readReplyForm, storeFiles } from "@plugins/tickets/upload.server";
import { checkAddresses, replySchema } from "@plugins/tickets/conversation-forms";

export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

export async function action({ request }: ActionFunctionArgs) {
  const isJson = (request.headers.get("Content-Type") ?? "").includes("application/json");
  const { form, files, fileErrors } = isJson
    ? { form: null, files: [] as File[], fileErrors: [] as string[] }
    : await readReplyForm(request);
  const body: Record<string, unknown> = isJson ? ((await request.json().catch(() => ({}))) as Record<string, unknown>) : Object.fromEntries(form!);
  const user = await requireApiUser(request, body);
  if (fileErrors.length) return json({ result: "failed", description: `Opps, file failed to upload. The error is ${fileErrors.join(" ")}` }, { status: 400 });
  const parsed = replySchema.safeParse({ ...body, reply_to: body.reply ?? body.reply_to });
  if (!parsed.success) return json({ result: "failed", description: "Please check the input." }, { status: 400 });
  for (const field of [parsed.data.cc, parsed.data.email2, typeof body.email === "string" ? body.email : ""]) {
    const { bad } = checkAddresses(field);
    if (bad) return json({ result: "failed", description: `Please check the email address. ${bad}` }, { status: 400 });
  }
  const text = parsed.data.message.trim();
  if (!text && !files.length) return json({ result: "failed", description: "Write a message or attach a file." }, { status: 400 });
  return jsonErrors(async () => {
    const ticket = await conversationById(user, Number(body.ticket_id));
    const stored = await storeFiles(files);
    try {
      const created = await reply(user, ticket, { body: text, replyToId: parsed.data.reply_to, files: stored });
      const withFile = created.find((m) => m.fileKey);
      return json({
        result: "success",
        id: created.at(-1)!.id,
        ids: created.map((m) => m.id),
        file: withFile ? `/files/v101/${withFile.id}/${encodeURIComponent(withFile.fileName ?? "file")}` : null,
        fileType: withFile?.fileType ?? null,
        fileName: withFile?.fileName ?? null,
      });
    } catch (error) {
      await Promise.all(stored.map((f) => fileStorage().remove(f.key)));
      throw error;
    }
  });
}
