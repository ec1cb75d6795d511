// Public holidays of the workspace's SLA calendar, from date-holidays: a local date (YYYY-MM-DD)
// is a holiday when the country has a public holiday that day. One Holidays object and one set of
// days per country and year, built on first use.
import Holidays from "date-holidays";

const countries = new Holidays();
export const isHolidayCountry = (code: string) => code in (countries.getCountries("en") as Record<string, string>);

const byCountry = new Map<string, { hd: Holidays; years: Map<number, Set<string>> }>();

/** A checker for the country's public holidays; one that answers false for "" or an unknown country. */
export function holidayChecker(country: string): (day: string) => boolean {
  if (!country || !isHolidayCountry(country)) return () => false;
  let entry = byCountry.get(country);
  if (!entry) byCountry.set(country, (entry = { hd: new Holidays(country), years: new Map() }));
  const { hd, years } = entry;
  return (day: string) => {
    const year = Number(day.slice(0, 4));
    let days = years.get(year);
    if (!days) {
      days = new Set((hd.getHolidays(year) as { date: string; type: string }[]).filter((h) => h.type === "public").map((h) => h.date.slice(0, 10)));
      years.set(year, days);
    }
    return days.has(day);
  };
}
