// Scam and risk hints of one message, the parts that need nothing but the message: links whose
// domain looks like a well-known brand's without being it (a letter swapped, digits for letters,
// an extra word, the brand as a subdomain of someone else's domain, look-alike letters of another
// script), links whose text names another domain than the one they go to, links to a bare IP
// address, and urgency and payment-pressure phrases (English and Malay). Each hint says why
// (a translation key and its values) and how sure it is. Domains are read with tldts (the public
// suffix list), so "paypal.com.secure-login.xyz" is the domain secure-login.xyz.
// The hints that need the workspace's history (a domain first seen now, a number several
// unrelated contacts sent, a mail that failed SPF/DKIM/DMARC) are in scam.server.ts.
import { domainToUnicode } from "node:url";
import { parse } from "tldts";

export type HintKind = "lookalike" | "mismatch" | "ip_link" | "new_domain" | "shared_number" | "pressure" | "payment" | "auth_failed";

export interface Hint {
  kind: HintKind;
  /** Values of the hint's text (plugin_ai.scam.<kind>). */
  values: Record<string, string>;
  /** What was found (a domain, a number, a phrase). */
  evidence: string;
  /** 0..1. */
  confidence: number;
}

/**
 * Brands people are phished with, by their registrable domain's label, and the domains that are
 * really theirs. Extend it with the brands your customers deal with.
 */
export const BRANDS: Record<string, string[]> = {
  paypal: ["paypal.com", "paypal.me"],
  apple: ["apple.com", "icloud.com"],
  google: ["google.com", "gmail.com", "youtube.com"],
  microsoft: ["microsoft.com", "live.com", "outlook.com", "office.com"],
  amazon: ["amazon.com", "amazon.co.uk", "amazon.sg"],
  facebook: ["facebook.com", "fb.com"],
  instagram: ["instagram.com"],
  whatsapp: ["whatsapp.com", "wa.me"],
  netflix: ["netflix.com"],
  dhl: ["dhl.com", "dhl.com.my"],
  fedex: ["fedex.com"],
  maybank: ["maybank.com", "maybank2u.com.my", "maybank.com.my"],
  cimb: ["cimb.com", "cimbclicks.com.my", "cimb.com.my"],
  publicbank: ["pbebank.com", "publicbank.com.my"],
  hsbc: ["hsbc.com", "hsbc.com.my"],
  shopee: ["shopee.com", "shopee.com.my", "shopee.sg"],
  lazada: ["lazada.com", "lazada.com.my", "lazada.sg"],
  grab: ["grab.com"],
  poslaju: ["poslaju.com.my", "pos.com.my"],
  binance: ["binance.com"],
  coinbase: ["coinbase.com"],
};

const OFFICIAL = new Set(Object.values(BRANDS).flat());

/** Letters other scripts and digits stand in for (the common confusables), to their Latin look. */
const LOOKS_LIKE: Record<string, string> = {
  "0": "o",
  "1": "l",
  "3": "e",
  "4": "a",
  "5": "s",
  "7": "t",
  "8": "b",
  а: "a",
  е: "e",
  о: "o",
  р: "p",
  с: "c",
  у: "y",
  х: "x",
  і: "i",
  ӏ: "l",
  ԁ: "d",
  ɡ: "g",
  ո: "n",
  ս: "u",
};

/** A label as it looks: confusable letters and digits to Latin, "rn" to "m", "vv" to "w", and i, l and 1 as one (netfl1x is netflix). */
export function skeleton(label: string): string {
  return [...label.toLowerCase()]
    .map((c) => LOOKS_LIKE[c] ?? c)
    .join("")
    .replace(/rn/g, "m")
    .replace(/vv/g, "w")
    .replace(/i/g, "l");
}

/**
 * The names a brand is known by: its own and its official domains' labels (publicbank is also
 * pbebank), as they look; short or common-word labels (live, office) would flag ordinary sites.
 */
const BRAND_NAMES = Object.entries(BRANDS).map(([brand, official]) => ({
  official,
  names: [brand, ...official.map((d) => d.split(".")[0]).filter((n) => n !== brand && n.length >= 5 && n !== "office")].map((n) => ({
    name: n,
    look: skeleton(n),
  })),
}));

/** Levenshtein distance, stopping early past `max`. */
export function distance(a: string, b: string, max = 3): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, row[j]);
    }
    if (best > max) return max + 1;
    prev = row;
  }
  return prev[b.length];
}

export interface Link {
  /** Where it goes. */
  url: string;
  /** The text shown for it (from HTML or Markdown), when it differs from the address. */
  text?: string;
}

