// Appointments: made, changed (a recurring one as a whole series) and deleted from the forms, read
// per view window with their occurrences, in the workspace's time zone.
// Who sees what: admins see every appointment; an agent sees the ones they own or made, and those
// of a contact or ticket they work with (a conversation of the contact, or the ticket, they may
// read under the host's access rules). Only admins, the owner and the maker change or delete one.
import { and, asc, eq, exists, gt, inArray, isNull, lt, ne, or, sql, type SQL } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { readableBy, type Reader } from "~/conversation/access.server";
import { formResult } from "~/forms";
import { rememberRequest, type FormOutcome } from "~/request-keys.server";
import { contactByUid, uidByIdentity } from "@plugins/contacts/contacts.server";
import { addDays, dayKey, dayStart, floating, instant, nextOccurrences, occurrences, repeatOf, ruleOf, seriesEnd, REPEATS, type Repeat } from "./recurrence";
import { publicHolidays } from "./holidays.server";

export const TITLE_MAX = 200;
export const LOCATION_MAX = 200;
export const NOTES_MAX = 5_000;
export const COUNT_MAX = 366;
/** A series' until date at most this many days after its start. */
export const UNTIL_MAX_DAYS = 5 * 366;
export const REMINDERS = ["", "0", "5", "15", "30", "60", "1440"] as const;
/** The list view's page. */
export const LIST_PAGE = 20;
/** How far ahead the list view looks for occurrences. */
const LIST_HORIZON_MS = 366 * 86_400_000;

export const FIELDS = [
  "title",
  "contact",
  "ticket",
  "start_date",
  "start_time",
  "end_date",
  "end_time",
  "all_day",
  "repeat",
  "count",
  "until",
  "location",
  "notes",
  "reminder",
] as const;
export type AppointmentValues = Record<(typeof FIELDS)[number], string>;
export type Outcome<T extends object = object> = FormOutcome<T>;
export type Actor = Reader;

