// Contacts that may be the same person as this one, for an agent to merge: kept simple enough to
// explain in one line each. Either the same name (case and spaces aside), or a phone with the same
// national number under another country code (+60 12-345 6789 and +65 12345 6789 were typed by
// someone who picked the wrong country). Both found by index (name_key; identities' primary key).
import { and, eq, inArray, isNull, ne } from "drizzle-orm";
import { getCountries, getCountryCallingCode, parsePhoneNumberFromString } from "libphonenumber-js";
import { getDb } from "@db/client";

export const DUPLICATES_MAX = 10;

const CALLING_CODES = [...new Set(getCountries().map((c) => getCountryCallingCode(c)))];

export type Duplicate = { uid: string; name: string; reasons: ("name" | "phone")[]; phone?: string };

/** The same number under every country code (without itself). */
function samePhoneElsewhere(e164: string) {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed) return [];
  const national = parsed.nationalNumber;
  return CALLING_CODES.map((cc) => `+${cc}${national}`).filter((v) => v !== e164);
}

export async function duplicatesOf(contact: { id: number; nameKey: string; phones: string[] }): Promise<Duplicate[]> {
  const { db, schema } = getDb();
  const c = schema.contacts;
  const ci = schema.contactIdentities;
  const found = new Map<number, Duplicate>();
  if (contact.nameKey) {
    const rows = await db
      .select({ id: c.id, uid: c.uid, name: c.name })
      .from(c)
      .where(and(eq(c.nameKey, contact.nameKey), ne(c.id, contact.id), isNull(c.mergedInto)))
      .limit(DUPLICATES_MAX);
    for (const r of rows) found.set(r.id, { uid: r.uid, name: r.name, reasons: ["name"] });
  }
  const candidates = contact.phones.flatMap(samePhoneElsewhere);
  if (candidates.length) {
    const rows = await db
      .select({ id: c.id, uid: c.uid, name: c.name, phone: ci.value })
      .from(ci)
      .innerJoin(c, eq(c.id, ci.contactId))
      .where(and(eq(ci.kind, "phone"), inArray(ci.value, candidates), ne(c.id, contact.id), isNull(c.mergedInto)))
      .limit(DUPLICATES_MAX);
    for (const r of rows) {
      const known = found.get(r.id);
      if (known) Object.assign(known, { reasons: ["name", "phone"], phone: r.phone });
      else found.set(r.id, { uid: r.uid, name: r.name, reasons: ["phone"], phone: r.phone });
    }
  }
  return [...found.values()].slice(0, DUPLICATES_MAX);
}
