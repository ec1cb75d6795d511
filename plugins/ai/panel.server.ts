// The conversation's emotion and context panels (app/conversation/panels.server.ts): the ticket's
// roll-up of its messages' analyses, with what the reading is worth said plainly (a language the
// offline reader knows less, a long message read in part, an outside model that did not answer,
// AI switched off). Two sections of one plugin, told apart by their ids.
import type { PanelAction, PanelInput, PanelSection } from "~/conversation/panels.server";
import { ticketAnalysis } from "./analysis.server";
import { aiSettings } from "./settings.server";
import { MAX_CHARS } from "./analyse";
import { ticketRecommendations } from "./recommend.server";
import { scamHintsForMessage } from "./scam.server";
import { chosenLanguage, storedTranslations, ticketLanguage, translatedReplies, translatorFor, visitorMessages } from "./translate.server";
import { fitEncoded } from "@plugins/kb/panel.server";
import { dismissedKinds } from "./feedback.server";
import { finalLabel } from "./labels.server";

type Item = PanelSection["items"][number];

export async function aiPanels({ ticket, reader }: PanelInput): Promise<PanelSection[] | null> {
  if (ticket.kind === "chat") return null;
  const settings = await aiSettings();
  const emotion: PanelSection = { id: "ai-emotion", title: "plugin_ai.panel.emotion.title", items: [], actions: [] };
  const context: PanelSection = { id: "ai-context", title: "plugin_ai.panel.context.title", items: [], actions: [] };
  const recommend: PanelSection = { id: "ai-recommend", title: "plugin_ai.panel.recommend.title", items: [], actions: [] };
  const risk: PanelSection = { id: "ai-risk", title: "plugin_ai.panel.risk.title", items: [], actions: [] };
  const translate = await translation(ticket, settings.adapter !== "off");
  if (settings.adapter === "off") {
    emotion.empty = context.empty = recommend.empty = risk.empty = "plugin_ai.state.notConfigured";
    return [emotion, context, recommend, risk, translate];
  }
  await recommendations(ticket, reader, recommend);
  const hints = await scamHintsForMessage({ ticketId: ticket.id });
  risk.items = hints.map((h) => ({ label: { key: `plugin_ai.scam.${h.kind}`, values: { ...h.values, confidence: String(Math.round(h.confidence * 100)) } } }));
  if (!risk.items.length) risk.empty = "plugin_ai.panel.risk.none";
  const found = await ticketAnalysis(ticket.id);
  if (!found) {
    emotion.empty = context.empty = "plugin_ai.panel.notYet";
    return [emotion, context, recommend, risk, translate];
  }
  const items: Item[] = [];
  items.push(
    found.customerEmotion
      ? {
          label: {
            key: "plugin_ai.panel.emotion.customer",
            values: { emotion: `t:plugin_ai.emotion.${found.customerEmotion}`, confidence: String(found.customerConfidence) },
          },
        }
      : { label: { key: "plugin_ai.panel.emotion.unclear" } },
  );
  const counts = Object.entries(found.emotionCounts).sort((a, b) => b[1] - a[1]);
  for (const [name, n] of counts)
    items.push({ label: { key: "plugin_ai.panel.emotion.count", values: { emotion: `t:plugin_ai.emotion.${name}`, count: String(n) } } });
  if (found.agentEmotion) items.push({ label: { key: "plugin_ai.panel.emotion.agent", values: { emotion: `t:plugin_ai.emotion.${found.agentEmotion}` } } });
  // a call's voice, read from its recording after hang-up (voice-call.server.ts)
  if (found.energy != null && found.pace != null)
    items.push({
      label: {
        key: "plugin_ai.panel.emotion.voice",
        values: {
          energy: `t:plugin_ai.voiceLevel.energy.l${found.energy}`,
          energyLevel: String(found.energy),
          pace: `t:plugin_ai.voiceLevel.pace.l${found.pace}`,
          paceLevel: String(found.pace),
        },
      },
    });
  const notes: Item[] = [];
  if (ticket.kind === "call" && !found.last && (found.energy != null || found.customerEmotion))
    notes.push({ label: { key: "plugin_ai.panel.emotion.fromCall" } });
  if (found.degraded) notes.push({ label: { key: "plugin_ai.panel.degraded", values: { language: languageKey(found.language) } } });
  if (found.truncated) notes.push({ label: { key: "plugin_ai.panel.truncated", values: { max: String(MAX_CHARS) } } });
  if (found.last?.analyser.includes("(fallback")) notes.push({ label: { key: "plugin_ai.state.unavailable" } });
  const label = await finalLabel(ticket.id);
  if (label?.emotion || label?.classification)
    items.push({
      label: {
        key: "plugin_ai.panel.emotion.final",
        values: {
          emotion: label.emotion ? `t:plugin_ai.emotion.${label.emotion}` : "t:plugin_ai.label.none",
          classification: label.classification ? `t:plugin_ai.class.${label.classification}` : "t:plugin_ai.label.none",
        },
      },
    });
  emotion.actions.push({ label: { key: "plugin_ai.panel.emotion.setLabel" }, href: `/ai/label/${ticket.kind}/${ticket.ticketNumber}` });
  emotion.items = [...items, ...notes];

  context.items = [
    ...(found.intent ? [{ label: { key: "plugin_ai.panel.context.wants", values: { intent: `t:plugin_ai.intent.${found.intent}` } } }] : []),
    ...(found.classification
      ? [{ label: { key: "plugin_ai.panel.context.class", values: { classification: `t:plugin_ai.class.${found.classification}` } } }]
      : []),
    // the customer's own words: shown as text (React escapes it)
    ...(found.subject ? [{ label: { key: "plugin_ai.panel.context.subject", values: { subject: found.subject } } }] : []),
    ...(found.personality
      ? [{ label: { key: "plugin_ai.panel.context.personality", values: { personality: `t:plugin_ai.personality.${found.personality}` } } }]
      : []),
    ...notes,
  ];
  if (!context.items.length) context.empty = "plugin_ai.panel.notYet";
  return [emotion, context, recommend, risk, translate];
}

