// A contact's identity document (spec sections 3 and 5): the ID types and each one's number rules.
// Client-safe: the page shows the same rules as help texts. Malaysian identity cards (MyKad,
// MyKid, PR MyKad, and the mother's MyKad of a baby) are YYMMDD-PB-###G: a real birth date, then
// a place-of-birth code (a state, or a country for those born abroad), then four digits.

/** The spec's ID types, as stored; "" is None. */
export const ID_TYPES = ["", "mykad", "mykid", "pr_mykad", "passport", "army", "police", "baby_of", "refused"] as const;
export type IdType = (typeof ID_TYPES)[number];

/** Types that have no number: the field is hidden and nothing is kept. */
export const NO_NUMBER: ReadonlySet<string> = new Set(["", "refused"]);

/** The place-of-birth codes the National Registration Department gives (digits 7 and 8). */
const PLACE_CODES: [number, number][] = [
  [1, 16],
  [21, 59],
  [60, 68],
  [71, 72],
  [74, 79],
  [82, 93],
  [98, 99],
];

export const validPlaceCode = (code: number) => PLACE_CODES.some(([from, to]) => code >= from && code <= to);

/**
 * The birth date of YYMMDD, or undefined when it is no real date. The century is the latest that
 * does not put the date in the future (a card shows two digits of the year).
 */
export function birthDate(yymmdd: string, now = new Date()): Date | undefined {
  const [yy, mm, dd] = [0, 2, 4].map((i) => Number(yymmdd.slice(i, i + 2)));
  const dateIn = (year: number) => {
    const date = new Date(Date.UTC(year, mm - 1, dd));
    return date.getUTCFullYear() === year && date.getUTCMonth() === mm - 1 && date.getUTCDate() === dd ? date : undefined;
  };
  const recent = dateIn(2000 + yy);
  if (recent && recent.getTime() <= now.getTime()) return recent;
  // not yet born this century: the century before (29 February must be real in that year too)
  return dateIn(1900 + yy);
}

/** Children hold a MyKid until this birthday. */
const MYKID_AGE_LIMIT = 12;

/** Whole years from `born` to `now` (a birthday counts from its day). */
function ageOn(born: Date, now: Date): number {
  const years = now.getUTCFullYear() - born.getUTCFullYear();
  const beforeBirthday = now.getUTCMonth() < born.getUTCMonth() || (now.getUTCMonth() === born.getUTCMonth() && now.getUTCDate() < born.getUTCDate());
  return beforeBirthday ? years - 1 : years;
}

export type IdCheck = { ok: true; number: string } | { ok: false; error: string; values?: Record<string, string> };

const KEY = "plugin_contacts.idError";

/** A MyKad-shaped number, written with or without dashes and spaces, as 12 digits checked and shown YYMMDD-PB-####. */
function checkMyKad(raw: string, now: Date): IdCheck {
  const digits = raw.replace(/[\s-]/g, "");
  if (!/^\d{12}$/.test(digits)) return { ok: false, error: `${KEY}.mykadFormat` };
  if (!birthDate(digits.slice(0, 6), now)) return { ok: false, error: `${KEY}.mykadDate`, values: { date: digits.slice(0, 6) } };
  const place = digits.slice(6, 8);
  if (!validPlaceCode(Number(place))) return { ok: false, error: `${KEY}.mykadPlace`, values: { code: place } };
  return { ok: true, number: `${digits.slice(0, 6)}-${place}-${digits.slice(8)}` };
}

/** Checks a number against its type and answers it as kept (normalised), or the reason it is refused. */
export function checkIdNumber(type: string, raw: string, now = new Date()): IdCheck {
  if (!(ID_TYPES as readonly string[]).includes(type)) return { ok: false, error: `${KEY}.type` };
  if (NO_NUMBER.has(type)) return { ok: true, number: "" };
  const value = raw.trim().toUpperCase();
  if (!value) return { ok: false, error: `${KEY}.required` };
  switch (type) {
    case "mykad":
    case "pr_mykad":
    case "baby_of":
      return checkMyKad(value, now);
    case "mykid": {
      // a MyKid is the card of a child under 12; at 12 it is exchanged for a MyKad of the same number
      const card = checkMyKad(value, now);
      if (!card.ok) return card;
      const born = birthDate(card.number.slice(0, 6), now)!;
      return ageOn(born, now) < MYKID_AGE_LIMIT ? card : { ok: false, error: `${KEY}.mykidAge`, values: { age: String(ageOn(born, now)) } };
    }
    case "passport": {
      const compact = value.replace(/[\s-]/g, "");
      return /^[A-Z0-9]{6,9}$/.test(compact) ? { ok: true, number: compact } : { ok: false, error: `${KEY}.passport` };
    }
    default: {
      // army and police numbers: digits, maybe after a letter prefix (T1234567, RF12345)
      const compact = value.replace(/[\s-]/g, "");
      return /^[A-Z]{0,3}\d{3,10}$/.test(compact) ? { ok: true, number: compact } : { ok: false, error: `${KEY}.service` };
    }
  }
}
