// Reply recommendations, the offline default: the spec's five kinds (alternative, personality,
// advocacy, forwardresolution, anchor), each with what to do and how to say it (for the agent, in
// the agent's language: translation keys) and what to say (a draft for the customer, in the
// customer's language), grounded in the sources retrieval found (knowledge-base articles and the
// workspace's own answers that resolved similar tickets). Pure: the server part
// (recommend.server.ts) finds the message, its analysis and the sources.
//
// Other customers' data never reaches a draft: a past answer is scrubbed (addresses, numbers,
// links, the greeting's name, the other ticket's contact name) before it is used, and only its
// first sentences are.
import type { Analysis, Emotion, Personality } from "./analyse";

export const KINDS = ["alternative", "personality", "advocacy", "forwardresolution", "anchor"] as const;
export type Kind = (typeof KINDS)[number];

export interface Source {
  type: "kb" | "answer";
  /** Article id, or the ticket number of a resolved ticket. */
  id: number;
  title: string;
  /** Plain text (a past answer already scrubbed). */
  text: string;
  /** Where the agent reads it. */
  href: string;
  /** 0..1, retrieval's score against the best match. */
  score: number;
}

export interface Recommendation {
  kind: Kind;
  /** Translation key (plugin_ai.rec.do.*) or, from a model, the model's text. */
  whatToDo: string;
  /** Translation key (plugin_ai.rec.how.*) or the model's text. */
  howToSay: string;
  /** The draft for the customer. */
  whatToSay: string;
  sources: Pick<Source, "type" | "id" | "title" | "href">[];
  /** 0..1. */
  confidence: number;
  /** Written by the outside model: whatToDo and howToSay are its text, not keys. */
  model?: boolean;
}

type Translate = (key: string, values?: Record<string, string>) => string;

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.[\p{L}]{2,}/gu;
const URL_RE = /\b(?:https?:\/\/|www\.)[^\s<>"]+/gi;
/** Phone numbers, card and account numbers, order ids: any run of 5+ digits, spaces and dashes allowed inside. */
const LONG_NUMBER = /\+?\d(?:[\d\s().-]{3,}\d)/g;
const GREETING = /^\s*(hi|hello|hey|dear|good (?:morning|afternoon|evening)|hai|salam|helo)\b[^,\n!]{0,40}[,!]?\s*/i;

/** A past answer as it may appear before another customer: no addresses, numbers, links or names. */
export function scrub(text: string, names: string[] = []): string {
  let out = text.replace(EMAIL, "[email]").replace(URL_RE, "[link]");
  out = out.replace(LONG_NUMBER, (m) => ((m.match(/\d/g) ?? []).length >= 5 ? "[number]" : m));
  out = out.replace(GREETING, "");
  for (const name of names) {
    for (const part of name.split(/\s+/).filter((p) => p.length >= 2)) {
      const escaped = part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      out = out.replace(new RegExp(`(?<![\\p{L}])${escaped}(?![\\p{L}])`, "giu"), "");
    }
  }
  // a signature: what follows the sign-off is the agent's name and the old ticket's details
  out = out.replace(/\n\s*(regards|best regards|kind regards|thanks|thank you|cheers|sincerely|terima kasih)[\s\S]*$/i, "");
  return out
    .replace(/[ \t]+/g, " ")
    .replace(/\s+([,.!?])/g, "$1")
    .trim();
}

/** The first sentences of a text, up to about `max` characters, cut at a sentence's end when one is near. */
export function excerpt(text: string, max = 280): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const end = Math.max(cut.lastIndexOf(". "), cut.lastIndexOf("! "), cut.lastIndexOf("? "), cut.lastIndexOf("。"));
  return end > max / 3 ? cut.slice(0, end + 1) : `${cut.replace(/\s+\S*$/, "")}…`;
}

const OPENERS: Record<Emotion | "", string> = {
  anger: "anger",
  sad: "sad",
  fear: "fear",
  surprise: "surprise",
  happy: "happy",
  love: "happy",
  curious: "curious",
  "": "neutral",
};

