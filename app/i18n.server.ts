// Server side of languages: detection (saved preference, then cookie, then Accept-Language) and
// the translation files in public/locales and plugins/<id>/locales.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { RemixI18Next } from "remix-i18next/server";
import type { TFunction } from "i18next";
import { DEFAULT_LANGUAGE, LANGUAGES, i18nFor, isLanguage, languagesFor, setTranslationSource, type Language } from "./i18n";
import { languageCookie } from "./cookies.server";

let detector: RemixI18Next | undefined;
const getDetector = () =>
  (detector ??= new RemixI18Next({
    detection: {
      supportedLanguages: [...LANGUAGES],
      fallbackLanguage: DEFAULT_LANGUAGE,
      cookie: languageCookie(),
      order: ["cookie", "header"],
    },
  }));

export async function detectLanguage(request: Request, saved: string | null | undefined): Promise<Language> {
  if (isLanguage(saved)) return saved;
  const found = await getDetector().getLocale(request);
  return isLanguage(found) ? found : DEFAULT_LANGUAGE;
}

/** The user picked a language already (cookie present), so the first-visit dialog stays closed. */
export async function hasChosenLanguage(request: Request) {
  return isLanguage(await languageCookie().parse(request.headers.get("Cookie")));
}

const cache = new Map<Language, Record<string, unknown>>();
setTranslationSource(loadMessages);
/**
 * One namespace per language: the host's files in public/locales/<language>/ (common.json for the
 * shell, one file per host area), then each plugin's plugins/<id>/locales/<language>.json (its
 * title, menu labels, widget titles and page texts). Top-level keys must not collide.
 */
export function loadMessages(language: Language): Record<string, unknown> {
  let messages = cache.get(language);
  if (!messages) {
    const dir = path.resolve("public/locales", language);
    const files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => path.join(dir, f));
    messages = {};
    for (const file of [...files, ...pluginLocaleFiles(language)]) Object.assign(messages, JSON.parse(fs.readFileSync(file, "utf8")));
    if (process.env.NODE_ENV === "production") cache.set(language, messages);
  }
  return messages;
}

/** plugins/<id>/locales/<language>.json of every plugin that has one, in plugin id order. */
export function pluginLocaleFiles(language: Language): string[] {
  const dir = path.resolve("plugins");
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => path.join(dir, d.name, "locales", `${language}.json`))
    .filter((file) => fs.existsSync(file))
    .sort();
}

/** Translate on the server (manifest titles and menu labels, report texts). */
export function translatorFor(language: Language): TFunction {
  return i18nFor(language).t;
}

const files = new Map<Language, { body: string; hash: string }>();
/**
 * One language's texts as the browser loads them: a JSON file whose name carries a hash of its
 * content, so it is cached for a year and a deploy that changes a text changes the name.
 */
export function translationsFile(language: Language) {
  let file = files.get(language);
  if (!file) {
    const body = JSON.stringify(loadMessages(language));
    file = { body, hash: createHash("sha256").update(body).digest("hex").slice(0, 12) };
    if (process.env.NODE_ENV === "production") files.set(language, file);
  }
  return file;
}

/** The files a page in `language` needs (its own and the English fallback), for root's data. */
export function translationUrls(language: Language) {
  return languagesFor(language).map((l) => ({ language: l, href: `/locales/${l}.${translationsFile(l).hash}.json` }));
}