const URL_IN_TEXT =
  /\b(?:https?:\/\/|www\.)[^\s<>"'()\]]+|\b(?:[a-z0-9-]+\.)+(?:com|net|org|info|xyz|top|online|site|club|shop|live|link|app|io|co|me|my|cc|tk|ml|ga|cf|gq|ru|cn)(?:\.[a-z]{2})?(?:\/[^\s<>"'()\]]*)?/gi;

/** The links of a message: addresses in the text, and HTML anchors and Markdown links with their text. */
export function linksOf(text: string, html?: string): Link[] {
  const links: Link[] = [];
  const seen = new Set<string>();
  const push = (l: Link) => {
    const key = `${l.url}\n${l.text ?? ""}`;
    if (!seen.has(key) && links.length < 50) [seen.add(key), links.push(l)];
  };
  for (const m of (html ?? "").matchAll(/<a\b[^>]*\bhref\s*=\s*["']([^"']+)["'][^>]*>([\s\S]*?)<\/a>/gi))
    push({ url: m[1], text: m[2].replace(/<[^>]+>/g, "").trim() });
  for (const m of text.matchAll(/\[([^\]]{1,200})\]\((https?:\/\/[^\s)]+)\)/g)) push({ url: m[2], text: m[1].trim() });
  for (const m of text.matchAll(URL_IN_TEXT)) if (![...seen].some((k) => k.includes(m[0]))) push({ url: m[0] });
  return links;
}

