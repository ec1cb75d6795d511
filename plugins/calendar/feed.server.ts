// Each user's private iCalendar feed: /calendar/feed/{token}.ics, the token a secret only they see
// (made and replaced on /calendar). It holds the appointments they own, recurring ones with their
// RRULE, times in the workspace's time zone (TZID).
import { randomBytes } from "node:crypto";
import ical from "ical-generator";
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";
import { floating } from "./recurrence";

/** The user's feed token, or undefined when they have not made one. */
export async function feedToken(userId: number) {
  const { db, schema } = getDb();
  const [row] = await db.select({ token: schema.calendarFeeds.token }).from(schema.calendarFeeds).where(eq(schema.calendarFeeds.userId, userId));
  return row?.token;
}

/** A new token for the user: the old address stops working. */
export async function regenerateFeed(userId: number, now = Date.now()) {
  const { db, schema } = getDb();
  const token = randomBytes(24).toString("base64url");
  await db
    .insert(schema.calendarFeeds)
    .values({ userId, token, createdAt: now })
    .onConflictDoUpdate({ target: schema.calendarFeeds.userId, set: { token, createdAt: now } });
  return token;
}

/** The feed's text for a token, or undefined for a token nobody has. */
export async function feedFor(token: string, timeZone: string, calendarName: string, origin: string) {
  if (!/^[A-Za-z0-9_-]{20,64}$/.test(token)) return undefined;
  const { db, schema } = getDb();
  const [feed] = await db.select({ userId: schema.calendarFeeds.userId }).from(schema.calendarFeeds).where(eq(schema.calendarFeeds.token, token));
  if (!feed) return undefined;
  const a = schema.appointments;
  const rows = await db.select().from(a).where(eq(a.ownerId, feed.userId)).orderBy(a.startsAt).limit(5_000);
  const cal = ical({ name: calendarName, timezone: timeZone, prodId: { company: "OmniDesk", product: "calendar" } });
  const host = new URL(origin).host;
  for (const r of rows) {
    // with a timezone set, ical-generator writes a date's UTC fields as the local time: give it wall times
    const wall = (at: number) => new Date(floating(Number(at), timeZone));
    cal.createEvent({
      id: `appointment-${r.id}@${host}`,
      start: wall(r.startsAt),
      end: wall(r.endsAt),
      allDay: r.allDay,
      timezone: r.allDay ? null : timeZone,
      summary: r.title,
      location: r.location || null,
      description: r.notes || null,
      url: `${origin}/calendar/event/${r.id}`,
      repeating: r.rrule ? r.rrule : null,
      stamp: new Date(Number(r.updatedAt)),
      lastModified: new Date(Number(r.updatedAt)),
      created: new Date(Number(r.createdAt)),
    });
  }
  return cal.toString();
}
