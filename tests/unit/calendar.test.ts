// The calendar on both dialects: an appointment booked from a contact's page, a refusal (end before
// start) that keeps what was typed, a weekly 09:00 meeting in New York that stays 09:00 across the
// March DST change, the warning after saving one on a public holiday or in the past, the private
// iCalendar feed read back by node-ical (the event and its recurrence) and a wrong token's 404, the
// reminder told once through the notification centre when the job runs twice (and again for the
// next occurrence), and who sees what: an agent their own and their contacts' appointments,
// admins everything; only owner, maker or admin change one.
import type { ActionFunctionArgs, AppLoadContext, LoaderFunctionArgs } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import ical from "node-ical";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { insertTicket } from "~/conversation/model.server";
import { createJobWorker, enqueue } from "~/jobs/queue.server";
import { setSetting } from "~/models/settings.server";
import {
  advanceTicketAppointments,
  appointmentDetail,
  createAppointment,
  occurrencesBetween,
  updateAppointment,
  type AppointmentValues,
} from "@plugins/calendar/calendar.server";
import { dayStart, occurrences } from "@plugins/calendar/recurrence";
import { regenerateFeed } from "@plugins/calendar/feed.server";
import { REMINDER_JOB, sendDueReminders } from "@plugins/calendar/reminders.server";
import { start } from "@plugins/calendar/start.server";
import { listParamsFromApi, listTickets, parseListQuery } from "@plugins/tickets/ticket-list.server";
import { action as contactAction, loader as contactLoader } from "@plugins/calendar/routes/calendar.contact";
import { loader as eventLoader } from "@plugins/calendar/routes/calendar.event";
import { loader as calendarLoader } from "@plugins/calendar/routes/calendar";
import { loader as feedLoader } from "@plugins/calendar/routes/calendar.feed";

