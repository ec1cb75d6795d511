// What a new password must be (ASVS 4.0 V2.1): 12 to 128 characters, any characters, and not one
// of the ~49,000 most common passwords (the list zxcvbn ships), even with digits or symbols added
// at either end. The answer is a locale key.
import { dictionary } from "@zxcvbn-ts/language-common";

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

let common: Set<string> | undefined;
const commonPasswords = () => (common ??= new Set(dictionary.passwords.map((p: string) => p.toLowerCase())));

/** Null when acceptable; otherwise why not, as a key in the "password" namespace. */
export function passwordProblem(password: string, about: { username?: string; email?: string } = {}) {
  const length = [...password.normalize("NFKC")].length;
  if (length < PASSWORD_MIN_LENGTH) return "password.tooShort";
  if (length > PASSWORD_MAX_LENGTH) return "password.tooLong";
  const lower = password.toLowerCase();
  // "password1234" is "password" with digits on: strip leading and trailing digits and symbols too
  const cores = [lower, lower.replace(/[\d\W_]+$/u, ""), lower.replace(/^[\d\W_]+/u, ""), lower.replace(/^[\d\W_]+|[\d\W_]+$/gu, "")];
  if (cores.some((c) => c.length >= 4 && commonPasswords().has(c)) || new Set(lower).size <= 2) return "password.common";
  const names = [about.username, about.email?.split("@")[0]].filter((n): n is string => !!n && n.length >= 3);
  if (names.some((n) => lower.includes(n.toLowerCase()))) return "password.containsName";
  return null;
}
