// POST /api/language/set {_token, ticketId, lang} (spec section 7): the conversation's language.
// A language other than the customer's translates the visitor's latest messages (stored, the
// originals unchanged); the same one only sets it. The choice is kept even when translation is
// not configured or the model does not answer (the answer says so).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { englishText, readBody, requireApiUser } from "~/api.server";
import { guardPluginRoute } from "~/context.server";
import { canRead } from "~/conversation/access.server";
import { LANGUAGES } from "~/i18n";
import { setLanguage } from "../translate.server";

const input = z.object({
  ticketId: z.coerce
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1),
  lang: z.enum(LANGUAGES, { message: "Please choose one of en, ms, zh, ko, ja." }),
});

export async function action({ request, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const body = await readBody(request);
  const user = await requireApiUser(request, body);
  const parsed = input.safeParse(body);
  if (!parsed.success) return json({ result: "failed", description: parsed.error.issues[0]?.message ?? "Please check the input." }, { status: 400 });
  if (!(await canRead(user, parsed.data.ticketId))) return json({ result: "failed", description: "Access denied" }, { status: 403 });
  const done = await setLanguage(parsed.data.ticketId, parsed.data.lang);
  const answer = done.answer;
  return json({
    result: "success",
    lang: parsed.data.lang,
    translated: answer?.state === "ok" ? answer.texts.length : 0,
    ...(answer && answer.state !== "ok"
      ? {
          description:
            answer.state === "no_pair"
              ? englishText("plugin_ai.translate.noPair", { source: answer.source || "?", target: answer.target })
              : englishText(answer.state === "not_configured" ? "plugin_ai.translate.notConfigured" : "plugin_ai.translate.unavailable"),
        }
      : {}),
  });
}