const E = (key: string) => `plugin_calendar.error.${key}`;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** The form's values checked and turned into a row's times; errors are translation keys by field. */
async function parse(actor: Actor, v: AppointmentValues, timeZone: string) {
  const errors: Record<string, string> = {};
  const title = v.title.trim();
  if (!title) errors.title = E("titleRequired");
  else if (title.length > TITLE_MAX) errors.title = E("titleTooLong");
  const allDay = v.all_day === "on" || v.all_day === "1";
  const startDay = dayStart(v.start_date, timeZone);
  if (Number.isNaN(startDay)) errors.start_date = E("date");
  const endDate = v.end_date.trim() || v.start_date;
  const endDay = dayStart(endDate, timeZone);
  if (v.end_date.trim() && Number.isNaN(endDay)) errors.end_date = E("date");
  let startsAt = NaN;
  let endsAt = NaN;
  if (allDay) {
    startsAt = startDay;
    endsAt = dayStart(addDays(endDate, 1), timeZone);
  } else {
    const st = TIME.exec(v.start_time.trim());
    const et = TIME.exec(v.end_time.trim());
    if (!st) errors.start_time = E("time");
    if (!et) errors.end_time = E("time");
    if (st && !Number.isNaN(startDay)) startsAt = wallTime(v.start_date, st, timeZone);
    if (et && !Number.isNaN(endDay)) endsAt = wallTime(endDate, et, timeZone);
  }
  if (!Number.isNaN(startsAt) && !Number.isNaN(endsAt) && endsAt <= startsAt)
    errors[allDay || v.end_date.trim() ? "end_date" : "end_time"] ??= E("endBeforeStart");

  const repeat = (REPEATS as readonly string[]).includes(v.repeat) ? (v.repeat as Repeat) : "none";
  let count: number | null = null;
  let until: number | null = null;
  if (repeat !== "none") {
    if (v.count.trim() && v.until.trim()) errors.count = E("countOrUntil");
    else if (v.count.trim()) {
      count = Number(v.count);
      if (!Number.isInteger(count) || count < 1 || count > COUNT_MAX) errors.count = E("count");
    } else if (v.until.trim()) {
      const untilDay = dayStart(v.until, timeZone);
      if (Number.isNaN(untilDay)) errors.until = E("date");
      else if (v.until < v.start_date || v.until > addDays(v.start_date || v.until, UNTIL_MAX_DAYS)) errors.until = E("until");
      // the end of that day: its occurrence is in
      else until = dayStart(addDays(v.until, 1), timeZone) - 1000;
    }
  }

  let contactId: number | null = null;
  const contactText = v.contact.trim();
  if (contactText) {
    const uid = (await contactByUid(contactText)) ? contactText : await uidByIdentity(contactText);
    const contact = uid ? await contactByUid(uid) : undefined;
    if (!contact) errors.contact = E("noContact");
    else contactId = contact.id;
  }
  let ticketId: number | null = null;
  const ticketText = v.ticket.trim().replace(/^#/, "");
  if (ticketText) {
    const number = Number(ticketText);
    const ticket = Number.isSafeInteger(number) && number > 0 ? await readableTicket(actor, number) : undefined;
    if (!ticket) errors.ticket = E("noTicket");
    else ticketId = ticket.id;
  }
  const location = v.location.trim();
  if (location.length > LOCATION_MAX) errors.location = E("locationTooLong");
  const notes = v.notes.trim();
  if (notes.length > NOTES_MAX) errors.notes = E("notesTooLong");
  const reminder = (REMINDERS as readonly string[]).includes(v.reminder) ? v.reminder : "";

  if (Object.keys(errors).length)
    return { ok: false as const, result: formResult({ errors, values: v, message: E("check"), messageValues: { max: String(COUNT_MAX) } }) };
  const rrule = ruleOf(repeat, count, until);
  const row = {
    title,
    contactId,
    ticketId,
    startsAt,
    endsAt,
    allDay,
    rrule,
    seriesEndsAt: seriesEnd({ startsAt, endsAt, rrule }, timeZone),
    location,
    notes,
    reminderMinutes: reminder === "" ? null : Number(reminder),
  };
  return { ok: true as const, row };
}

/** A YYYY-MM-DD day and an HH:MM match as an instant in the zone. */
function wallTime(day: string, hm: RegExpExecArray, timeZone: string) {
  const [y, m, d] = day.split("-").map(Number);
  return instant(Date.UTC(y, m - 1, d, Number(hm[1]), Number(hm[2])), timeZone);
}

async function readableTicket(actor: Actor, ticketNumber: number) {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const [row] = await db
    .select({ id: t.id, ticketNumber: t.ticketNumber })
    .from(t)
    .where(and(eq(t.ticketNumber, ticketNumber), readableBy(actor)));
  return row;
}

/** The condition on appointments an actor may see (undefined: all of them). */
export function visibleTo(actor: Actor): SQL | undefined {
  if (actor.type === "admin") return undefined;
  const { db, schema } = getDb();
  const a = schema.appointments;
  const t = schema.tickets;
  const ct = schema.contactTickets;
  // asked per appointment (EXISTS on the ticket's and the contact's keys), never as the list of
  // every ticket the agent may read: at a million tickets that list was built for each page
  const ticketReadable = exists(
    db
      .select({ one: sql`1` })
      .from(t)
      .where(and(eq(t.id, a.ticketId), readableBy(actor))),
  );
  const contactReadable = exists(
    db
      .select({ one: sql`1` })
      .from(ct)
      .innerJoin(t, eq(t.id, ct.ticketId))
      .where(and(eq(ct.contactId, a.contactId), readableBy(actor))),
  );
  return or(eq(a.ownerId, actor.id), eq(a.createdBy, actor.id), ticketReadable, contactReadable);
}

/**
 * Keeps a ticket's appointment_at (the list's appointment filters and date presets) on its next
 * appointment, or its last one when none is to come; null when it has none. In the caller's transaction.
 */
async function syncTicketAppointment(tx: Tx, ticketId: number | null, timeZone: string, now: number) {
  if (ticketId == null) return;
  const { schema } = getDb();
  const a = schema.appointments;
  const rows = await tx.select({ startsAt: a.startsAt, endsAt: a.endsAt, rrule: a.rrule }).from(a).where(eq(a.ticketId, ticketId));
  const items = rows.map((r) => ({ startsAt: Number(r.startsAt), endsAt: Number(r.endsAt), rrule: r.rrule }));
  const next = items.flatMap((i) => nextOccurrences(i, now, 1, timeZone)).map((o) => o.startsAt);
  // none to come: a series' last occurrence (every series here has ended, so it is finite)
  const lastStart = (i: (typeof items)[number]) => (i.rrule ? nextOccurrences(i, -Infinity, 10_000, timeZone).at(-1)?.startsAt : undefined) ?? i.startsAt;
  const at = next.length ? Math.min(...next) : items.length ? Math.max(...items.map(lastStart)) : null;
  await tx.update(schema.tickets).set({ appointmentAt: at }).where(eq(schema.tickets.id, ticketId));
}

/** Tickets whose appointment_at moves on per pass of the job (the rest wait for the next minute). */
const ADVANCE_BATCH = 500;

/**
 * Moves each ticket whose appointment_at has passed, and that has a repeating appointment whose
 * series goes on after it, to its next occurrence (the calendar's job, every minute). One
 * transaction per ticket; a ticket already moved (another node, a second run) is left as it is.
 * Answers the ids of the tickets moved.
 */
export async function advanceTicketAppointments(timeZone: string, now = Date.now()): Promise<number[]> {
  const handle = getDb();
  const { db, schema } = handle;
  const a = schema.appointments;
  const t = schema.tickets;
  const due = await db
    .selectDistinct({ id: t.id, at: t.appointmentAt })
    .from(t)
    .innerJoin(a, eq(a.ticketId, t.id))
    .where(
      and(
        lt(t.appointmentAt, now),
        ne(a.rrule, ""),
        // the series goes on after the ticket's time (its last occurrence ends later than one starting then would)
        or(isNull(a.seriesEndsAt), gt(a.seriesEndsAt, sql`${t.appointmentAt} + (${a.endsAt} - ${a.startsAt})`)),
      ),
    )
    .orderBy(asc(t.id))
    .limit(ADVANCE_BATCH);
  const moved: number[] = [];
  for (const row of due) {
    const changed = await handle.transaction(async (tx) => {
      const [current] = await tx.select({ at: t.appointmentAt }).from(t).where(eq(t.id, row.id));
      if (!current || current.at === null || Number(current.at) !== Number(row.at)) return false;
      await syncTicketAppointment(tx, row.id, timeZone, now);
      const [after] = await tx.select({ at: t.appointmentAt }).from(t).where(eq(t.id, row.id));
      return Number(after?.at) !== Number(row.at);
    });
    if (changed) moved.push(row.id);
  }
  return moved;
}

const mayChange = (actor: Actor, row: { ownerId: number; createdBy: number | null }) =>
  actor.type === "admin" || row.ownerId === actor.id || row.createdBy === actor.id;

export async function createAppointment(actor: Actor, values: AppointmentValues, timeZone: string, now = Date.now()): Promise<Outcome<{ id: number }>> {
  const parsed = await parse(actor, values, timeZone);
  if (!parsed.ok) return { ok: false, result: parsed.result, status: 400 };
  const handle = getDb();
  const id = await handle.transaction(async (tx) => {
    const [row] = await tx
      .insert(handle.schema.appointments)
      .values({ ...parsed.row, ownerId: actor.id, createdBy: actor.id, createdAt: now, updatedAt: now })
      .returning({ id: handle.schema.appointments.id });
    await syncTicketAppointment(tx, parsed.row.ticketId, timeZone, now);
    await rememberRequest(tx, { id: row.id });
    return row.id;
  });
  return { ok: true, id };
}

/** Changes the whole series; a changed time may be reminded of again (reminded_at is compared with it). */
export async function updateAppointment(
  actor: Actor,
  id: number,
  values: AppointmentValues,
  timeZone: string,
  now = Date.now(),
): Promise<Outcome<{ id: number }>> {
  const existing = await rowOf(actor, id);
  if (!existing) return { ok: false, result: formResult({ message: "plugin_calendar.error.notFound", values }), status: 404 };
  if (!mayChange(actor, existing)) return { ok: false, result: formResult({ message: "plugin_calendar.error.notYours", values }), status: 403 };
  const parsed = await parse(actor, values, timeZone);
  if (!parsed.ok) return { ok: false, result: parsed.result, status: 400 };
  const handle = getDb();
  await handle.transaction(async (tx) => {
    await tx
      .update(handle.schema.appointments)
      .set({ ...parsed.row, updatedAt: now })
      .where(eq(handle.schema.appointments.id, id));
    // the ticket it left, and the one it is now for
    for (const ticketId of new Set([existing.ticketId, parsed.row.ticketId])) await syncTicketAppointment(tx, ticketId, timeZone, now);
    await rememberRequest(tx, { id });
  });
  return { ok: true, id };
}

export async function deleteAppointment(actor: Actor, id: number, timeZone: string, now = Date.now()): Promise<Outcome<{ id: number }>> {
  const existing = await rowOf(actor, id);
  if (!existing) return { ok: false, result: formResult({ message: "plugin_calendar.error.notFound" }), status: 404 };
  if (!mayChange(actor, existing)) return { ok: false, result: formResult({ intent: "delete", message: "plugin_calendar.error.notYours" }), status: 403 };
  const handle = getDb();
  await handle.transaction(async (tx) => {
    await tx.delete(handle.schema.appointments).where(eq(handle.schema.appointments.id, id));
    await syncTicketAppointment(tx, existing.ticketId, timeZone, now);
    await rememberRequest(tx, { id });
  });
  return { ok: true, id };
}

async function rowOf(actor: Actor, id: number) {
  if (!Number.isSafeInteger(id) || id < 1) return undefined;
  const { db, schema } = getDb();
  const a = schema.appointments;
  const [row] = await db
    .select()
    .from(a)
    .where(and(eq(a.id, id), visibleTo(actor)));
  return row ? { ...row, startsAt: Number(row.startsAt), endsAt: Number(row.endsAt) } : undefined;
}

/** One appointment as its page shows it, with its next occurrences; undefined when not visible. */
export async function appointmentDetail(actor: Actor, id: number, timeZone: string, now = Date.now()) {
  const row = await rowOf(actor, id);
  if (!row) return undefined;
  const { db, schema } = getDb();
  const [contact] = row.contactId
    ? await db.select({ uid: schema.contacts.uid, name: schema.contacts.name }).from(schema.contacts).where(eq(schema.contacts.id, row.contactId))
    : [];
  const [ticket] = row.ticketId
    ? await db.select({ ticketNumber: schema.tickets.ticketNumber }).from(schema.tickets).where(eq(schema.tickets.id, row.ticketId))
    : [];
  const [owner] = await db.select({ name: schema.users.name }).from(schema.users).where(eq(schema.users.id, row.ownerId));
  return {
    id: row.id,
    title: row.title,
    startsAt: row.startsAt,
    endsAt: row.endsAt,
    allDay: row.allDay,
    rrule: row.rrule,
    ...repeatOf(row.rrule),
    location: row.location,
    notes: row.notes,
    reminderMinutes: row.reminderMinutes,
    contact: contact ?? null,
    ticketNumber: ticket?.ticketNumber ?? null,
    owner: owner?.name ?? "",
    canChange: mayChange(actor, row),
    next: row.rrule ? nextOccurrences(row, now, 5, timeZone) : [],
  };
}
export type AppointmentDetail = NonNullable<Awaited<ReturnType<typeof appointmentDetail>>>;

/** The edit form's values of an appointment. */
export function valuesOf(d: AppointmentDetail, timeZone: string): AppointmentValues {
  const hm = (at: number) => new Date(floating(at, timeZone)).toISOString().slice(11, 16);
  // an all-day appointment ends at the next midnight: its last day is the one before
  const lastDay = d.allDay ? addDays(dayKey(d.endsAt, timeZone), -1) : dayKey(d.endsAt, timeZone);
  return {
    title: d.title,
    contact: d.contact?.uid ?? "",
    ticket: d.ticketNumber ? String(d.ticketNumber) : "",
    start_date: dayKey(d.startsAt, timeZone),
    start_time: d.allDay ? "" : hm(d.startsAt),
    end_date: lastDay,
    end_time: d.allDay ? "" : hm(d.endsAt),
    all_day: d.allDay ? "on" : "",
    repeat: d.repeat,
    count: d.count ? String(d.count) : "",
    until: d.until ? dayKey(d.until, timeZone) : "",
    location: d.location,
    notes: d.notes,
    reminder: d.reminderMinutes === null ? "" : String(d.reminderMinutes),
  };
}

export interface Occurrence {
  id: number;
  title: string;
  startsAt: number;
  endsAt: number;
  allDay: boolean;
  recurring: boolean;
  contactName: string;
}

/** Every occurrence the actor may see overlapping [from, to), in order; one contact's only when given. */
export async function occurrencesBetween(actor: Actor, from: number, to: number, timeZone: string, contactId?: number): Promise<Occurrence[]> {
  const { db, schema } = getDb();
  const a = schema.appointments;
  const rows = await db
    .select({
      id: a.id,
      title: a.title,
      startsAt: a.startsAt,
      endsAt: a.endsAt,
      allDay: a.allDay,
      rrule: a.rrule,
      contactName: schema.contacts.name,
    })
    .from(a)
    .leftJoin(schema.contacts, eq(schema.contacts.id, a.contactId))
    .where(
      and(
        lt(a.startsAt, to),
        or(isNull(a.seriesEndsAt), gt(a.seriesEndsAt, from)),
        contactId === undefined ? undefined : eq(a.contactId, contactId),
        visibleTo(actor),
      ),
    )
    .orderBy(asc(a.startsAt), asc(a.id))
    .limit(5_000);
  const out: Occurrence[] = [];
  for (const r of rows) {
    const item = { startsAt: Number(r.startsAt), endsAt: Number(r.endsAt), rrule: r.rrule };
    for (const o of occurrences(item, from, to, timeZone))
      out.push({ id: r.id, title: r.title, ...o, allDay: r.allDay, recurring: !!r.rrule, contactName: r.contactName ?? "" });
  }
  return out.sort((x, y) => x.startsAt - y.startsAt || x.id - y.id);
}

/** The list view: occurrences not yet ended, soonest first, a page of LIST_PAGE. */
export async function upcoming(actor: Actor, timeZone: string, page = 1, now = Date.now(), contactId?: number) {
  const current = Math.max(1, Math.floor(page) || 1);
  const all = await occurrencesBetween(actor, now, now + LIST_HORIZON_MS, timeZone, contactId);
  const items = all.slice((current - 1) * LIST_PAGE, current * LIST_PAGE);
  return { items, page: current, more: all.length > current * LIST_PAGE };
}

/** What to warn about once an appointment is saved: it starts in the past, or falls on public holidays. */
export function warningsOf(d: { startsAt: number; endsAt: number; rrule: string }, timeZone: string, country: string, language: string, now = Date.now()) {
  const first = nextOccurrences(d, -Infinity, 10, timeZone);
  const days = [...new Set(first.map((o) => dayKey(o.startsAt, timeZone)))];
  const holidays = days.length ? publicHolidays(country, language, days[0], days[days.length - 1]) : {};
  return {
    past: d.startsAt < now,
    holidays: days.filter((day) => holidays[day]).map((day) => ({ day, names: holidays[day] })),
  };
}
