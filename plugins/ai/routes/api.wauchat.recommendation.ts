// GET /api/wauchat/recommendation ?messageId | ticketId, text, channel, translation, type (scam)
// GET /api/wauchat/ticket_recommendation ?ticketId | messageId, text, channel
// (spec section 7): the reply recommendations for a customer's message, as rec_data
// {classification, what_to_do, how_to_say, what_to_say, results, scam, confidence}: the top-level
// fields are the surest recommendation's, `results` all five kinds with their sources; with
// type=scam, `scam` holds the message's risk hints instead. `_token` or the session cookie; the
// reader must be able to read the ticket (403 otherwise, as the pages).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { apiInput, englishText, requireApiUser } from "~/api.server";
import { guardPluginRoute } from "~/context.server";
import { AccessDenied, canRead } from "~/conversation/access.server";
import { NotFound } from "~/conversation/model.server";
import { jsonErrors } from "~/conversation/api.server";
import { MAX_CHARS } from "../analyse";
import { ticketRecommendations } from "../recommend.server";
import { scamHintsForMessage } from "../scam.server";

const id = z.coerce
  .number()
  .int()
  .min(1)
  .max(2 ** 31 - 1);
const input = z
  .object({
    messageId: id.optional(),
    ticketId: id.optional(),
    text: z
      .string()
      .max(MAX_CHARS * 4)
      .optional(),
    channel: z.string().max(40).optional(),
    translation: z.string().max(10).optional(),
    type: z.enum(["scam", "recommendation"]).optional(),
  })
  .refine((v) => v.messageId || v.ticketId, { message: "Please give messageId or ticketId." });

const english = (key: string, model?: boolean) => (model ? key : englishText(key));
const englishValues = (values: Record<string, string>) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.startsWith("t:") ? englishText(v.slice(2)) : v]));

async function ticketOf(q: { messageId?: number; ticketId?: number }) {
  if (q.ticketId) return q.ticketId;
  const { db, schema } = getDb();
  const [row] = await db.select({ ticketId: schema.messages.ticketId }).from(schema.messages).where(eq(schema.messages.id, q.messageId!));
  if (!row) throw new NotFound();
  return row.ticketId;
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  const user = await requireApiUser(request);
  const q = apiInput(request, input);
  return jsonErrors(async () => {
    const ticketId = await ticketOf(q);
    if (!(await canRead(user, ticketId))) throw new AccessDenied();
    const headers = { "Cache-Control": "private, no-store" };
    if (q.type === "scam") {
      const hints = await scamHintsForMessage({ ticketId, messageId: q.messageId, text: q.text });
      return json(
        {
          result: "success",
          rec_data: {
            classification: "scam",
            scam: hints.map((h) => ({
              kind: h.kind,
              why: englishText(`plugin_ai.scam.${h.kind}`, englishValues({ ...h.values, confidence: String(Math.round(h.confidence * 100)) })),
              evidence: h.evidence,
              confidence: h.confidence,
            })),
            confidence: hints.reduce((m, h) => Math.max(m, h.confidence), 0),
            results: [],
          },
        },
        { headers },
      );
    }
    const answer = await ticketRecommendations({ ticketId, reader: user, messageId: q.messageId, text: q.text });
    if (answer.state === "not_configured")
      return json({ result: "failed", description: englishText("plugin_ai.state.notConfigured") }, { status: 503, headers });
    if (answer.state === "no_message")
      return json({ result: "success", rec_data: null, description: englishText("plugin_ai.panel.recommend.none") }, { headers });
    const results = answer.recommendations.map((r) => ({
      type: r.kind,
      what_to_do: english(r.whatToDo, r.model),
      how_to_say: english(r.howToSay, r.model),
      what_to_say: r.whatToSay,
      confidence: r.confidence,
      sources: r.sources,
    }));
    const best = [...results].sort((a, b) => b.confidence - a.confidence)[0];
    return json(
      {
        result: "success",
        state: answer.state,
        ...(answer.reason ? { description: englishText("plugin_ai.state.unavailable"), reason: answer.reason } : {}),
        message_id: answer.messageId,
        language: answer.language,
        rec_data: {
          classification: answer.analysis.classification,
          emotion: answer.analysis.emotion,
          personality: answer.analysis.personality,
          what_to_do: best.what_to_do,
          how_to_say: best.how_to_say,
          what_to_say: best.what_to_say,
          confidence: best.confidence,
          results,
          scam: null,
        },
      },
      { headers },
    );
  });
}
