// Reminders: a job of this plugin runs every minute (start.server.ts) and tells each owner whose
// appointment's start minus its reminder_minutes has come, once: reminded_at is set by a
// conditional update in the transaction that writes the notification, so two runs (or two nodes)
// remind once. A recurring appointment is reminded of each occurrence: one whose reminder time is
// later than reminded_at is still due.
import { and, eq, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import { getDb } from "@db/client";
import { addNotification, told } from "~/conversation/notifications.server";
import { translatorFor } from "~/i18n.server";
import { isLanguage } from "~/i18n";
import { getSettings } from "~/models/settings.server";
import { formatDate, formatTime } from "~/time";
import { nextOccurrences } from "./recurrence";

export const REMINDER_JOB = "calendar.reminders";

/** Sends the reminders due at `now`; answers the ids of the appointments reminded. */
export async function sendDueReminders(now = Date.now()) {
  const handle = getDb();
  const { db, schema } = handle;
  const a = schema.appointments;
  const settings = await getSettings();
  const timeZone = settings.timezone;
  const candidates = await db
    .select({
      id: a.id,
      title: a.title,
      ownerId: a.ownerId,
      startsAt: a.startsAt,
      endsAt: a.endsAt,
      allDay: a.allDay,
      rrule: a.rrule,
      reminderMinutes: a.reminderMinutes,
      remindedAt: a.remindedAt,
      language: schema.users.language,
    })
    .from(a)
    .innerJoin(schema.users, eq(schema.users.id, a.ownerId))
    .where(
      and(
        isNotNull(a.reminderMinutes),
        lte(sql`${a.startsAt} - ${a.reminderMinutes} * 60000`, now),
        or(isNull(a.seriesEndsAt), sql`${a.seriesEndsAt} > ${now}`),
      ),
    )
    .limit(500);
  const reminded: number[] = [];
  for (const c of candidates) {
    const lead = Number(c.reminderMinutes) * 60_000;
    // the first occurrence not yet ended whose reminder time has come
    const [due] = nextOccurrences({ startsAt: Number(c.startsAt), endsAt: Number(c.endsAt), rrule: c.rrule }, now, 1, timeZone).filter(
      (o) => o.startsAt - lead <= now,
    );
    if (!due) continue;
    const remindAt = due.startsAt - lead;
    if (c.remindedAt !== null && Number(c.remindedAt) >= remindAt) continue;
    const language = isLanguage(c.language) ? c.language : isLanguage(settings.language) ? settings.language : "en";
    const t = translatorFor(language);
    const title = t(c.allDay ? "plugin_calendar.reminder.allDay" : "plugin_calendar.reminder.text", {
      title: c.title,
      date: formatDate(due.startsAt, timeZone),
      time: formatTime(due.startsAt, timeZone),
    });
    const sent = await handle.transaction(async (tx) => {
      const [claimed] = await tx
        .update(a)
        .set({ remindedAt: now })
        .where(and(eq(a.id, c.id), or(isNull(a.remindedAt), lt(a.remindedAt, remindAt))))
        .returning({ id: a.id });
      if (!claimed) return false;
      // the host's notification centre: its row, then newNotification to the owner's pages
      await addNotification(tx, { userId: c.ownerId, type: "reminder", category: "system", channel: "calendar", ticketNumber: null, title, body: "" }, now);
      return true;
    });
    if (sent) {
      told(c.ownerId);
      reminded.push(c.id);
    }
  }
  return reminded;
}
