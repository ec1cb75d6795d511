// The offline analyser: emotion (with a confidence), classification, context (what the customer
// wants) and personality type of one message, with no network and no model download. English is
// read with wink-nlp (tokens, lemmas, parts of speech, negation) and the lexicons in lexicons.ts;
// Malay and Chinese have smaller lexicons and answer with a lower confidence, saying so
// (`degraded`); any other language gets the English reading at a much lower confidence. The
// language comes from tinyld, with a check of the script for Chinese, Japanese and Korean.
// A message longer than MAX_CHARS is read up to there (`truncated`: the panel says so), so a 100 KB
// message costs what an 8 KB one does.
import winkNLP from "wink-nlp";
import model from "wink-eng-lite-web-model";
import { detectAll } from "tinyld";
import {
  CLASSES,
  CLASS_EN,
  CLASS_MS,
  CLASS_ZH,
  EMOTIONS,
  EMOTION_EN,
  EMOTION_MS,
  EMOTION_ZH,
  INTENSIFIERS,
  NEGATIONS,
  SERVICE_EN,
  SERVICE_MS,
  SERVICE_ZH,
  type Classification,
  type Emotion,
  type Personality,
} from "./lexicons";

export { CLASSES, EMOTIONS, PERSONALITIES, type Classification, type Emotion, type Personality } from "./lexicons";

export const MAX_CHARS = 8_000;
const ANALYSER_VERSION = "offline-1";

/** How sure the language's reading is: English full, Malay and Chinese less, anything else little. */
export const LANGUAGE_WEIGHT: Record<string, number> = { en: 1, ms: 0.7, zh: 0.6 };
const OTHER_LANGUAGE_WEIGHT = 0.35;

export interface Analysis {
  /** ISO 639-1 of the text as detected ("" when too short to tell, read as English). */
  language: string;
  /** The strongest emotion, or "" when the text shows none. */
  emotion: Emotion | "";
  /** 0..1. */
  confidence: number;
  /** Every emotion's share, 0..1 (emotion_2 on the message). */
  emotions: Partial<Record<Emotion, number>>;
  classification: Classification;
  classConfidence: number;
  /** What the customer wants: an intent key (context.*) and the things they speak of. */
  context: { intent: string; subject: string };
  personality: Personality;
  /** The reading is weaker for this language (the panel says so). */
  degraded: boolean;
  truncated: boolean;
  analyser: string;
}

let nlpInstance: ReturnType<typeof winkNLP> | undefined;
const nlp = () => (nlpInstance ??= winkNLP(model));

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]/g;

export function detectLanguage(text: string): string {
  // links, addresses and codes (order numbers, tracking ids: letters mixed with digits) say
  // nothing of the language, and a made-up token alone could tip tinyld to Klingon
  const sample = text
    .slice(0, 2000)
    .replace(/\S*(?:https?:\/\/|www\.|@)\S*/giu, " ")
    .replace(/\S+\.(?:com|net|org|io|co|my|cn|jp|kr)\b\S*/giu, " ")
    .replace(/[\p{L}\d]*\d[\p{L}\d]*/gu, " ");
  const cjk = (sample.match(CJK) ?? []).length;
  const letters = (sample.match(/\p{L}/gu) ?? []).length;
  if (letters && cjk / letters > 0.3) {
    if (/[\u3040-\u30ff]/.test(sample)) return "ja";
    if (/[\uac00-\ud7af]/.test(sample)) return "ko";
    return "zh";
  }
  const words = sample.toLowerCase().match(/\p{L}+/gu) ?? [];
  // Malay's everyday words: tinyld is unsure on short messages, and calls Malay Indonesian
  const malayHits = words.filter((w) => MALAY_MARKERS.has(w)).length;
  if (words.length && malayHits / words.length >= 0.2) return "ms";
  if (words.length < 4) return words.length ? "en" : "";
  // plainly English (a third of the words are its everyday ones): no need to ask tinyld, the costliest step
  if (words.filter((w) => ENGLISH_MARKERS.has(w)).length / words.length >= 0.3) return "en";
  const ranked = detectAll(sample);
  const top = ranked[0];
  if (!top) return "en";
  // a near tie with a language the product reads well goes to that one: tinyld's scores for a
  // short message barely differ, and the wrong pick costs the reading most of its confidence
  const close = ranked.find((r) => READABLE.has(r.lang) && r.accuracy >= top.accuracy * NEAR_TIE);
  const found = close?.lang ?? top.lang;
  if (found === "id" || found === "ms") return "ms";
  return found;
}

