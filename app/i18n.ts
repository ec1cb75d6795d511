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

/** A ready instance for one language; resources come from the root loader, so nothing is fetched. */
export function createI18n(language: Language, resources: Resource): I18n {
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
