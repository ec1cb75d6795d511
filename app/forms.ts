// Forms: the one shape every refused form post answers, the helpers that build it, and the zod
// schemas of the core pages. Error values are translation keys (spec section 8); the texts come
// from the locale files. Client-safe: the server's response helper is in forms.server.ts.
import { useActionData } from "@remix-run/react";
import type { z } from "zod";

/**
 * What a refused form post answers (400, or the status its reason has: 403, 409, 429, ...). The
 * page shows the message and each field's error and keeps what was typed, also without JavaScript.
 */
/** The spec's basic email address pattern (section 5: 'Please check the email address.'). */
export const EMAIL_PATTERN = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

export type FormResult = {
  /** which of the page's forms was posted, so the error shows beside it */
  intent?: string;
  /** the first error of each field, a translation key */
  errors: Record<string, string>;
  /** what was typed, shown again (a field sent more than once, like checkboxes: one value per line) */
  values: Record<string, string>;
  /** an error of the form as a whole, a translation key */
  message?: string;
  /** interpolation values of the message and of the field errors */
  messageValues?: Record<string, string>;
};

/** A refusal from its parts; errors and values default to none. */
export function formResult(parts: Partial<FormResult>): FormResult {
  const result: FormResult = { errors: parts.errors ?? {}, values: parts.values ?? {} };
  if (parts.intent !== undefined) result.intent = parts.intent;
  if (parts.message !== undefined) result.message = parts.message;
  if (parts.messageValues !== undefined) result.messageValues = parts.messageValues;
  return result;
}

/**
 * A schema's refusal: the first error per field; an error of no field is the form's message. The
 * `params` of a refine's issue are its text's interpolation values (`{ address }` of badEmail).
 */
export function formError(error: z.ZodError, values: Record<string, string>, intent?: string): FormResult {
  const errors: Record<string, string> = {};
  let message: string | undefined;
  const messageValues: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = issue.path.length ? String(issue.path[0]) : undefined;
    if (field === undefined ? message !== undefined : field in errors) continue;
    if (field === undefined) message = issue.message;
    else errors[field] = issue.message;
    if (issue.code === "custom" && issue.params) for (const [k, v] of Object.entries(issue.params)) messageValues[k] ??= String(v);
  }
  return formResult({ intent, errors, values, message, messageValues: Object.keys(messageValues).length ? messageValues : undefined });
}

/**
 * The text fields of a form as one object, for a schema and for FormResult.values: `names` only
 * (a missing one is ""), or every text field. A name sent more than once gives one value per line;
 * files are left out.
 */
export function formValues<N extends string>(form: FormData, names?: readonly N[]): Record<N, string> {
  const keys = names ?? [...new Set([...form.keys()])];
  const out: Record<string, string> = {};
  for (const name of keys) {
    const texts = form.getAll(name).filter((v): v is string => typeof v === "string");
    if (names || texts.length) out[name] = texts.join("\n");
  }
  return out as Record<N, string>;
}

/** A field kept one value per line (checkboxes) back as its values. */
export const valueList = (value: string | undefined) => (value ? value.split("\n") : []);

/**
 * Is this action data (or a fetcher's) a refusal, and given an intent, of that form? `T` names
 * what a page adds to its refusals (the settings page: the two-factor setup to show again).
 */
export function readFormResult<T extends FormResult = FormResult>(data: unknown, intent?: string): T | undefined {
  if (!data || typeof data !== "object" || !("errors" in data) || !("values" in data)) return undefined;
  const result = data as T;
  return intent === undefined || result.intent === intent ? result : undefined;
}

/** The refusal the page's last post answered, if any (and, given an intent, of that form). */
export function useFormResult<T extends FormResult = FormResult>(intent?: string): T | undefined {
  return readFormResult<T>(useActionData(), intent);
}

const refusalKeys = new WeakMap<FormResult, string>();
let refusals = 0;
/**
 * A key that is new with each refusal, two in a row too (`fallback` before any): a form of
 * uncontrolled inputs keyed by it re-renders from the refusal's values (the row editors).
 */
export function refusalKey(result: FormResult | undefined, fallback: string) {
  if (!result) return fallback;
  let key = refusalKeys.get(result);
  if (!key) refusalKeys.set(result, (key = `refused-${++refusals}`));
  return key;
}

/** Only same-site relative paths are followed after a form post. */
export function safeRedirect(target: FormDataEntryValue | null | undefined, fallback = "/") {
  const value = typeof target === "string" ? target : "";
  // browsers drop tabs and newlines and read a backslash as "/": "/<tab>/x" would leave the site
  if (!value.startsWith("/") || /[\u0000-\u001f\\]/.test(value)) return fallback;
  const base = "http://same.invalid";
  const url = new URL(value, base);
  const path = url.pathname + url.search + url.hash;
  // "/.//evil.example" resolves to the path "//evil.example", which a browser reads as another host
  return url.origin === base && !path.startsWith("//") ? path : fallback;
}