/** A ?draft= link stays well under a request line's limits (as the knowledge base's panel does). */
const HREF_BUDGET = 6000;
const draftHref = (text: string) => `?${new URLSearchParams({ draft: fitEncoded(text, HREF_BUDGET) })}#reply`;

/** The recommendations section: each kind with what to do and how, "Insert" (the draft into the reply box) and its sources. */
async function recommendations(ticket: PanelInput["ticket"], reader: PanelInput["reader"], section: PanelSection) {
  const answer = await ticketRecommendations({ ticketId: ticket.id, reader });
  if (answer.state === "no_message" || answer.state === "not_configured") {
    section.empty = answer.state === "no_message" ? "plugin_ai.panel.recommend.none" : "plugin_ai.state.notConfigured";
    return;
  }
  const dismissed = answer.messageId ? await dismissedKinds(answer.messageId) : new Set<string>();
  const shown = answer.recommendations.filter((r) => !dismissed.has(r.kind));
  if (!shown.length) section.empty = "plugin_ai.panel.recommend.allDismissed";
  for (const r of shown.sort((a, b) => b.confidence - a.confidence)) {
    const values = {
      kind: `t:plugin_ai.rec.kind.${r.kind}`,
      confidence: String(Math.round(r.confidence * 100)),
      todo: r.model ? r.whatToDo : `t:${r.whatToDo}`,
      how: r.model ? r.howToSay : `t:${r.howToSay}`,
    };
    section.items.push({
      label: { key: r.model ? "plugin_ai.panel.recommend.itemModel" : "plugin_ai.panel.recommend.item", values },
      actions: [
        { label: { key: "plugin_ai.panel.recommend.insert", values: { text: r.whatToSay } }, href: draftHref(r.whatToSay), insert: r.whatToSay },
        // the agent says it does not fit: kept for /ai_learning, and it leaves the panel
        ...(answer.messageId
          ? [
              {
                label: { key: "plugin_ai.panel.recommend.dismiss", values: { kind: `t:plugin_ai.rec.kind.${r.kind}` } },
                href: "/ai/recommendation/dismiss",
                fields: { kind: ticket.kind, number: String(ticket.ticketNumber), message: String(answer.messageId), recommendation: r.kind },
              },
            ]
          : []),
        ...r.sources.map((s): PanelAction => ({
          label:
            s.type === "kb"
              ? { key: "plugin_ai.panel.recommend.source", values: { title: s.title } }
              : { key: "plugin_ai.panel.recommend.sourceAnswer", values: { id: String(s.id) } },
          href: s.href,
        })),
      ],
    });
  }
  if (answer.state === "unavailable") section.items.push({ label: { key: "plugin_ai.state.unavailable" } });
}

