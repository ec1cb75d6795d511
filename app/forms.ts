// zod schemas for the forms of the core pages; error values are translation keys (spec section 8).
import { z } from "zod";

export const loginSchema = z.object({
  username: z.string().trim().min(1, "login.usernameRequired"),
  password: z.string().min(1, "login.passwordRequired"),
  type: z.enum(["admin", "agent"]).catch("agent"),
});

export const codeSchema = z.object({
  code: z.string().trim().regex(/^\d{6}$/, "login.codeFormat"),
});

export type FieldErrors = Partial<Record<string, string>>;

/** First error per field, for showing beside each input. */
export function fieldErrors(error: z.ZodError): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? "form");
    out[key] ??= issue.message;
  }
  return out;
}

/** Only same-site relative paths are followed after a form post. */
export function safeRedirect(target: FormDataEntryValue | null | undefined, fallback = "/") {
  const value = typeof target === "string" ? target : "";
  // browsers drop tabs and newlines and read a backslash as "/": "/<tab>/x" would leave the site
  if (!value.startsWith("/") || /[\u0000-\u001f\\]/.test(value)) return fallback;
  const base = "http://same.invalid";
  const url = new URL(value, base);
  return url.origin === base ? url.pathname + url.search + url.hash : fallback;
}
