// POST /api/translate (and /api/translate2 for calls) {_token, ticketId, text: [{id, message}],
// target, source} -> {result, text: [{id, text}]} (spec section 7). Through the workspace's
// OpenAI-compatible adapter, else offline through Apertium (503 'Translation is not available for
// this language pair' when its pair is not installed); with AI off 503 'Translation is not
// configured…'; when the translator does not answer 503 with the reason. The reader must be able to read the ticket. A text whose
// id is a message of that ticket is stored as the message's translation (translated_text).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { englishText, readBody, requireApiUser } from "~/api.server";
import { guardPluginRoute } from "~/context.server";
import { canRead } from "~/conversation/access.server";
import { MAX_CHARS } from "../analyse";
import { translateTexts } from "../translate.server";

const id = z.coerce
  .number()
  .int()
  .min(1)
  .max(2 ** 31 - 1);
const input = z.object({
  ticketId: id,
  text: z
    .array(
      z.object({
        id: z.coerce
          .number()
          .int()
          .min(0)
          .max(2 ** 31 - 1),
        message: z.string().max(MAX_CHARS),
      }),
    )
    .min(1)
    .max(50),
  target: z.string().regex(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/, "Please give the target language as a code (en, ms, zh…)."),
  source: z
    .string()
    .regex(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/)
    .optional()
    .or(z.literal("")),
});

export async function action({ request, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const body = await readBody(request);
  const user = await requireApiUser(request, body);
  // a form-encoded body carries the list as JSON text
  const raw = typeof body.text === "string" ? safeJson(body.text) : body.text;
  const parsed = input.safeParse({ ...body, text: raw });
  if (!parsed.success) return json({ result: "failed", description: parsed.error.issues[0]?.message ?? "Please check the input." }, { status: 400 });
  const q = parsed.data;
  if (!(await canRead(user, q.ticketId))) return json({ result: "failed", description: "Access denied" }, { status: 403 });
  const answer = await translateTexts(
    q.text.map((t) => ({ id: t.id, text: t.message })),
    q.target,
    q.source || undefined,
  );
  if (answer.state === "not_configured") return json({ result: "failed", description: englishText("plugin_ai.translate.notConfigured") }, { status: 503 });
  if (answer.state === "no_pair")
    return json(
      { result: "failed", description: englishText("plugin_ai.translate.noPair", { source: answer.source || "?", target: answer.target }), reason: "no_pair" },
      { status: 503 },
    );
  if (answer.state === "unavailable")
    return json(
      {
        result: "failed",
        description: `${englishText("plugin_ai.state.unavailable")} ${englishText(`plugin_ai.reason.${answer.reason}`)}`,
        reason: answer.reason,
      },
      { status: 503 },
    );
  return json({ result: "success", text: answer.texts }, { headers: { "Cache-Control": "private, no-store" } });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