const READABLE = new Set(["en", "ms", "id"]);
const NEAR_TIE = 0.9;

const ENGLISH_MARKERS = new Set(
  "i,you,my,me,we,your,the,a,an,is,are,was,were,it,this,that,to,of,and,or,in,on,for,with,not,no,do,does,did,have,has,be,been,can,could,would,will,what,how,why,when,where,please,thanks,thank,order,account".split(
    ",",
  ),
);

const MALAY_MARKERS = new Set(
  "saya,awak,anda,kami,kita,nak,tak,tidak,boleh,sudah,dah,belum,lagi,sangat,terima,kasih,tolong,barang,bayaran,balik,akaun,kenapa,bila,berapa,macam,mana,ini,itu,dengan,untuk,yang,ada,apa,tu,ke,la,lah,ni,encik,puan".split(
    ",",
  ),
);

type Scores<K extends string> = Partial<Record<K, number>>;

function add<K extends string>(scores: Scores<K>, key: K, value: number) {
  scores[key] = (scores[key] ?? 0) + value;
}

/**
 * Lexicon hits over a token list: phrases of up to 4 words, negation and intensifiers, each key once per position.
 * Without `flip` negation is ignored: a topic is still the topic when denied ("my refund hasn't come").
 */
function scoreTokens<K extends string>(tokens: string[], lexicon: Record<K, Record<string, number>>, flip?: (key: K) => K | undefined): Scores<K> {
  const scores: Scores<K> = {};
  const keys = Object.keys(lexicon) as K[];
  for (let i = 0; i < tokens.length; i++) {
    for (let n = 4; n >= 1; n--) {
      if (i + n > tokens.length) continue;
      const phrase = tokens.slice(i, i + n).join(" ");
      let hit = false;
      for (const key of keys) {
        const weight = lexicon[key][phrase];
        if (!weight) continue;
        hit = true;
        // a negation reaches the next three words of its own clause ("not happy", not "without warning. Unacceptable")
        let negated = false;
        for (let j = i - 1; flip && j >= Math.max(0, i - 3); j--) {
          if (/^[.,;:!?]+$/.test(tokens[j])) break;
          if (NEGATIONS.has(tokens[j])) negated = true;
        }
        const intense = i > 0 && INTENSIFIERS.has(tokens[i - 1]) ? 1.5 : 1;
        if (negated && flip) {
          const other = flip(key);
          if (other) add(scores, other, weight * 0.6);
        } else if (!negated) add(scores, key, flip ? weight * intense : weight);
      }
      if (hit) break;
    }
  }
  return scores;
}

/** Substring hits (Chinese has no spaces). */
function scoreSubstrings<K extends string>(text: string, lexicon: Record<K, Record<string, number>>, negatable = true): Scores<K> {
  const scores: Scores<K> = {};
  for (const key of Object.keys(lexicon) as K[])
    for (const [word, weight] of Object.entries(lexicon[key]) as [string, number][]) {
      let at = text.indexOf(word);
      while (at >= 0) {
        const negated = negatable && at > 0 && /[不没]/.test(text[at - 1]) && key !== "anger";
        if (!negated) add(scores, key, weight);
        at = text.indexOf(word, at + word.length);
      }
    }
  return scores;
}

const flipEmotion = (e: Emotion): Emotion | undefined => (e === "happy" || e === "love" ? "anger" : undefined);

/** The highest score; a tie goes to the one earlier in `order` (the rarer, more telling emotion). */
function best<K extends string>(scores: Scores<K>, order: readonly K[] = []): [K | "", number, number] {
  let top: K | "" = "";
  let value = 0;
  let total = 0;
  const rank = (k: K | "") => (order.includes(k as K) ? order.indexOf(k as K) : order.length);
  for (const [k, v] of Object.entries(scores) as [K, number][]) {
    total += v;
    if (v > value || (v === value && v > 0 && rank(k) < rank(top))) [top, value] = [k, v];
  }
  return [top, value, total];
}

