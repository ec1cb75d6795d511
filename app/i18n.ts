// Language settings shared by server and browser.
import i18next, { type i18n as I18n, type Resource } from "i18next";

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

const instances = new Map<Language, I18n>();
/**
 * The ready instance for one language, made once: translations do not change while a build runs,
 * so every request and render in that language shares it. Resources come from the root loader
 * (browser) or the locale files (server: app/i18n.server.ts), so nothing is fetched.
 */
export function i18nFor(language: Language, resources: Resource): I18n {
  // an error page rendered without the root loader's data gets a throwaway instance; outside
  // production the translation files are re-read (loadMessages), so nothing is kept
  if (!resources[language] || process.env.NODE_ENV !== "production") return createI18n(language, resources);
  let instance = instances.get(language);
  if (!instance) instances.set(language, (instance = createI18n(language, resources)));
  return instance;
}

function createI18n(language: Language, resources: Resource): I18n {
  const instance = i18next.createInstance();
  instance.init({
    lng: language,
    fallbackLng: DEFAULT_LANGUAGE,
    supportedLngs: [...LANGUAGES],
    defaultNS: "common",
    ns: ["common"],
    resources,
    initImmediate: false,
    interpolation: { escapeValue: false }, // React escapes
    returnNull: false,
  });
  return instance;
}