const KNOWN_LANGUAGES = new Set(["en", "ms", "zh", "ja", "ko"]);
const languageKey = (code: string) => (KNOWN_LANGUAGES.has(code) ? `t:plugin_ai.language.${code}` : `t:plugin_ai.language.other`);

/**
 * The Translation section: the conversation's language and, when an agent chose one other than
 * the customer's, the visitor's messages in it (each links to its original, which the
 * conversation shows unchanged); "Choose the language" opens the language form (/ai/language).
 */
async function translation(ticket: PanelInput["ticket"], on: boolean): Promise<PanelSection> {
  const section: PanelSection = {
    id: "ai-translate",
    title: "plugin_ai.translate.panelTitle",
    items: [],
    actions: [{ label: { key: "plugin_ai.translate.chooseLink" }, href: `/ai/language/${ticket.kind}/${ticket.ticketNumber}` }],
  };
  const chosen = await chosenLanguage(ticket.id);
  const own = await ticketLanguage(ticket.id);
  if (!on) section.items.push({ label: { key: "plugin_ai.translate.notConfigured" } });
  if (!chosen || chosen === own) {
    if (on) section.empty = "plugin_ai.translate.none";
    return section;
  }
  if (on && own && (await translatorFor(own, chosen)) === "no_pair")
    section.items.push({ label: { key: "plugin_ai.translate.noPair", values: { source: languageKey(own), target: languageKey(chosen) } } });
  // the agent's replies, told before sending whether they go out translated
  if (own) {
    const out = on ? await translatorFor(chosen, own) : "not_configured";
    section.items.push({
      label:
        out === "outside" || out === "apertium"
          ? { key: "plugin_ai.translate.replyTranslated", values: { language: languageKey(own) } }
          : { key: "plugin_ai.translate.replyUntranslated", values: { language: languageKey(chosen) } },
    });
  }
  const replies = await translatedReplies(ticket.id);
  if (replies.length) section.items.push({ label: { key: "plugin_ai.translate.repliesAsWritten" } });
  // the agent's own words as written, shown as text; the sent translation one click away
  for (const r of replies)
    section.items.push({ label: { text: r.original }, actions: [{ label: { key: "plugin_ai.translate.sentText" }, href: `?message_id=${r.id}#m-${r.id}` }] });
  const messages = await visitorMessages(ticket.id);
  const stored = await storedTranslations(
    messages.map((m) => m.id),
    chosen,
  );
  section.items.push({ label: { key: "plugin_ai.translate.shownIn", values: { language: `t:plugin_ai.language.${languageCode(chosen)}` } } });
  for (const m of messages) {
    const text = stored.get(m.id);
    if (text === undefined) continue;
    // the translation is the customer's words in another language: shown as text
    section.items.push({ label: { text }, actions: [{ label: { key: "plugin_ai.translate.original" }, href: `?message_id=${m.id}#m-${m.id}` }] });
  }
  const missing = messages.filter((m) => !stored.has(m.id)).length;
  if (missing) section.items.push({ label: { key: "plugin_ai.translate.missing", values: { count: String(missing) } } });
  return section;
}

const languageCode = (code: string) => (KNOWN_LANGUAGES.has(code) ? code : "other");