const TIE_ORDER: readonly Emotion[] = ["love", "sad", "fear", "surprise", "anger", "happy", "curious"];
/** Classes that name what the message is about; a question about one of them is that class, not "inquiry". */
const TOPICS: readonly Classification[] = ["billing", "technical", "delivery", "refund", "account"];
/** The class of a message no class word names, by its emotion. */
const FALLBACK_CLASS: Partial<Record<Emotion, Classification>> = { anger: "complaint", sad: "complaint", happy: "praise", love: "praise" };

const INTENTS: Record<Classification, string> = {
  complaint: "resolve_complaint",
  billing: "fix_billing",
  technical: "fix_problem",
  delivery: "receive_order",
  refund: "get_refund",
  account: "account_help",
  inquiry: "get_information",
  praise: "give_thanks",
};

const round = (n: number) => Math.round(n * 100) / 100;

/** Reads one message. Pure and synchronous: the job calls it off the request path. */
export function analyseText(input: string): Analysis {
  const truncated = input.length > MAX_CHARS;
  const text = (truncated ? input.slice(0, MAX_CHARS) : input).normalize("NFC");
  const language = detectLanguage(text);
  const emotion: Scores<Emotion> = {};
  const classes: Scores<Classification> = {};
  const subjects: string[] = [];
  let tokens: string[] = [];
  let service = 0;

  if (language === "zh" || language === "ja" || language === "ko") {
    Object.assign(emotion, scoreSubstrings(text, EMOTION_ZH));
    Object.assign(classes, scoreSubstrings(text, CLASS_ZH, false));
    service = scoreSubstrings(text, { service: SERVICE_ZH }, false).service ?? 0;
  } else {
    const words = text.toLowerCase().match(/[\p{L}\p{N}'-]+|[!?]/gu) ?? [];
    if (language === "ms") {
      tokens = words;
      Object.assign(emotion, scoreTokens(tokens, EMOTION_MS, flipEmotion));
      Object.assign(classes, scoreTokens(tokens, CLASS_MS));
      service = scoreTokens(tokens, { service: SERVICE_MS }).service ?? 0;
    } else {
      const doc = nlp().readDoc(text);
      const its = nlp().its;
      const normal = doc.tokens().out(its.normal) as string[];
      // its.lemma needs the model's add-ons, which the typings do not know readDoc gives it
      const lemma = doc.tokens().out(its.lemma as unknown as typeof its.normal) as string[];
      const pos = doc.tokens().out(its.pos) as string[];
      tokens = normal;
      const byNormal = scoreTokens(normal, EMOTION_EN, flipEmotion);
      const byLemma = scoreTokens(lemma, EMOTION_EN, flipEmotion);
      for (const e of EMOTIONS) {
        const v = Math.max(byNormal[e] ?? 0, byLemma[e] ?? 0);
        if (v) emotion[e] = v;
      }
      const cNormal = scoreTokens(normal, CLASS_EN);
      const cLemma = scoreTokens(lemma, CLASS_EN);
      for (const c of CLASSES) {
        const v = Math.max(cNormal[c] ?? 0, cLemma[c] ?? 0);
        if (v) classes[c] = v;
      }
      service = Math.max(scoreTokens(normal, { service: SERVICE_EN }).service ?? 0, scoreTokens(lemma, { service: SERVICE_EN }).service ?? 0);
      for (let i = 0; i < lemma.length && subjects.length < 3; i++)
        if (pos[i] === "NOUN" && lemma[i].length > 2 && lemma[i].length <= 30 && !subjects.includes(lemma[i])) subjects.push(lemma[i]);
    }
    // the shape of the text: shouting and exclamations are anger when the words are, surprise otherwise
    const bangs = (text.match(/!/g) ?? []).length;
    const shouted = (text.match(/\b[A-Z]{3,}\b/g) ?? []).length;
    if (bangs || shouted >= 2) {
      const lift = Math.min(2, bangs * 0.4 + (shouted >= 2 ? 1 : 0));
      if ((emotion.anger ?? 0) > 0) add(emotion, "anger", lift);
      // an exclamation in a support desk with nothing kind or startled in it is mostly frustration
      else if (!emotion.happy && !emotion.love && !emotion.surprise && !emotion.fear && !emotion.sad) add(emotion, "anger", lift / 2 + (shouted >= 2 ? 1 : 0));
    }
  }
  const questions = (text.match(/[?？]/g) ?? []).length;
  if (questions) {
    // a question asked in anger, fear or sorrow is that feeling first ("Where is my refund?" six weeks on)
    const felt = Math.max(...EMOTIONS.filter((e) => e !== "curious").map((e) => emotion[e] ?? 0));
    add(emotion, "curious", felt >= 1.5 ? 0.5 : Math.min(2, questions));
    add(classes, "inquiry", 0.5);
    // thanks beside a question is politeness: the question is what the message is for
    if (classes.praise) classes.praise /= 2;
  }
  // a question with anger in it (or shouted) is an angry question
  if (emotion.curious && ((emotion.anger ?? 0) >= 2 || (emotion.anger && /!/.test(text)))) emotion.curious = emotion.curious / 2;

  const weight = LANGUAGE_WEIGHT[language] ?? (language === "" ? 1 : OTHER_LANGUAGE_WEIGHT);
  const [top, topValue, total] = best(emotion, TIE_ORDER);
  const confidence = top ? round((topValue / total) * (1 - Math.exp(-topValue)) * weight) : 0;
  const shares: Partial<Record<Emotion, number>> = {};
  for (const e of EMOTIONS) if (emotion[e]) shares[e] = round(emotion[e]! / total);

  // words about the staff and the service count for a complaint or for praise, by the message's tone
  if (service) {
    const warm = (emotion.happy ?? 0) + (emotion.love ?? 0);
    const cold = (emotion.anger ?? 0) + (emotion.sad ?? 0) + (emotion.fear ?? 0) + (emotion.surprise ?? 0);
    if (cold && cold >= warm) add(classes, "complaint", service);
    else if (warm) add(classes, "praise", service);
  }
  // a question about a topic is that topic: "inquiry" is for questions about nothing more specific
  // (one weak topic word in a general question does not make it that topic: "a warranty on refurbished phones?")
  if (TOPICS.some((c) => (classes[c] ?? 0) >= Math.min(2, Math.max(1, classes.inquiry ?? 0)))) delete classes.inquiry;
  let [cls, clsValue, clsTotal] = best(classes);
  if (!cls) [cls, clsValue, clsTotal] = [(top && FALLBACK_CLASS[top]) || "inquiry", 0.3, 1];
  const classConfidence = round((clsValue / clsTotal) * (1 - Math.exp(-clsValue)) * weight);

  return {
    language,
    emotion: top,
    confidence,
    emotions: shares,
    classification: cls as Classification,
    classConfidence,
    context: { intent: INTENTS[cls as Classification], subject: subjects.join(", ") },
    personality: personalityOf(text, tokens),
    degraded: weight < 1,
    truncated,
    analyser: ANALYSER_VERSION,
  };
}

const DRIVER = new Set(["now", "immediately", "asap", "today", "must", "demand", "need", "want", "fix", "urgent", "right"]);
const ANALYTICAL = new Set([
  "because",
  "specifically",
  "exactly",
  "according",
  "detail",
  "details",
  "step",
  "steps",
  "version",
  "number",
  "invoice",
  "reference",
  "compare",
  "why",
]);
const AMIABLE = new Set(["please", "kindly", "thanks", "thank", "sorry", "hope", "appreciate", "tolong", "terima", "kasih", "maaf"]);
const EXPRESSIVE = new Set(["love", "wow", "amazing", "awesome", "omg", "lol", "haha", "super", "totally", "absolutely"]);

/** Social style from how the message is written: direct, detailed, warm or vivid. */
export function personalityOf(text: string, tokens: string[]): Personality {
  const count = (set: Set<string>) => tokens.filter((t) => set.has(t)).length;
  const numbers = (text.match(/\d{3,}/g) ?? []).length;
  const emoji = (text.match(/\p{Extended_Pictographic}/gu) ?? []).length;
  const bangs = (text.match(/!/g) ?? []).length;
  const scores: Record<Personality, number> = {
    driver: count(DRIVER) * 1.2 + (tokens.length > 0 && tokens.length < 12 && bangs ? 1 : 0),
    analytical: count(ANALYTICAL) + numbers * 0.8 + (tokens.length > 60 ? 1.5 : 0) + Math.max(0, (text.match(/\?/g) ?? []).length - 1) * 0.5,
    amiable: count(AMIABLE) * 1.2 + 0.5,
    expressive: count(EXPRESSIVE) * 1.2 + emoji + (bangs >= 2 ? 1 : 0),
  };
  return (Object.entries(scores) as [Personality, number][]).sort((a, b) => b[1] - a[1])[0][0];
}
