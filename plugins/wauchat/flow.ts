// The bot's rules, without I/O: the spec's keypress map (section 9: 1 English, 2 Malay, 3 Chinese;
// 11-16 / 21-26 / 31-36 = language + TV, Aircon, Refrigerator, Washing Machine, Commercial
// Display, Other Enquiries), the default texts, and what one customer message does to a
// conversation the bot holds. Order: handover words, then keyword rules, then the menu.

export const BOT_LANGUAGES = ["en", "ms", "zh"] as const;
export type BotLanguage = (typeof BOT_LANGUAGES)[number];
/** The key a customer presses for each language. */
export const LANGUAGE_KEYS: Record<string, BotLanguage> = { "1": "en", "2": "ms", "3": "zh" };
export const PRODUCTS = ["tv", "aircon", "refrigerator", "washingMachine", "commercialDisplay", "other"] as const;
export type Product = (typeof PRODUCTS)[number];

/** What the ticket is labelled with at handover (the spec's words). */
export const LANGUAGE_LABELS: Record<BotLanguage, string> = { en: "English", ms: "Malay", zh: "Chinese" };
export const PRODUCT_LABELS: Record<Product, string> = {
  tv: "TV",
  aircon: "Aircon",
  refrigerator: "Refrigerator",
  washingMachine: "Washing Machine",
  commercialDisplay: "Commercial Display",
  other: "Other Enquiries",
};

/** The texts an admin edits: the first answer (greeting and language menu), then per language. */
export const TEXT_KEYS = ["welcome", ...BOT_LANGUAGES.flatMap((l) => ["greeting", "productMenu", "notUnderstood", "handover"].map((k) => `${k}.${l}`))];
export type TextKey = string;

export const DEFAULT_TEXTS: Record<TextKey, string> = {
  welcome: "Hello! Welcome to our customer service.\nPlease choose your language / Sila pilih bahasa / 请选择语言:\n1 English\n2 Bahasa Melayu\n3 中文",
  "greeting.en": "Thank you! What can we help you with?",
  "productMenu.en": "Please reply with a number:\n11 TV\n12 Aircon\n13 Refrigerator\n14 Washing Machine\n15 Commercial Display\n16 Other Enquiries",
  "notUnderstood.en": "Sorry, I did not understand that.",
  "handover.en": "Thank you. An agent will be with you shortly.",
  "greeting.ms": "Terima kasih! Apa yang boleh kami bantu?",
  "productMenu.ms": "Sila balas dengan nombor:\n21 TV\n22 Penghawa Dingin\n23 Peti Sejuk\n24 Mesin Basuh\n25 Paparan Komersial\n26 Pertanyaan Lain",
  "notUnderstood.ms": "Maaf, saya tidak faham.",
  "handover.ms": "Terima kasih. Ejen kami akan membantu anda sebentar lagi.",
  "greeting.zh": "谢谢!请问有什么可以帮您?",
  "productMenu.zh": "请回复数字:\n31 电视\n32 冷气机\n33 冰箱\n34 洗衣机\n35 商用显示屏\n36 其他查询",
  "notUnderstood.zh": "抱歉,我不明白您的意思。",
  "handover.zh": "谢谢。客服人员将很快为您服务。",
};

/** Always hand over, whatever the admin set. */
export const BUILT_IN_HANDOVER_WORDS = ["agent", "human"];
/** The admin's handover words until they change them (Malay and Chinese for the same). */
export const DEFAULT_HANDOVER_WORDS = "ejen, manusia, 人工, 客服";
/** Wrong answers in a row before the bot hands over. */
export const MAX_MISSES = 3;

export interface BotRule {
  id: number;
  keywords: string;
  answer: string;
  handover: boolean;
}

export interface BotConfig {
  texts: Record<TextKey, string>;
  rules: BotRule[];
  /** The admin's words (comma-separated), beside BUILT_IN_HANDOVER_WORDS. */
  handoverWords: string;
}

export type Stage = "start" | "language" | "product" | "human";
export type EndedBy = "" | "menu" | "words" | "rule" | "misses" | "agent";

