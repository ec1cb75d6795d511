// A page's <title>: its own name first, then the shell's ("(3) Workspace - Product" when signed in,
// else the product's), so a browser tab and a screen reader say where the user is (WCAG 2.4.2).
// A route names its page with a translation key; the text is in the page's language, on the
// server and in the browser alike. Pages of the shell's menu are named by their menu label
// without any of this (app/shell/layout.tsx).
import type { MetaDescriptor, MetaFunction } from "@remix-run/react";
import { DEFAULT_LANGUAGE, i18nFor, isLanguage } from "./i18n";

type Matches = Parameters<MetaFunction>[0]["matches"];

const dataOf = (matches: Matches, id: string) => matches.find((m) => m?.id === id)?.data as Record<string, unknown> | undefined;

/** The shell's part of every title. */
export function shellTitle(matches: Matches): string {
  const shell = dataOf(matches, "shell");
  const root = dataOf(matches, "root");
  return String(shell?.tabTitle ?? shell?.productTitle ?? root?.productTitle ?? "OmniDesk");
}

/** "<page> - <shell>", the page's name translated from `key`. */
export function pageTitle(matches: Matches, key: string): MetaDescriptor {
  const language = dataOf(matches, "root")?.language;
  const name = i18nFor(isLanguage(language) ? language : DEFAULT_LANGUAGE).t(key);
  return { title: `${name} - ${shellTitle(matches)}` };
}

/** A route's meta: the title `key` names (a key, or one chosen from the route's data), then any other tags. */
export function pageMeta<Data = unknown>(key: string | ((data: Data | undefined) => string), extra: MetaDescriptor[] = []): MetaFunction {
  return ({ data, matches }) => [pageTitle(matches, typeof key === "function" ? key(data as Data | undefined) : key), ...extra];
}
