// Public holidays of the workspace's country (date-holidays), by local date. The country is a
// setting of this plugin (settings row calendar_country, set by an admin on /calendar), MY unless set.
import Holidays from "date-holidays";
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";

export const COUNTRY_KEY = "calendar_country";
export const DEFAULT_COUNTRY = "MY";

const all = new Holidays();
/** Country codes date-holidays knows, with their names in the language (ICU's region names). */
export function countries(language: string) {
  const display = new Intl.DisplayNames([language], { type: "region" });
  return Object.keys(all.getCountries("en") as Record<string, string>)
    .map((code) => ({ code, name: display.of(code) ?? code }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
export const isCountry = (code: string) => code in (all.getCountries("en") as Record<string, string>);

export async function holidayCountry() {
  const { db, schema } = getDb();
  const [row] = await db.select({ value: schema.settings.value }).from(schema.settings).where(eq(schema.settings.key, COUNTRY_KEY));
  return row && isCountry(row.value) ? row.value : DEFAULT_COUNTRY;
}

export async function setHolidayCountry(code: string) {
  if (!isCountry(code)) return false;
  const { db, schema } = getDb();
  await db
    .insert(schema.settings)
    .values({ key: COUNTRY_KEY, value: code })
    .onConflictDoUpdate({ target: schema.settings.key, set: { value: code } });
  return true;
}

const calendars = new Map<string, Holidays>();
/** Public holidays from day `from` to day `to` (YYYY-MM-DD, both included): day to names. */
export function publicHolidays(country: string, language: string, from: string, to: string) {
  let hd = calendars.get(country);
  if (!hd) calendars.set(country, (hd = new Holidays(country)));
  const out: Record<string, string[]> = {};
  for (let year = Number(from.slice(0, 4)); year <= Number(to.slice(0, 4)); year++)
    for (const h of hd.getHolidays(year, language)) {
      const day = h.date.slice(0, 10);
      if (h.type !== "public" || day < from || day > to) continue;
      if (!(out[day] ??= []).includes(h.name)) out[day].push(h.name);
    }
  return out;
}