export interface BotState {
  stage: Stage;
  language: string;
  product: string;
  misses: number;
}

export interface Decision extends BotState {
  /** The bot's answer ("" for none). */
  reply: string;
  /** Set when the conversation goes to the agents, and why. */
  endedBy: EndedBy;
}

/** Full-width digits and letters as plain ones, lower case, trimmed (customers type on any keyboard). */
export const normalize = (text: string) => text.normalize("NFKC").toLowerCase().trim();

/** A comma- (or 、，-) separated list as its non-empty words. */
export const wordList = (text: string) =>
  text
    .split(/[,，、\n]/)
    .map((w) => normalize(w))
    .filter(Boolean);

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A word or phrase in the text: as a whole word, or anywhere for Chinese/Japanese/Korean (no spaces between words). */
export function mentions(text: string, word: string) {
  const w = normalize(word);
  if (!w) return false;
  if (CJK.test(w)) return text.includes(w);
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escape(w)}($|[^\\p{L}\\p{N}])`, "u").test(text);
}

/** A two-digit key of the map (11-16, 21-26, 31-36) as its language and product. */
export function keypress(code: string): { language: BotLanguage; product: Product } | null {
  const m = /^([1-3])([1-6])$/.exec(code);
  if (!m) return null;
  return { language: LANGUAGE_KEYS[m[1]], product: PRODUCTS[Number(m[2]) - 1] };
}

const isLanguage = (l: string): l is BotLanguage => (BOT_LANGUAGES as readonly string[]).includes(l);

/** A text in the conversation's language, or in all three while none is chosen. */
export function say(texts: Record<TextKey, string>, key: string, language: string) {
  if (isLanguage(language)) return texts[`${key}.${language}`] ?? DEFAULT_TEXTS[`${key}.${language}`];
  return BOT_LANGUAGES.map((l) => texts[`${key}.${l}`] ?? DEFAULT_TEXTS[`${key}.${l}`]).join("\n");
}

/** What one customer message does to a conversation the bot holds. */
export function decide(state: BotState, text: string, config: BotConfig): Decision {
  const said = normalize(text);
  const lang = state.language;
  const handover = (reply: string, endedBy: EndedBy, set: Partial<BotState> = {}): Decision => {
    const language = set.language ?? lang;
    return { ...state, ...set, stage: "human", reply: [reply, say(config.texts, "handover", language)].filter(Boolean).join("\n\n"), endedBy };
  };

  const words = [...BUILT_IN_HANDOVER_WORDS, ...wordList(config.handoverWords)];
  if (words.some((w) => mentions(said, w))) return handover("", "words");

  const rule = config.rules.find((r) => wordList(r.keywords).some((k) => mentions(said, k)));
  if (rule) return rule.handover ? handover(rule.answer, "rule") : { ...state, reply: rule.answer, endedBy: "" };

  const code = said.replace(/[.)\s]+$/, "");
  const chosen = keypress(code);
  if (state.stage === "start") return { ...state, stage: "language", misses: 0, reply: config.texts.welcome, endedBy: "" };
  if (chosen) return handover("", "menu", chosen);
  if (state.stage === "language" && LANGUAGE_KEYS[code]) {
    const language = LANGUAGE_KEYS[code];
    return {
      ...state,
      stage: "product",
      language,
      misses: 0,
      reply: [say(config.texts, "greeting", language), say(config.texts, "productMenu", language)].join("\n\n"),
      endedBy: "",
    };
  }
  if (state.stage === "product" && /^[1-6]$/.test(code)) return handover("", "menu", { product: PRODUCTS[Number(code) - 1] });

  // a wrong answer: the menu again, and after the third a human
  const misses = state.misses + 1;
  const sorry = say(config.texts, "notUnderstood", lang);
  if (misses >= MAX_MISSES) return handover(sorry, "misses", { misses });
  const menu = state.stage === "product" ? say(config.texts, "productMenu", lang) : config.texts.welcome;
  return { ...state, misses, reply: `${sorry}\n\n${menu}`, endedBy: "" };
}
