// The conversation's emotion and context panels (app/conversation/panels.server.ts): the ticket's
// roll-up of its messages' analyses, with what the reading is worth said plainly (a language the
// offline reader knows less, a long message read in part, an outside model that did not answer,
// AI switched off). Two sections of one plugin, told apart by their ids.
import type { PanelInput, PanelSection } from "~/conversation/panels.server";
import { ticketAnalysis } from "./analysis.server";
import { aiSettings } from "./settings.server";
import { MAX_CHARS } from "./analyse";

type Item = PanelSection["items"][number];

export async function aiPanels({ ticket }: PanelInput): Promise<PanelSection[] | null> {
  if (ticket.kind === "chat") return null;
  const settings = await aiSettings();
  const emotion: PanelSection = { id: "ai-emotion", title: "plugin_ai.panel.emotion.title", items: [], actions: [] };
  const context: PanelSection = { id: "ai-context", title: "plugin_ai.panel.context.title", items: [], actions: [] };
  if (settings.adapter === "off") {
    emotion.empty = context.empty = "plugin_ai.state.notConfigured";
    return [emotion, context];
  }
  const found = await ticketAnalysis(ticket.id);
  if (!found) {
    emotion.empty = context.empty = "plugin_ai.panel.notYet";
    return [emotion, context];
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
  const notes: Item[] = [];
  if (found.degraded) notes.push({ label: { key: "plugin_ai.panel.degraded", values: { language: languageKey(found.language) } } });
  if (found.truncated) notes.push({ label: { key: "plugin_ai.panel.truncated", values: { max: String(MAX_CHARS) } } });
  if (found.last?.analyser.includes("(fallback")) notes.push({ label: { key: "plugin_ai.state.unavailable" } });
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
  return [emotion, context];
}

const KNOWN_LANGUAGES = new Set(["en", "ms", "zh", "ja", "ko"]);
const languageKey = (code: string) => (KNOWN_LANGUAGES.has(code) ? `t:plugin_ai.language.${code}` : `t:plugin_ai.language.other`);