const hostOf = (url: string) => parse(/^[a-z]+:\/\//i.test(url) ? url : `http://${url}`);

/** The hints of one link. */
export function linkHints(link: Link): Hint[] {
  const hints: Hint[] = [];
  const info = hostOf(link.url);
  if (!info.hostname) return hints;
  if (info.isIp) {
    hints.push({ kind: "ip_link", values: { host: info.hostname }, evidence: info.hostname, confidence: 0.7 });
    return hints;
  }
  const domain = info.domain ?? info.hostname;
  const unicode = domainToUnicode(domain) || domain;
  if (!OFFICIAL.has(domain)) {
    const label = (unicode.split(".")[0] ?? "").toLowerCase();
    const look = skeleton(label);
    const sub = (info.subdomain ?? "").toLowerCase();
    for (const { official, names } of BRAND_NAMES) {
      let why = "";
      for (const { name: brand, look: brandLook } of names) {
        if (label === brand) break;
        if (look === brandLook) why = "letters";
        else if (brand.length >= 5 && distance(look, brandLook, 2) <= (brand.length >= 7 ? 2 : 1)) why = "typo";
        else if (new RegExp(`(^|[-.])${brandLook}([-.]|$)|^${brandLook}|${brandLook}$`).test(look) && look.length > brandLook.length) why = "extra";
        else if (official.some((o) => sub === o || sub.endsWith(`.${o}`) || sub.startsWith(`${o}.`)) || new RegExp(`(^|\\.)${brand}(\\.|$)`).test(sub))
          why = "subdomain";
        if (why) break;
      }
      if (!why) continue;
      hints.push({
        kind: "lookalike",
        values: { domain: unicode, brand: official[0], how: `t:plugin_ai.scam.how.${why}` },
        evidence: info.hostname,
        confidence: why === "letters" || why === "subdomain" ? 0.9 : why === "typo" ? 0.8 : 0.65,
      });
      break;
    }
  }
  if (link.text) {
    const shown = link.text.match(/(?:https?:\/\/)?(?:[a-z0-9-]+\.)+[a-z]{2,}/i)?.[0];
    const shownDomain = shown ? hostOf(shown).domain : null;
    if (shownDomain && shownDomain !== domain)
      hints.push({ kind: "mismatch", values: { shown: shownDomain, domain: unicode }, evidence: `${link.text} -> ${info.hostname}`, confidence: 0.85 });
  }
  return hints;
}

/**
 * Phrases of pressure (urgency, threats), English and Malay. STRONG ones are what scams say and
 * customers rarely do; WEAK ones an upset customer says too ("urgent", "immediately"), so one weak
 * phrase alone stays under the 0.5 threshold. Tuned on the eval's dev set (tests/ai/README.md).
 */
export const PRESSURE = {
  strong: [
    "within 24 hours",
    "within 24 hrs",
    "act now",
    "final notice",
    "last warning",
    "will be suspended",
    "will be closed",
    "will be blocked",
    "will be deleted",
    "will be cut off",
    "has been suspended",
    "has been locked",
    "verify your account",
    "confirm your identity",
    "legal action",
    "do not tell anyone",
    "akaun anda akan",
    "akan disekat",
    "telah disekat",
    "notis terakhir",
    "dalam masa 24 jam",
  ],
  weak: ["urgent", "urgently", "immediately", "unusual activity", "segera"],
};
/**
 * Phrases of payment (unusual ways to pay, fees before a prize, secrets asked for) and of the
 * advance-fee letter (a stranger's millions to move). WEAK ones are also asked about by customers
 * ("do you accept gift cards?", "is there a customs fee?").
 */
export const PAYMENT = {
  strong: [
    "itunes card",
    "google play card",
    "steam gift card",
    "western union",
    "moneygram",
    "usdt",
    "crypto wallet",
    "pay by crypto",
    "processing fee",
    "release fee",
    "registration fee",
    "pay the fee",
    "send your otp",
    "card number and cvv",
    "cvv",
    "bayaran pemprosesan",
    "yuran pendaftaran",
    "next of kin",
    "strictly confidential",
    "extremely confidential",
    "utmost confidence",
    "strictest confidence",
    "strictest confidentiality",
    "foreign partner",
    "transfer of the fund",
    "transfer the fund",
    "million united states dollars",
    "million us dollars",
  ],
  weak: [
    "gift card",
    "wire transfer",
    "bitcoin",
    "customs fee",
    "pin number",
    "tac number",
    "nombor tac",
    "kod otp",
    "pindahkan wang",
    "business proposal",
    "business assistance",
  ],
};

/** Asking for a one-time code or card secret ("tell me the OTP we just sent", "berikan kod TAC"): a strong payment phrase. */
const SECRET_ASKED = [
  /\b(?:tell|give|share|provide|read out|forward)\b(?:\s+(?:me|us|our [a-z]+|the [a-z]+ team))?\s+(?:the\s+|your\s+|that\s+)?(?:\d[- ]?digit\s+)?(?:otp|tac|code|pin|cvv|one[- ]time password)\b/i,
  /\b(?:otp|tac|code|pin)\b[^.!?\n]{0,40}\b(?:you (?:just )?(?:received|got)|we (?:just )?sent)\b/i,
  /\b(?:berikan|beri|beritahu|kongsi)\b[^.!?\n]{0,25}\b(?:otp|tac|kod)\b/i,
];

function phraseHits(text: string, phrases: string[]) {
  const lower = ` ${text.toLowerCase().replace(/\s+/g, " ")} `;
  // a phrase as a whole word, its plural too ("gift cards")
  return phrases.filter((p) => new RegExp(`(^|[^\\p{L}])${p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}s?([^\\p{L}]|$)`, "u").test(lower));
}

/** The hints of a message's words: pressure and payment phrases. Pressure beside a payment ask is the scam's shape: both count more. */
export function phraseHints(text: string): Hint[] {
  const hints: Hint[] = [];
  const pressure = { strong: phraseHits(text, PRESSURE.strong), weak: phraseHits(text, PRESSURE.weak) };
  const asked = SECRET_ASKED.map((re) => text.match(re)?.[0].toLowerCase()).filter((m): m is string => !!m);
  const payment = { strong: [...new Set([...phraseHits(text, PAYMENT.strong), ...asked])], weak: phraseHits(text, PAYMENT.weak) };
  const pressed = [...pressure.strong, ...pressure.weak];
  const paid = [...payment.strong, ...payment.weak];
  const both = pressed.length && paid.length ? 0.15 : 0;
  if (pressed.length)
    hints.push({
      kind: "pressure",
      values: { phrases: pressed.slice(0, 3).join(", ") },
      evidence: pressed.join(", "),
      confidence: round(Math.min(0.9, 0.25 + 0.3 * pressure.strong.length + 0.15 * pressure.weak.length + both)),
    });
  if (paid.length)
    hints.push({
      kind: "payment",
      values: { phrases: paid.slice(0, 3).join(", ") },
      evidence: paid.join(", "),
      confidence: round(Math.min(0.9, 0.3 + 0.35 * payment.strong.length + 0.15 * payment.weak.length + both)),
    });
  return hints;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** Every hint a message gives by itself. */
export function messageHints(text: string, html?: string): Hint[] {
  return [...linksOf(text, html).flatMap(linkHints), ...phraseHints(text)];
}

/**
 * Numbers that identify where money or calls go: phone numbers (8 to 15 digits, formatted any way)
 * and bank accounts (8 to 20 digits after a word for account, or an IBAN), as digits only.
 */
export function numbersOf(text: string): { kind: "phone" | "account"; value: string }[] {
  const out = new Map<string, "phone" | "account">();
  for (const m of text.matchAll(/\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g)) out.set(m[0].replace(/\s/g, ""), "account");
  for (const m of text.matchAll(/(?:account|acct|acc|a\/c|akaun|bank)[^\d\n]{0,30}((?:\d[\s-]?){8,20})/gi)) {
    const digits = m[1].replace(/\D/g, "");
    if (digits.length >= 8 && digits.length <= 20) out.set(digits, "account");
  }
  for (const m of text.matchAll(/(?:\+|\b)\d[\d\s().-]{6,18}\d\b/g)) {
    const digits = m[0].replace(/\D/g, "");
    // part of an account already read (an IBAN's digits) is not a phone number
    if (digits.length < 8 || digits.length > 15 || [...out.keys()].some((k) => k.includes(digits))) continue;
    // dates and amounts are not phone numbers
    if (/^\d{1,2}[./-]\d{1,2}[./-]\d{2,4}$/.test(m[0].trim())) continue;
    out.set(digits, "phone");
  }
  return [...out].map(([value, kind]) => ({ kind, value })).slice(0, 20);
}
