// What a username and an account's email may be: one rule for every form that makes or changes an
// account (first-run setup, sign-up, the CLI, user management). Client-safe; the uniqueness checks
// against the database are in username.server.ts. Answers are keys in the "setup" namespace.
import { z } from "zod";

export const USERNAME_MIN_LENGTH = 3;
export const USERNAME_MAX_LENGTH = 32;
/** RFC 5321's limit of a forward path. */
export const EMAIL_MAX_LENGTH = 254;

/** ASCII only: uniqueness ignores case, and SQL's lower() folds only ASCII on every dialect. */
const USERNAME_CHARS = /^[A-Za-z0-9._-]+$/;
/** Basic shape only (one @, a dot in the domain, no spaces); the link sent there proves the rest. */
const EMAIL_SHAPE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** Leading and trailing spaces are a typing slip and go; spaces inside are refused. */
export const normalizeUsername = (value: string) => value.trim();
/** Emails are kept lower-cased, so one address is one account whatever its case. */
export const normalizeEmail = (value: string) => value.trim().toLowerCase();

/** Null when acceptable (after normalizeUsername); otherwise why not, as a locale key. */
export function usernameProblem(value: string) {
  const name = normalizeUsername(value);
  if (name.length < USERNAME_MIN_LENGTH || name.length > USERNAME_MAX_LENGTH) return "setup.rules.usernameLength";
  if (!USERNAME_CHARS.test(name)) return "setup.rules.usernameChars";
  return null;
}

/** Null when acceptable (after normalizeEmail); otherwise why not, as a locale key. */
export function emailProblem(value: string) {
  const email = normalizeEmail(value);
  if (!email) return "setup.rules.emailRequired";
  if (email.length > EMAIL_MAX_LENGTH || !EMAIL_SHAPE.test(email)) return "setup.rules.emailInvalid";
  return null;
}

/** Two usernames name the same account when they differ only in case. */
export const sameUsername = (a: string, b: string) => normalizeUsername(a).toLowerCase() === normalizeUsername(b).toLowerCase();

/** Interpolation values of the rule texts; named apart from the password's {{min}} and {{max}}, as one form shows both. */
export const USERNAME_RULE_VALUES = { usernameMin: String(USERNAME_MIN_LENGTH), usernameMax: String(USERNAME_MAX_LENGTH) };

const problem = (check: (value: string) => string | null) => (value: string, ctx: z.RefinementCtx) => {
  const key = check(value);
  if (key) ctx.addIssue({ code: "custom", message: key, params: USERNAME_RULE_VALUES });
};

/** A username field: refused with the rule it breaks, else the normalised name. */
export const usernameSchema = z.string().superRefine(problem(usernameProblem)).transform(normalizeUsername);
/** A required email field: refused with the rule it breaks, else the lower-cased address. */
export const emailSchema = z.string().superRefine(problem(emailProblem)).transform(normalizeEmail);
/** An email field that may stay empty (accounts made without one). */
export const optionalEmailSchema = z
  .string()
  .superRefine((value, ctx) => {
    if (normalizeEmail(value)) problem(emailProblem)(value, ctx);
  })
  .transform(normalizeEmail);
