// Every translation must match the English strings file: the same keys (plural forms aside)
// and the same {{placeholders}} in each string. Plugin locale files (plugins/<id>/locales/<lang>.json:
// titles, menu labels, widget titles) count as files of their language.
import fs from "node:fs";
import path from "node:path";
import { describe, it, expect } from "vitest";
import { plugins } from "~/plugins/registry.server";

const LOCALES_DIR = path.resolve(process.cwd(), "public/locales");
const PLUGINS_DIR = path.resolve(process.cwd(), "plugins");
const SOURCE = "en";
const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;

type Messages = { [key: string]: string | Messages };

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as Messages;

/** plugins/<id>/locales/, for the plugins that have one. */
const pluginLocaleDirs = fs
  .readdirSync(PLUGINS_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(PLUGINS_DIR, entry.name, "locales")))
  .map((entry) => path.join(PLUGINS_DIR, entry.name, "locales"))
  .sort();

/** Every file of a language in the order the server merges them (app/i18n.server.ts). */
function filesOf(language: string): string[] {
  const dir = path.join(LOCALES_DIR, language);
  const pages = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => path.join(dir, f));
  const fromPlugins = pluginLocaleDirs.map((d) => path.join(d, `${language}.json`)).filter((f) => fs.existsSync(f));
  return [...pages, ...fromPlugins];
}

/** Every file of a language, merged as the server merges them. */
function load(language: string): Messages {
  const merged: Messages = {};
  for (const file of filesOf(language)) Object.assign(merged, readJson(file));
  return merged;
}

/** Dotted key -> string, for every leaf. */
function flatten(messages: Messages, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(messages)) {
    const full = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out.set(full, value);
    else for (const [k, v] of flatten(value, full)) out.set(k, v);
  }
  return out;
}

/** "status.banner_one" -> "status.banner"; plural forms of one key count as that key. */
const baseKey = (key: string) => key.replace(PLURAL_SUFFIX, "");

const placeholders = (text: string) => [...new Set([...text.matchAll(/\{\{\s*([^}]+?)\s*\}\}/g)].map((match) => match[1]))].sort();

const show = (names: string[]) => (names.length ? names.map((n) => `{{${n}}}`).join(" ") : "none");

const languages = fs
  .readdirSync(LOCALES_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== SOURCE)
  .map((entry) => entry.name)
  .sort();

const englishFlat = flatten(load(SOURCE));
const englishBases = new Set([...englishFlat.keys()].map(baseKey));

/** The English string a translated key answers to: the same form, else the "other" form. */
function englishFor(key: string): string | undefined {
  return englishFlat.get(key) ?? englishFlat.get(`${baseKey(key)}_other`) ?? englishFlat.get(baseKey(key));
}

describe("locale files", () => {
  it("has translations to check", () => {
    expect(languages.length).toBeGreaterThan(0);
  });

  it("gives each top-level key to one file only (files are merged shallowly)", () => {
    for (const language of [SOURCE, ...languages]) {
      const seen = new Map<string, string>();
      const clashes: string[] = [];
      for (const file of filesOf(language).map((f) => path.relative(process.cwd(), f))) {
        for (const key of Object.keys(readJson(file))) {
          if (seen.has(key)) clashes.push(`${language}: ${key} in ${seen.get(key)} and ${file}`);
          seen.set(key, file);
        }
      }
      expect(clashes).toEqual([]);
    }
  });

  it("names plugin locale files after the languages of public/locales", () => {
    const known = new Set([SOURCE, ...languages].map((l) => `${l}.json`));
    const stray = pluginLocaleDirs.flatMap((dir) =>
      fs
        .readdirSync(dir)
        .filter((f) => !known.has(f))
        .map((f) => path.join(dir, f)),
    );
    expect(stray).toEqual([]);
  });

  it("finds every manifest title, menu label and widget title in the plugin's own English file", () => {
    const missing: string[] = [];
    for (const plugin of plugins()) {
      const file = path.join(PLUGINS_DIR, plugin.id, "locales", `${SOURCE}.json`);
      const own = fs.existsSync(file) ? flatten(readJson(file)) : new Map<string, string>();
      const keys = [plugin.title, ...plugin.menu.map((i) => i.label), ...plugin.widgets.map((w) => w.title)];
      for (const key of keys) if (!own.get(key)) missing.push(`${plugin.id}: ${key}`);
    }
    expect(missing).toEqual([]);
  });

  describe.each(languages)("%s", (language) => {
    const flat = flatten(load(language));
    const bases = new Set([...flat.keys()].map(baseKey));

    it("has every English key", () => {
      expect([...englishBases].filter((key) => !bases.has(key))).toEqual([]);
    });

    it("has no key English lacks", () => {
      expect([...bases].filter((key) => !englishBases.has(key))).toEqual([]);
    });

    it("keeps the placeholders of every string", () => {
      const changed: string[] = [];
      for (const [key, value] of flat) {
        const source = englishFor(key);
        if (source === undefined) continue; // reported as an extra key
        const expected = placeholders(source);
        const actual = placeholders(value);
        if (actual.join() !== expected.join()) changed.push(`${key}: ${show(actual)}, English has ${show(expected)}`);
      }
      expect(changed).toEqual([]);
    });
  });
});
