// The language-leak guard (issue 23): every page the axe guard visits (tests/e2e/pages.ts), signed
// in as an admin and as a stranger, is rendered in English and in ms, zh, ko and ja with
// JavaScript on, and in ms and ja with it off (languagesFor says why). Any visible interface text (text on the page, the <title>, aria-label,
// title, placeholder and alt attributes, the options of a select) that is the same as on the
// English page fails, with the page, where on it and the text. User data (what the workspace's
// people wrote: subjects, messages, names, labels) is not interface text: it is left out by the
// selectors of USER_DATA, each with its reason. Texts that are rightly the same in English and a
// language are in SAME, each with its languages and reason. Pages with JavaScript are reached by
// the client's router after the first (fast, and what a reader does); closed <details> are opened.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ChildProcess } from "node:child_process";
import { test, expect, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { hydrated, login, remixCookieValue } from "./helpers";
import { PUBLIC_PAGES, adminPages } from "./pages";
import { startServer, stopServer, waitHealthy } from "../support/server-process";

// The guard reads the demo workspace on a server of its own: what other specs wrote into the
// shared e2e database (their surveys, people, messages) would be user data in English on every page.
const OWN_PORT = Number(process.env.E2E_PORT || 3210) + 40;
const ownBase = `http://localhost:${OWN_PORT}`;
let server: ChildProcess | undefined;
let dataDir = "";
test.beforeAll(async () => {
  // as long as waitHealthy may wait (a loaded machine starts the server slowly)
  test.setTimeout(150_000);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-leak-"));
  server = startServer({
    PORT: String(OWN_PORT),
    DATA_DIR: dataDir,
    DATABASE_URL: "",
    SESSION_SECRET: "e2e-leak",
    NODE_ENV: "test",
    SMTP_LISTEN_PORT: String(OWN_PORT + 1),
    REDIS_URL: "",
  });
  await waitHealthy(ownBase, 120_000);
});
test.afterAll(async () => {
  if (server) await stopServer(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const LANGUAGES = ["ms", "zh", "ko", "ja"] as const;
type Language = (typeof LANGUAGES)[number];
/**
 * The languages each run compares with English. With JavaScript on every language: the page as
 * rendered and then hydrated holds all of the server's texts and the client's. With it off, the
 * server's texts again plus the few shown only without JavaScript: one Latin-script and one CJK
 * language check those (the dictionaries' gaps are listed by the locale check of the unit tests).
 */
const languagesFor = (javaScriptEnabled: boolean): readonly Language[] => (javaScriptEnabled ? LANGUAGES : ["ms", "ja"]);

/**
 * Where the workspace's own data is shown: what people wrote or named, not the interface, so never
 * translated. A text is left out when the element that holds it (or bears the attribute) matches.
 */
const USER_DATA: [selector: string, reason: string][] = [
  [".ticket-item .title, .ticket-item .title *, .ticket-item .last", "a conversation's subject and last message in the list"],
  [".search-hit .title, .search-hit .title mark, .search-contact", "a search hit's subject (the match marked) and its contact"],
  [".session-name, .session-last", "a live chat session's visitor and last message on the live chat desk"],
  [".conversation-head h1, .conversation-head .contact", "a conversation's subject and its contact's name and address"],
  [".text-body, .message > header > strong, .message > header > strong a", "messages and their authors"],
  ["label:has(> input[name=label]), label:has(> input[name=people])", "labels and people to choose in a conversation or a new chat"],
  [".label-chip, .label-chip *", "labels, named by the admins"],
  [".plugin-panel li, .plugin-panel li a", "what plugins link to a conversation: its contact's name, its case's title, its products' names"],
  [".contacts-table tbody th, .contacts-table tbody th a", "contacts' names in the contacts list"],
  [".meeting-agents label, .meeting-list a", "agents to invite to a meeting (name and username) and running meetings' titles"],
  [".avatar, .avatar .sr-only, .profile-avatar", "people's initials and names"],
  [".user-name, a[href^='/profile?username=']", "the signed-in person's name and username"],
  ["select[name=label] option, select[name=department] option, select[name=assignee] option", "labels, departments and agents to filter by"],
  ["bdi", "customers' names as they gave them, isolated in <bdi> (the conversation head, kanban cards)"],
  [".kanban-card p, .kanban-card p a, #kanban-filter-agent option", "the kanban board's tickets (subject, contact) and the agents to filter by"],
  [
    "#sla-label_id option, #sip-user option, #did-department option:not([value=''])",
    "labels to give an SLA policy, people to give a SIP account, departments a DID rings",
  ],
  [
    "select[name=newTicketDepartment] option:not([value='']), select[name=newTicketCampaign] option:not([value=''])",
    "departments and campaigns whose new tickets a person wants to hear of",
  ],
  [
    "[data-widget=sla_attainment] .role-axis-label text, [data-widget=sla_attainment] td, [data-widget=sla_attainment] th",
    "the SLA attainment chart and its table, by label and agent: their names",
  ],
  [".report-table:not(.audit-table) td:nth-child(2), .report-table:not(.audit-table) td:nth-child(4)", "the summary report's subjects and labels"],
  [".report-table:not(.audit-table) td:nth-child(7), .report-table:not(.audit-table) td:nth-child(12)", "the summary report's departments and rating reasons"],
  [
    ".users-table th a, .users-table tr[data-username] > td:first-of-type, .users-table tr[data-username] > td:nth-of-type(4)",
    "users' names, usernames, departments",
  ],
  [".sessions-table th[scope=row], .sessions-table form .sr-only", "a session's device (read from its browser's user agent) and its time"],
  ["tr[data-testid^='channel-account-'] > td:first-child a, tr[data-testid^='channel-account-'] > td:nth-child(4)", "channel accounts' names and departments"],
  [".audit-who, .audit-value", "the audit log's people, targets and recorded values"],
  ["#embed-code", "the live chat's code for a website"],
  ["textarea.bot-text", "what the WAUCHAT bot says, written by the admins (its defaults are the bot's English, Malay and Chinese)"],
  ["code", "identifiers shown as code: audit action names, channel addresses, product SKUs"],
  [".product-data, .product-data *, #product-category option:not([value=''])", "products' names, categories and descriptions, written by the admins"],
  [
    ".calendar-holiday, .calendar-items a, #calendar-country-select option",
    "appointments' titles; public holidays' names from date-holidays (proper names like Deepavali, alike in every language) and ICU's country names (many alike in Malay)",
  ],
  [
    ".kb-list tbody td:first-child, .kb-list tbody td:first-child a, .kb-article, .kb-article *, #kb-filter-category option:not([value='']), textarea#kb-body",
    "knowledge base articles' titles, text (on the page and in the editor) and categories, written by the admins",
  ],
  [".forms-page h2, .login-card:has(.survey-form) > h1, .survey-form > label, .survey-rating > legend", "a survey's title and questions, written by its admin"],
];

/** Texts that are rightly the same in English and in `languages`, each for a reason. */
const SAME: [text: string | RegExp, languages: readonly Language[], reason: string][] = [
  ["OmniDesk", LANGUAGES, "the product's name"],
  [/^(English|Bahasa Melayu|简体中文|한국어|日本語)$/, LANGUAGES, "the language picker names each language in itself"],
  [/^(Facebook Messenger|LINE|Telegram|WhatsApp)$/, LANGUAGES, "channels named by their brands"],
  ["SLA", LANGUAGES, "service level agreement: the abbreviation is used in every language"],
  ["SKU", LANGUAGES, "stock keeping unit: the abbreviation is used in every language"],
  ["DID", LANGUAGES, "direct inward dialling: telephony's abbreviation is used in every language"],
  [/^[A-Z]{3} [\d,]+(\.\d+)?$/, LANGUAGES, "amounts are written with their ISO currency code, alike in every language (plugins/payment/money.ts)"],
  [/^https?:\/\/\S+$/, LANGUAGES, "web addresses"],
  [/^[^\s@]+@[^\s@]+$/, LANGUAGES, "mail addresses"],
  ["INBOX", LANGUAGES, "IMAP's name of the inbox, written as servers expect it"],
  ["SMS", ["ms", "ko", "ja"], "Malay, Korean and Japanese say SMS"],
  [/^(Status|Label|Manual|Kanban|Chatbot|Pro)$/, ["ms"], "the same word in Malay"],
  [/^(\d{1,2} )?(Jan|Feb|Apr|Jun|Jul|Sep|Nov|April|September|November)( \d{4})?$/, ["ms"], "Malay months and their abbreviations that English shares"],
  [/^\d+ min$/, ["ms"], "Malay abbreviates minit as min"],
];

type Text = { text: string; where: string };

/**
 * The visible texts of the page, each with whitespace collapsed and where it is (a short CSS path),
 * the ones without a letter left out. Closed <details> are opened first, so what they hold is read.
 * The <title> is read in its parts (" - ", " · "), with the page's user data and unread count taken
 * out of each: what is left names the page.
 */
function textsOf(page: Page, userData: string): Promise<Text[]> {
  return page.evaluate((userData) => {
    for (const details of document.querySelectorAll("details")) details.open = true;
    const out = new Map<string, string>();
    const mineTexts = new Set<string>();
    const clean = (text: string | null) => (text ?? "").replace(/\s+/g, " ").trim();
    const at = (el: Element) => {
      const path = [];
      for (let e: Element | null = el; e && e !== document.body && path.length < 3; e = e.parentElement)
        path.unshift(e.tagName.toLowerCase() + (e.getAttribute("id") ? `#${e.getAttribute("id")}` : "") + [...e.classList].map((c) => `.${c}`).join(""));
      return path.join(" > ");
    };
    const add = (text: string, where: string) => {
      if (/\p{L}/u.test(text) && !out.has(text)) out.set(text, where);
    };
    const shown = (el: Element) => el.checkVisibility({ visibilityProperty: true } as CheckVisibilityOptions);
    const mine = (el: Element) => !!userData && el.matches(userData);
    /** Adds the text, or notes it as user data when `el` holds user data. */
    const read = (text: string | null, el: Element) => (mine(el) ? mineTexts.add(clean(text)) : add(clean(text), at(el)));
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || el.closest("script, style, template")) continue;
      // an SVG's <title> and <desc> are not drawn but name the drawing
      const svg = el.closest("svg title, svg desc") ? el.closest("svg") : el;
      if (svg && shown(svg)) read(node.nodeValue, el);
    }
    for (const el of document.body.querySelectorAll("[aria-label], [title], [placeholder], [alt], input[type=submit], input[type=button], select")) {
      if (!shown(el)) continue;
      for (const name of ["aria-label", "title", "placeholder", "alt"]) if (el.hasAttribute(name)) read(el.getAttribute(name), el);
      if (el instanceof HTMLInputElement && (el.type === "submit" || el.type === "button")) read(el.value, el);
      if (el instanceof HTMLSelectElement) for (const option of el.options) read(option.text, option);
    }
    // user data in the title: whole words of it, longest first (an initial must not eat a letter)
    const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const userWords = [...mineTexts]
      .filter(Boolean)
      .sort((a, b) => b.length - a.length)
      .map((text) => new RegExp(`(^|\\s)${escape(text)}(?=\\s|$)`, "g"));
    for (let part of clean(document.title).split(/ [-·] /)) {
      for (const words of userWords) part = part.replace(words, "$1");
      add(clean(part.replace(/^\(\d+\)/, "")), "title");
    }
    return [...out].map(([text, where]) => ({ text, where }));
  }, userData);
}

const allowed = (text: string, language: Language) =>
  SAME.some(([same, languages]) => languages.includes(language) && (typeof same === "string" ? same === text : same.test(text)));

/** A context in `language`, signed in with `cookies` when given. */
async function contextIn(
  browser: Browser,
  baseURL: string,
  language: string,
  javaScriptEnabled: boolean,
  cookies: Awaited<ReturnType<BrowserContext["cookies"]>>,
) {
  const context = await browser.newContext({ baseURL, javaScriptEnabled, locale: "en-US" });
  await context.addCookies([...cookies.filter((c) => c.name !== "lng"), { name: "lng", value: remixCookieValue(language), url: baseURL }]);
  return context;
}

/**
 * Opens the page. With JavaScript, the first page is loaded and hydrated, later ones are reached as
 * a reader does, by the client's router (much faster than loading each page again); then the
 * interactive charts are awaited.
 */
async function open(page: Page, path: string, javaScriptEnabled: boolean) {
  if (!javaScriptEnabled || page.url() === "about:blank") await page.goto(path);
  // the router's navigate settles once the page's data is loaded (and any redirect followed)
  else await page.evaluate((path) => (window as unknown as { __remixRouter: { navigate(to: string): Promise<void> } }).__remixRouter.navigate(path), path);
  if (!javaScriptEnabled) return;
  await hydrated(page);
  await expect(page.locator(".chart:not([data-live])")).toHaveCount(0, { timeout: 15_000 });
}

/** The texts of each page that are the same in English and in a language: `path [lng] where: text`. */
async function leaks(
  browser: Browser,
  baseURL: string,
  paths: string[],
  javaScriptEnabled: boolean,
  cookies: Awaited<ReturnType<BrowserContext["cookies"]>> = [],
) {
  const userData = USER_DATA.map(([selector]) => selector).join(", ");
  const languages = languagesFor(javaScriptEnabled);
  const contexts = await Promise.all(["en", ...languages].map((l) => contextIn(browser, baseURL, l, javaScriptEnabled, cookies)));
  const pages = await Promise.all(contexts.map((c) => c.newPage()));
  const found: string[] = [];
  try {
    for (const path of paths) {
      await Promise.all(pages.map((page) => open(page, path, javaScriptEnabled)));
      const [english, ...others] = await Promise.all(pages.map((page) => textsOf(page, userData)));
      const inEnglish = new Set(english.map((t) => t.text));
      // the comparison means something only if each page is in its language and has texts to compare
      expect(await Promise.all(pages.map((page) => page.locator("html").getAttribute("lang"))), path).toEqual(["en", ...languages]);
      expect(english.length, path).toBeGreaterThan(1);
      for (const [i, language] of languages.entries()) {
        const same = others[i].filter((t) => inEnglish.has(t.text) && !allowed(t.text, language));
        found.push(...same.map((t) => `${path} [${language}] ${t.where}: ${t.text}`));
      }
    }
  } finally {
    await Promise.all(contexts.map((c) => c.close()));
  }
  return found;
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`in ${languagesFor(javaScriptEnabled).join(", ")} with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test("every page an admin reaches shows no English interface text", async ({ browser }) => {
      // some 60 pages in five languages: minutes on a busy 2-core runner (as the axe guard)
      test.setTimeout(600_000);
      const context = await browser.newContext({ baseURL: ownBase });
      const page = await context.newPage();
      await context.addCookies([{ name: "lng", value: remixCookieValue("en"), url: ownBase }]);
      await login(page, "admin", "admin");
      const paths = await adminPages(page);
      const found = await leaks(browser, ownBase, paths, javaScriptEnabled, await context.cookies());
      await context.close();
      console.log(
        `[leak JS ${javaScriptEnabled ? "on" : "off"}] ${paths.length} signed-in pages x ${languagesFor(javaScriptEnabled).length} languages, ${found.length} leaks`,
      );
      expect(found).toEqual([]);
    });

    test("the public pages show no English interface text", async ({ browser }) => {
      test.setTimeout(120_000);
      const found = await leaks(browser, ownBase, PUBLIC_PAGES, javaScriptEnabled);
      console.log(
        `[leak JS ${javaScriptEnabled ? "on" : "off"}] ${PUBLIC_PAGES.length} public pages x ${languagesFor(javaScriptEnabled).length} languages, ${found.length} leaks`,
      );
      expect(found).toEqual([]);
    });
  });
}
