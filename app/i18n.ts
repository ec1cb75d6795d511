// Language settings shared by server and browser.
import i18next, { type i18n as I18n } from "i18next";

export const LANGUAGES = ["en", "ms", "zh", "ko", "ja"] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = "en";
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: "English",
  ms: "Bahasa Melayu",
  zh: "简体中文",
  ko: "한국어",
  ja: "日本語",
};

export function isLanguage(value: unknown): value is Language {
  return typeof value === "string" && (LANGUAGES as readonly string[]).includes(value);
}

export type Messages = Record<string, unknown>;

/**
 * Where a language's texts come from: on the server the locale files (app/i18n.server.ts sets
 * this), in the browser the cached /locales/<lng>.<hash>.json files fetched by entry.client.tsx
 * and root's clientLoader. The texts are not part of any page's data.
 */
const provided = new Map<Language, { href: string; messages: Messages }>();
let source: (language: Language) => Messages | undefined = (language) => provided.get(language)?.messages;

export function setTranslationSource(read: (language: Language) => Messages | undefined) {
  source = read;
}

export interface TranslationFile {
  language: Language;
  href: string;
}

/** The browser's side: fetches the files it does not hold yet (a new language, or new texts after a deploy). */
export async function loadTranslations(files: TranslationFile[]) {
  await Promise.all(
    files
      .filter((f) => provided.get(f.language)?.href !== f.href)
      .map(async (f) => {
        const res = await fetch(f.href);
        if (!res.ok) throw new Error(`${f.href}: ${res.status}`);
        provided.set(f.language, { href: f.href, messages: await res.json() });
        instances.clear();
      }),
  );
}

/** The translation files a page in `language` needs: its own and the English fallback. */
export function languagesFor(language: Language): Language[] {
  return language === DEFAULT_LANGUAGE ? [language] : [language, DEFAULT_LANGUAGE];
}

const instances = new Map<Language, I18n>();
/**
 * The ready instance for one language, made once: translations do not change while a build runs,
 * so every request and render in that language shares it. Outside production the server re-reads
 * the translation files (loadMessages), so nothing is kept; a language whose texts are not here
 * yet gets a throwaway instance (keys as texts) until they are.
 */
export function i18nFor(language: Language): I18n {
  const messages = languagesFor(language).map((l) => [l, source(l)] as const);
  const complete = messages.every(([, m]) => !!m);
  if (!complete || process.env.NODE_ENV !== "production") return createI18n(language, messages);
  let instance = instances.get(language);
  if (!instance) instances.set(language, (instance = createI18n(language, messages)));
  return instance;
}

function createI18n(language: Language, messages: (readonly [Language, Messages | undefined])[]): I18n {
  const instance = i18next.createInstance();
  instance.init({
    lng: language,
    fallbackLng: DEFAULT_LANGUAGE,
    supportedLngs: [...LANGUAGES],
    defaultNS: "common",
    ns: ["common"],
    resources: Object.fromEntries(messages.filter(([, m]) => m).map(([l, m]) => [l, { common: m! }])),
    initImmediate: false,
    interpolation: { escapeValue: false }, // React escapes
    returnNull: false,
  });
  memoisePlainLookups(instance);
  return instance;
}

/** The options react-i18next's t passes for a plain lookup (no count, values or default). */
const PLAIN = new Set(["lng", "lngs", "ns", "keyPrefix"]);

/**
 * A list page looks up about 400 texts, most by key alone, and i18next resolves each through its
 * whole pipeline (about 8 µs). The texts of an instance never change, so a key's text is kept once
 * found; lookups with values, counts or defaults still go through i18next.
 */
function memoisePlainLookups(instance: I18n) {
  const translate = instance.t.bind(instance) as (key: unknown, options?: Record<string, unknown>) => unknown;
  const found = new Map<string, unknown>();
  instance.t = ((key: unknown, options?: Record<string, unknown>) => {
    if (typeof key !== "string" || (options && (options.keyPrefix || Object.keys(options).some((k) => !PLAIN.has(k))))) return translate(key, options);
    const id = `${String(options?.lng ?? "")}\0${String(options?.ns ?? "")}\0${key}`;
    let text = found.get(id);
    if (text === undefined) found.set(id, (text = translate(key, options)));
    return text;
  }) as unknown as I18n["t"];
}
