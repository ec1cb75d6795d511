// Reply recommendations for a conversation (the panel, /api/wauchat/recommendation and
// /api/wauchat/ticket_recommendation): the customer's message (the one asked for, else the
// conversation's latest), its analysis (stored by the background job, else read now offline),
// the sources retrieval finds for it, and the five recommendations, offline or, when the
// workspace configured one, by the outside model through the service's guards (a failure answers
// the offline ones and says the model was unavailable). Access is the caller's: it has checked
// the reader may read the ticket; retrieval only offers what that reader may read.
import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import { getDb } from "@db/client";
import { translatorFor } from "~/i18n.server";
import { isLanguage } from "~/i18n";
import type { Reader } from "~/conversation/access.server";
import { analyseText, MAX_CHARS, type Analysis, type Emotion, type Personality, type Classification } from "./analyse";
import { recommend, type Recommendation } from "./recommend";
import { findSources } from "./retrieve.server";
import { aiSettings } from "./settings.server";
import { callOutside, openAiConfig, usesOutside } from "./service.server";
import { chat } from "./adapters/openai.server";
import { readRecommendations, recommendPrompt } from "./adapters/llm-recommend";
import { plainText } from "./analysis.server";
import { recordOffers } from "./feedback.server";

export type RecommendAnswer =
  | { state: "not_configured" }
  | { state: "no_message" }
  | {
      state: "ok" | "unavailable";
      reason?: string;
      messageId: number | null;
      language: string;
      analysis: Pick<Analysis, "emotion" | "confidence" | "personality" | "classification">;
      recommendations: Recommendation[];
    };

type Labels = Pick<Analysis, "emotion" | "confidence" | "personality" | "classification" | "language">;

/** The customer's message to answer: `messageId` when it is a customer's message of this ticket, else the latest. */
async function customerMessage(ticketId: number, messageId?: number) {
  const { db, schema } = getDb();
  const m = schema.messages;
  const [row] = await db
    .select({ id: m.id, type: m.type, body: m.body })
    .from(m)
    .where(and(eq(m.ticketId, ticketId), isNull(m.senderUserId), inArray(m.type, ["text", "text/html"]), messageId ? eq(m.id, messageId) : undefined))
    .orderBy(desc(m.id))
    .limit(1);
  return row ? { id: row.id, text: plainText(row) } : null;
}

async function storedLabels(messageId: number): Promise<Labels | null> {
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.aiMessageAnalysis).where(eq(schema.aiMessageAnalysis.messageId, messageId));
  if (!row) return null;
  return {
    emotion: row.emotion as Emotion | "",
    confidence: row.confidence / 100,
    personality: (row.personality || "amiable") as Personality,
    classification: (row.classification || "inquiry") as Classification,
    language: row.language,
  };
}

/** The ticket's recommendations for the reader (who may read the ticket: the caller checked). */
export async function ticketRecommendations(input: { ticketId: number; reader: Reader; messageId?: number; text?: string }): Promise<RecommendAnswer> {
  const settings = await aiSettings();
  if (settings.adapter === "off") return { state: "not_configured" };
  let message: { id: number | null; text: string } | null = null;
  if (input.text?.trim()) message = { id: null, text: input.text.slice(0, MAX_CHARS) };
  else message = await customerMessage(input.ticketId, input.messageId);
  if (!message) return { state: "no_message" };
  const labels = (message.id ? await storedLabels(message.id) : null) ?? analyseText(message.text);
  const sources = await findSources(message.text, input.reader, { excludeTicketId: input.ticketId });
  const language = isLanguage(labels.language) ? labels.language : "en";
  const offline = recommend(labels, sources, translatorFor(language));
  const base = {
    messageId: message.id,
    language,
    analysis: { emotion: labels.emotion, confidence: labels.confidence, personality: labels.personality, classification: labels.classification },
  };
  // what was shown is kept as offered: the agent's next reply is compared with it (feedback.server.ts)
  const shownFor = message.id;
  const offered = async (recommendations: Recommendation[]) => {
    if (shownFor) await recordOffers(input.ticketId, shownFor, recommendations);
    return recommendations;
  };
  if (!usesOutside(settings)) return { state: "ok", ...base, recommendations: await offered(offline) };
  const text = message.text;
  const answer = await callOutside(settings, `recommend\n${text}\n${sources.map((s) => `${s.type}:${s.id}`).join(",")}`, async () =>
    readRecommendations(await chat(openAiConfig(settings), recommendPrompt(text, labels, sources), { maxTokens: 1200 }), text, sources, offline),
  );
  return answer.ok
    ? { state: "ok", ...base, recommendations: await offered(answer.value) }
    : { state: "unavailable", reason: answer.reason, ...base, recommendations: await offered(offline) };
}
