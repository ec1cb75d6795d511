// Server side of languages: detection (saved preference, then cookie, then Accept-Language) and
// the translation files in public/locales and plugins/<id>/locales.
import fs from "node:fs";
import path from "node:path";
import { RemixI18Next } from "remix-i18next/server";
import type { Resource, TFunction } from "i18next";
import { DEFAULT_LANGUAGE, LANGUAGES, i18nFor, isLanguage, type Language } from "./i18n";
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
  return i18nFor(language, resourcesFor(language)).t;
}

/** Only the chosen language and the English fallback go to the browser. */
export function resourcesFor(language: Language): Resource {
  const resources: Resource = { [DEFAULT_LANGUAGE]: { common: loadMessages(DEFAULT_LANGUAGE) } };
  if (language !== DEFAULT_LANGUAGE) resources[language] = { common: loadMessages(language) };
  return resources;
}