const HOW_BY_EMOTION: Record<Emotion | "", string> = {
  anger: "calm",
  sad: "gentle",
  fear: "reassuring",
  surprise: "clear",
  happy: "warm",
  love: "warm",
  curious: "clear",
  "": "clear",
};

const round = (n: number) => Math.round(Math.max(0, Math.min(1, n)) * 100) / 100;

/**
 * The five recommendations for a customer's message. `t` translates into the customer's language
 * (the drafts); the agent's texts are keys the page translates into the agent's.
 */
export function recommend(
  analysis: Pick<Analysis, "emotion" | "confidence" | "personality" | "classification">,
  sources: Source[],
  t: Translate,
): Recommendation[] {
  const emotion = analysis.emotion;
  const personality: Personality = analysis.personality;
  const opener = t(`plugin_ai.rec.say.opener.${OPENERS[emotion]}`);
  const kb = sources.filter((s) => s.type === "kb");
  const answers = sources.filter((s) => s.type === "answer");
  const best = sources[0];
  const link = (s: Source | undefined) => (s ? [{ type: s.type, id: s.id, title: s.title, href: s.href }] : []);
  const grounded = (s: Source | undefined) => (s ? 0.35 + 0.4 * s.score : 0.25);
  const base = Math.max(analysis.confidence, 0.3);
  const join = (...parts: string[]) => parts.filter(Boolean).join(" ");

  // alternative: another way to what they want, from the best article (else the best past answer)
  const alt = kb[0] ?? answers[0];
  // forward resolution: the next step, as a resolved ticket like this one took it (else an article)
  const forward = answers[0] ?? kb[1] ?? kb[0];

  return [
    {
      kind: "alternative",
      whatToDo: alt ? "plugin_ai.rec.do.alternative" : "plugin_ai.rec.do.alternativeNone",
      howToSay: `plugin_ai.rec.how.${HOW_BY_EMOTION[emotion]}`,
      whatToSay: alt ? join(opener, t("plugin_ai.rec.say.alternative", { steps: excerpt(alt.text) })) : join(opener, t("plugin_ai.rec.say.alternativeNone")),
      sources: link(alt),
      confidence: round(grounded(alt) * (0.6 + 0.4 * base)),
    },
    {
      kind: "personality",
      whatToDo: `plugin_ai.rec.do.personality.${personality}`,
      howToSay: `plugin_ai.rec.how.personality.${personality}`,
      whatToSay: join(
        personality === "driver" ? "" : opener,
        t(`plugin_ai.rec.say.personality.${personality}`, {
          steps: best ? excerpt(best.text, personality === "driver" ? 160 : 280) : t("plugin_ai.rec.say.lookInto"),
        }),
      ),
      sources: link(best),
      confidence: round(grounded(best) * 0.8 + 0.2 * base),
    },
    {
      kind: "advocacy",
      whatToDo: "plugin_ai.rec.do.advocacy",
      howToSay: `plugin_ai.rec.how.${HOW_BY_EMOTION[emotion]}`,
      whatToSay: join(opener, t("plugin_ai.rec.say.advocacy")),
      sources: [],
      // strongest when the customer is upset: taking their side is what an angry or sad customer needs
      confidence: round(emotion === "anger" || emotion === "sad" || emotion === "fear" ? 0.5 + 0.5 * analysis.confidence : 0.35),
    },
    {
      kind: "forwardresolution",
      whatToDo: forward ? "plugin_ai.rec.do.forwardresolution" : "plugin_ai.rec.do.forwardresolutionNone",
      howToSay: "plugin_ai.rec.how.concrete",
      whatToSay: forward
        ? join(opener, t("plugin_ai.rec.say.forwardresolution", { steps: excerpt(forward.text) }))
        : join(opener, t("plugin_ai.rec.say.forwardresolutionNone")),
      sources: link(forward),
      confidence: round(grounded(forward) * (0.6 + 0.4 * base)),
    },
    {
      kind: "anchor",
      whatToDo: "plugin_ai.rec.do.anchor",
      howToSay: "plugin_ai.rec.how.concrete",
      whatToSay: join(opener, t("plugin_ai.rec.say.anchor")),
      sources: [],
      confidence: round(0.3 + 0.3 * base),
    },
  ];
}