async function call<T extends ActionFunctionArgs | LoaderFunctionArgs>(fn: (args: T) => unknown, request: Request, params: Record<string, string> = {}) {
  try {
    const context = { clientIp: "192.0.2.10" } as unknown as AppLoadContext;
    return (await fn({ request, context, params } as T)) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}
const get = (url: string, cookie = "") => new Request(`http://localhost${url}`, { headers: cookie ? { Cookie: cookie } : {} });
const post = (url: string, cookie: string, fields: Record<string, string>) =>
  new Request(`http://localhost${url}`, {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
  });

const KL = "Asia/Kuala_Lumpur";
const NY = "America/New_York";
const blank: AppointmentValues = {
  title: "",
  contact: "",
  ticket: "",
  start_date: "",
  start_time: "",
  end_date: "",
  end_time: "",
  all_day: "",
  repeat: "none",
  count: "",
  until: "",
  location: "",
  notes: "",
  reminder: "",
};
const hm = (at: number, timeZone: string) => new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(at);

describe("recurrence in a time zone with DST", () => {
  it("keeps a weekly 09:00 meeting at 09:00 in New York across the March change (UTC moves an hour)", () => {
    const startsAt = Date.parse("2026-03-02T14:00:00Z"); // 09:00 EST
    const item = { startsAt, endsAt: startsAt + 3_600_000, rrule: "FREQ=WEEKLY;COUNT=4" };
    const all = occurrences(item, Date.parse("2026-03-01T00:00:00Z"), Date.parse("2026-04-01T00:00:00Z"), NY);
    expect(all.map((o) => hm(o.startsAt, NY))).toEqual(["09:00", "09:00", "09:00", "09:00"]);
    expect(all.map((o) => hm(o.endsAt, NY))).toEqual(["10:00", "10:00", "10:00", "10:00"]);
    // 8 March 2026 the clocks go forward: from then on 09:00 is 13:00 UTC
    expect(all.map((o) => new Date(o.startsAt).toISOString())).toEqual([
      "2026-03-02T14:00:00.000Z",
      "2026-03-09T13:00:00.000Z",
      "2026-03-16T13:00:00.000Z",
      "2026-03-23T13:00:00.000Z",
    ]);
    // a window in the middle gets only what overlaps it
    expect(occurrences(item, Date.parse("2026-03-09T00:00:00Z"), Date.parse("2026-03-10T00:00:00Z"), NY)).toHaveLength(1);
    expect(dayStart("2026-02-30", NY)).toBeNaN();
  });
});

describe.each(DIALECTS)("calendar (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  let agentCookie: string;
  let adminCookie: string;
  // Mei writes to the agent's department; Tan only to another one
  let mei: { id: number; uid: string };
  let tan: { id: number; uid: string };
  let meiTicket: { id: number; ticketNumber: number };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
    agentCookie = await sessionCookie().serialize((await createSession(agent.id)).token);
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    const { db, schema } = t.handle;
    const contact = async (uid: string, name: string, email: string) => {
      const [row] = await db.insert(schema.contacts).values({ uid, name, createdAt: Date.now(), updatedAt: Date.now() }).returning({ id: schema.contacts.id });
      await db.insert(schema.contactIdentities).values({ contactId: row.id, kind: "email", value: email });
      return { id: row.id, uid };
    };
    mei = await contact("meiUid01", "Mei", "mei@example.com");
    tan = await contact("tanUid02", "Tan", "tan@example.com");
    const ticket = (title: string, departmentId: number, email: string) =>
      t.handle.transaction((tx) =>
        insertTicket(tx, { title, channel: "EMAIL", departmentId, contactName: title, contactEmail: email, contactPhone: "" }, title, Date.now()),
      );
    meiTicket = await ticket("Mei's washing machine", agent.departmentId!, "mei@example.com");
    const tanTicket = await ticket("Tan's refund", agent.departmentId === 1 ? 3 : 1, "tan@example.com");
    await db.insert(schema.contactTickets).values([
      { ticketId: meiTicket.id, contactId: mei.id },
      { ticketId: tanTicket.id, contactId: tan.id },
    ]);
  }, 60_000);
  afterAll(async () => t?.cleanup());

  it("books an appointment for a contact from /calendar/{contact}; end before start is refused with the fields kept", async () => {
    const page = await call(contactLoader, get(`/calendar/${mei.uid}`, agentCookie), { contact: mei.uid });
    expect(page.status).toBe(200);
    expect((await page.json()).contact).toMatchObject({ uid: mei.uid, name: "Mei" });
    expect((await call(contactLoader, get("/calendar/nobody", agentCookie), { contact: "nobody" })).status).toBe(404);

    const typed = {
      title: "Fix the washing machine",
      contact: mei.uid,
      ticket: String(meiTicket.ticketNumber),
      start_date: "2030-06-11",
      start_time: "10:00",
      end_date: "",
      end_time: "09:30",
      repeat: "none",
      location: "Mei's house, Petaling Jaya",
      notes: "Bring the drum belt",
      reminder: "30",
    };
    const refused = await call(contactAction, post(`/calendar/${mei.uid}`, agentCookie, typed), { contact: mei.uid });
    expect(refused.status).toBe(400);
    const body = await refused.json();
    expect(body.errors).toEqual({ end_time: "plugin_calendar.error.endBeforeStart" });
    expect(body.values).toMatchObject({ title: typed.title, location: typed.location, notes: typed.notes, start_time: "10:00", end_time: "09:30" });

    const saved = await call(contactAction, post(`/calendar/${mei.uid}`, agentCookie, { ...typed, end_time: "11:00" }), { contact: mei.uid });
    expect(saved.status).toBe(302);
    const location = saved.headers.get("Location")!;
    expect(location).toMatch(/^\/calendar\/event\/\d+\?saved=1$/);
    const id = location.match(/\d+/)![0];
    const event = await (await call(eventLoader, get(location, agentCookie), { eventId: id })).json();
    expect(event.detail).toMatchObject({
      title: typed.title,
      contact: { uid: mei.uid, name: "Mei" },
      ticketNumber: meiTicket.ticketNumber,
      reminderMinutes: 30,
      canChange: true,
    });
    expect(hm(event.detail.startsAt, KL)).toBe("10:00");
    expect(event.warnings).toEqual({ past: false, holidays: [] });
    expect(event.values).toMatchObject({ start_date: "2030-06-11", start_time: "10:00", end_time: "11:00", contact: mei.uid });

    // the ticket's appointment is the list's: found by "has an appointment" and, two days before, "within two days"
    const { db, schema } = t.handle;
    const [withAppointment] = await db.select({ at: schema.tickets.appointmentAt }).from(schema.tickets).where(eq(schema.tickets.id, meiTicket.id));
    expect(Number(withAppointment.at)).toBe(event.detail.startsAt);
    const listed = async (appt: "any" | "soon", now: number) =>
      (await listTickets(agent, "ticket", parseListQuery(new URLSearchParams({ status: "4", appt }))!, { now, timeZone: KL })).items.map((i) => i.id);
    expect(await listed("any", Date.now())).toContain(meiTicket.id);
    expect(await listed("soon", event.detail.startsAt - 36 * 3600_000)).toContain(meiTicket.id);
    expect(await listed("soon", event.detail.startsAt - 72 * 3600_000)).not.toContain(meiTicket.id);
    expect(parseListQuery(listParamsFromApi(new URL("http://x/?apptLessTwoDays=true"), "4", 0)).appt).toBe("soon");

    // the month view shows it on its day
    const month = await (await call(calendarLoader, get("/calendar?month=2030-06", agentCookie))).json();
    const day = month.days.find((d: { day: string }) => d.day === "2030-06-11");
    expect(day.items).toEqual([{ id: Number(id), title: typed.title, time: "10:00", allDay: false }]);

    // a contact named by email works too; an unknown one is refused
    const byEmail = await createAppointment(
      agent,
      { ...blank, title: "Call back", contact: "MEI@example.com", start_date: "2030-06-12", start_time: "09:00", end_time: "09:15" },
      KL,
    );
    expect(byEmail.ok).toBe(true);
    const unknown = await createAppointment(
      agent,
      { ...blank, title: "Call back", contact: "who@example.com", start_date: "2030-06-12", start_time: "09:00", end_time: "09:15" },
      KL,
    );
    expect(!unknown.ok && unknown.result.errors).toEqual({ contact: "plugin_calendar.error.noContact" });
  });

  it("warns after saving an appointment on a public holiday (Merdeka) or in the past, and saves it all the same", async () => {
    const made = await createAppointment(agent, { ...blank, title: "Holiday visit", start_date: "2030-08-31", start_time: "10:00", end_time: "11:00" }, KL);
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    const event = await (await call(eventLoader, get(`/calendar/event/${made.id}?saved=1`, agentCookie), { eventId: String(made.id) })).json();
    expect(event.warnings.past).toBe(false);
    expect(event.warnings.holidays).toEqual([{ day: "2030-08-31", names: [expect.stringMatching(/National Day|Independence Day|Merdeka/)] }]);
    // the month view shows the holiday
    const month = await (await call(calendarLoader, get("/calendar?month=2030-08", agentCookie))).json();
    expect(month.days.find((d: { day: string }) => d.day === "2030-08-31").holidays).toEqual([expect.stringMatching(/National Day|Independence Day|Merdeka/)]);

    const past = await createAppointment(agent, { ...blank, title: "Last year's visit", start_date: "2020-03-03", all_day: "on" }, KL);
    expect(past.ok).toBe(true);
    if (!past.ok) return;
    const pastEvent = await (await call(eventLoader, get(`/calendar/event/${past.id}?saved=1`, agentCookie), { eventId: String(past.id) })).json();
    expect(pastEvent.warnings).toEqual({ past: true, holidays: [] });
  });

  it("serves the owner's private feed: node-ical finds the event and its recurrence; a wrong token is 404", async () => {
    await setSetting("timezone", NY);
    try {
      const weekly = await createAppointment(
        agent,
        { ...blank, title: "Weekly review", start_date: "2026-03-02", start_time: "09:00", end_time: "10:00", repeat: "weekly", count: "4" },
        NY,
      );
      expect(weekly.ok).toBe(true);
      const adminsOwn = await createAppointment(
        admin,
        { ...blank, title: "Admin's own review", start_date: "2026-03-03", start_time: "09:00", end_time: "10:00" },
        NY,
      );
      expect(adminsOwn.ok).toBe(true);
      const token = await regenerateFeed(agent.id);
      const page = await (await call(calendarLoader, get("/calendar?view=week&date=2026-03-09", agentCookie))).json();
      expect(page.feedUrl.endsWith(`/calendar/feed/${token}.ics`)).toBe(true);
      // the week view in New York: 09:00 on the Monday after the change
      expect(page.days[0].items).toEqual([expect.objectContaining({ title: "Weekly review", time: "09:00" })]);

      const res = await call(feedLoader, get(`/calendar/feed/${token}.ics`), { file: `${token}.ics` });
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toMatch(/^text\/calendar/);
      expect(res.headers.get("Cache-Control")).toMatch(/private/);
      const text = await res.text();
      const parsed = ical.sync.parseICS(text);
      const events = Object.values(parsed).filter((c) => c.type === "VEVENT") as ical.VEvent[];
      const event = events.find((e) => e.summary === "Weekly review")!;
      expect(event).toBeDefined();
      expect(event.rrule).toBeDefined();
      const dates = event.rrule!.all().map((d) => d.getTime());
      expect(dates).toHaveLength(4);
      expect(hm(new Date(event.start).getTime(), NY)).toBe("09:00");
      // only the owner's appointments: the admin's are not in the agent's feed
      expect(events.map((e) => e.summary)).not.toContain("Admin's own review");
      expect(dates.map((d) => hm(d, NY))).toEqual(["09:00", "09:00", "09:00", "09:00"]);

      expect((await call(feedLoader, get("/calendar/feed/wrongwrongwrongwrongwrong.ics"), { file: "wrongwrongwrongwrongwrong.ics" })).status).toBe(404);
      // a new address: the old one stops working
      const renewed = await regenerateFeed(agent.id);
      expect((await call(feedLoader, get(`/calendar/feed/${token}.ics`), { file: `${token}.ics` })).status).toBe(404);
      expect((await call(feedLoader, get(`/calendar/feed/${renewed}.ics`), { file: `${renewed}.ics` })).status).toBe(200);
    } finally {
      await setSetting("timezone", KL);
    }
  });

  it("reminds the owner once when the job runs twice, and again for the next occurrence", async () => {
    const { db, schema } = t.handle;
    const now = Date.now();
    const inTen = new Date(now + 10 * 60_000);
    const local = (d: Date) => new Intl.DateTimeFormat("sv-SE", { timeZone: KL, dateStyle: "short", timeStyle: "short" }).format(d).split(" ");
    const [date, time] = local(inTen);
    // the end may fall on the next day (the run starts after 23:20 in Kuala Lumpur)
    const [endDate, endTime] = local(new Date(now + 40 * 60_000));
    const made = await createAppointment(
      agent,
      {
        ...blank,
        title: "Daily stand-up",
        start_date: date,
        start_time: time,
        end_date: endDate,
        end_time: endTime,
        repeat: "daily",
        count: "3",
        reminder: "15",
      },
      KL,
    );
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    const stop = await start();
    try {
      await enqueue(undefined, { kind: REMINDER_JOB, key: `${REMINDER_JOB}:test-again` });
      const worker = createJobWorker({ db: t.handle, log: () => undefined });
      await worker.runOnce();
      await worker.runOnce();
    } finally {
      await stop();
    }
    const reminders = () =>
      db
        .select()
        .from(schema.notifications)
        .where(and(eq(schema.notifications.userId, agent.id), eq(schema.notifications.type, "reminder")));
    const sent = (await reminders()).filter((n) => n.title.includes("Daily stand-up"));
    expect(sent).toHaveLength(1);
    expect(sent[0].title).toBe(`Reminder: Daily stand-up at ${time} on ${date.split("-").reverse().join("/")}`);
    expect(sent[0].seen).toBe(false);
    expect(await sendDueReminders(now + 60_000)).not.toContain(made.id);
    // the next day's occurrence is reminded of in its turn, once
    expect(await sendDueReminders(now + 86_400_000)).toContain(made.id);
    expect(await sendDueReminders(now + 86_400_000 + 60_000)).not.toContain(made.id);
    expect((await reminders()).filter((n) => n.title.includes("Daily stand-up"))).toHaveLength(2);
  });

  it("moves a ticket's appointment on to a repeating appointment's next occurrence as time passes (the job, on a clock)", async () => {
    const { db, schema } = t.handle;
    const ticket = await t.handle.transaction((tx) =>
      insertTicket(
        tx,
        { title: "Weekly physio", channel: "EMAIL", departmentId: agent.departmentId, contactName: "Mei", contactEmail: "mei@example.com", contactPhone: "" },
        "x",
        Date.now(),
      ),
    );
    const at = async () => Number((await db.select({ at: schema.tickets.appointmentAt }).from(schema.tickets).where(eq(schema.tickets.id, ticket.id)))[0].at);
    // booked on Monday 2032-03-01 for 10:00 on Tuesdays, three times (2, 9 and 16 March)
    const clock = dayStart("2032-03-01", KL) + 9 * 3_600_000;
    const made = await createAppointment(
      agent,
      {
        ...blank,
        title: "Physio",
        ticket: String(ticket.ticketNumber),
        start_date: "2032-03-02",
        start_time: "10:00",
        end_time: "11:00",
        repeat: "weekly",
        count: "3",
      },
      KL,
      clock,
    );
    expect(made.ok).toBe(true);
    const tuesday = (day: string) => dayStart(day, KL) + 10 * 3_600_000;
    expect(await at()).toBe(tuesday("2032-03-02"));
    // before the first one has passed nothing moves
    expect(await advanceTicketAppointments(KL, tuesday("2032-03-02") - 60_000)).not.toContain(ticket.id);
    // the day after: the next Tuesday, and a second run (another node) changes nothing
    expect(await advanceTicketAppointments(KL, tuesday("2032-03-03"))).toContain(ticket.id);
    expect(await at()).toBe(tuesday("2032-03-09"));
    expect(await advanceTicketAppointments(KL, tuesday("2032-03-03"))).not.toContain(ticket.id);
    // the list's "within two days" finds it on the Sunday before, not on the Friday
    const listed = async (now: number) =>
      (await listTickets(agent, "ticket", parseListQuery(new URLSearchParams({ status: "4", appt: "soon" }))!, { now, timeZone: KL })).items.map((i) => i.id);
    expect(await listed(tuesday("2032-03-09") - 2 * 86_400_000 + 3_600_000)).toContain(ticket.id);
    expect(await listed(tuesday("2032-03-05"))).not.toContain(ticket.id);
    // after the series' last occurrence it stays on that one
    expect(await advanceTicketAppointments(KL, tuesday("2032-03-12"))).toContain(ticket.id);
    expect(await at()).toBe(tuesday("2032-03-16"));
    expect(await advanceTicketAppointments(KL, tuesday("2032-04-01"))).not.toContain(ticket.id);
    expect(await at()).toBe(tuesday("2032-03-16"));
  });

  it("lets an agent see their own and their contacts' appointments, admins all; only owner, maker or admin change one", async () => {
    const when = { start_date: "2031-01-07", start_time: "10:00", end_time: "11:00" };
    const forMei = await createAppointment(admin, { ...blank, ...when, title: "Admin visits Mei", contact: mei.uid }, KL);
    const forTan = await createAppointment(admin, { ...blank, ...when, title: "Admin visits Tan", contact: tan.uid }, KL);
    const own = await createAppointment(admin, { ...blank, ...when, title: "Admin's own" }, KL);
    const agents = await createAppointment(agent, { ...blank, ...when, title: "Agent's own" }, KL);
    expect([forMei.ok, forTan.ok, own.ok, agents.ok]).toEqual([true, true, true, true]);
    const from = dayStart("2031-01-07", KL);
    const titles = async (u: UserRow) => (await occurrencesBetween(u, from, from + 86_400_000, KL)).map((o) => o.title).sort();
    expect(await titles(agent)).toEqual(["Admin visits Mei", "Agent's own"]);
    expect(await titles(admin)).toEqual(["Admin visits Mei", "Admin visits Tan", "Admin's own", "Agent's own"]);

    if (!forMei.ok || !forTan.ok || !agents.ok) return;
    expect((await appointmentDetail(agent, forMei.id, KL))?.canChange).toBe(false);
    expect(await appointmentDetail(agent, forTan.id, KL)).toBeUndefined();
    expect((await call(eventLoader, get(`/calendar/event/${forTan.id}`, agentCookie), { eventId: String(forTan.id) })).status).toBe(404);
    const denied = await updateAppointment(agent, forMei.id, { ...blank, ...when, title: "Taken over" }, KL);
    expect(!denied.ok && denied.status).toBe(403);
    const byAdmin = await updateAppointment(admin, agents.id, { ...blank, ...when, title: "Agent's own, moved", start_time: "12:00", end_time: "13:00" }, KL);
    expect(byAdmin.ok).toBe(true);
    expect(await titles(agent)).toEqual(["Admin visits Mei", "Agent's own, moved"]);
    // the agent's ticket field only takes tickets they may read
    const hidden = await createAppointment(agent, { ...blank, ...when, title: "x", ticket: "999999" }, KL);
    expect(!hidden.ok && hidden.result.errors.ticket).toBe("plugin_calendar.error.noTicket");
    void adminCookie;
  });
});
