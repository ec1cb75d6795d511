// Cases: a case groups tickets about one problem across channels and time, with a type (the ticket
// field case_type), a status, an owner, a due date and notes. Every change is kept as the case's
// own history (case_events); a status change and a ticket put in or taken out of a case also leave
// a system message in each affected ticket's conversation. Agents see every case, but of its
// tickets only those they may read (app/conversation/access.server.ts); the others are counted.
import { and, asc, count, desc, eq, inArray, lt, max, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { getDb, isUniqueViolation, type Tx } from "@db/client";
import { canRead, readableBy, type Reader } from "~/conversation/access.server";
import { newMessages } from "~/conversation/events.server";
import { staffList, systemMessage, withUniqueNumber } from "~/conversation/model.server";
import { formError, formResult } from "~/forms";
import { containsText } from "~/sql-contains.server";
import { rememberRequest, type FormOutcome } from "~/request-keys.server";
import { formatter } from "~/time";
import { CASE_FIELDS, CASE_STATUSES, CASES_PAGE_SIZE, NOTE_MAX, OPEN_STATUSES, TITLE_MAX, TYPE_NAME_MAX, type CaseStatus } from "./limits";

export type Actor = Reader & { name: string; username: string };
export type Outcome<T extends object = object> = FormOutcome<T>;
type CaseRow = typeof import("@db/schema/sqlite").cases.$inferSelect;

/** Case numbers start here (a ticket's start at 100001: the two are not mistaken for each other). */
const FIRST_NUMBER = 1001;

/** Today as YYYY-MM-DD in the workspace's time zone: a due date before it is overdue. */
export function today(timeZone: string, at = Date.now()) {
  const p = Object.fromEntries(
    formatter(timeZone, "clock")
      .formatToParts(at)
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day}`;
}

const validDay = (v: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);

export const isOverdue = (c: { dueDate: string | null; status: string }, day: string) =>
  !!c.dueDate && c.dueDate < day && OPEN_STATUSES.includes(c.status as CaseStatus);

// ---------- case types (admins) ----------

export async function caseTypes(opts: { activeOnly?: boolean } = {}) {
  const { db, schema } = getDb();
  const t = schema.caseTypes;
  return db
    .select()
    .from(t)
    .where(opts.activeOnly ? eq(t.active, true) : undefined)
    .orderBy(asc(t.name));
}

const typeSchema = z.object({
  name: z.string().trim().min(1, "plugin_case.errors.typeNameRequired").max(TYPE_NAME_MAX, "plugin_case.errors.typeNameTooLong"),
  active: z.string().transform((v) => v === "1" || v === "on" || v === "true"),
});

/** Adds a case type (`id` empty) or renames / retires one; names are unique whatever their case. */
export async function saveCaseType(actor: Reader, values: { id: string; name: string; active: string }): Promise<Outcome<{ id: number }>> {
  const intent = "type";
  if (actor.type !== "admin") return { ok: false, result: formResult({ intent, message: "plugin_case.errors.adminOnly", values }), status: 403 };
  const parsed = typeSchema.safeParse(values);
  if (!parsed.success) return { ok: false, result: formError(parsed.error, values, intent), status: 400 };
  const handle = getDb();
  const t = handle.schema.caseTypes;
  const nameKey = typeNameKey(parsed.data.name);
  const id = values.id ? Number(values.id) : null;
  const taken = {
    ok: false as const,
    result: formResult({ intent, errors: { name: "plugin_case.errors.typeTaken" }, values, messageValues: { name: parsed.data.name } }),
    status: 409,
  };
  try {
    return await handle.transaction(async (tx): Promise<Outcome<{ id: number }>> => {
      // compared here as well as by the index: keys written before the index compared them (SQLite's lower() is ASCII only) are recomputed
      const others = await tx.select({ id: t.id, name: t.name }).from(t);
      if (others.some((o) => o.id !== id && typeNameKey(o.name) === nameKey)) return taken;
      if (id !== null) {
        const done = await tx
          .update(t)
          .set({ ...parsed.data, nameKey })
          .where(eq(t.id, id))
          .returning({ id: t.id });
        if (!done.length) return { ok: false, result: formResult({ intent, message: "plugin_case.errors.typeGone", values }), status: 404 };
        return { ok: true, id };
      }
      const [row] = await tx
        .insert(t)
        .values({ ...parsed.data, nameKey })
        .returning({ id: t.id });
      return { ok: true, id: row.id };
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return taken;
  }
}

/** A case type's name as uniqueness compares it, the same on both dialects: Unicode NFKC, lower case in every script, spaces collapsed. */
export const typeNameKey = (name: string) => name.normalize("NFKC").toLowerCase().normalize("NFKC").trim().replace(/\s+/g, " ");

// ---------- cases ----------

/** The case form's checks: a type among those offered (the current one too, even retired), an owner among the staff. */
function caseSchema(typeIds: number[], ownerIds: number[]) {
  const optionalId = (ids: number[], message: string) =>
    z
      .string()
      .trim()
      .refine((v) => v === "" || ids.includes(Number(v)), message)
      .transform((v) => (v === "" ? null : Number(v)));
  return z.object({
    title: z.string().trim().min(1, "plugin_case.errors.titleRequired").max(TITLE_MAX, "plugin_case.errors.titleTooLong"),
    case_type: optionalId(typeIds, "plugin_case.errors.type"),
    status: z.enum(CASE_STATUSES, { errorMap: () => ({ message: "plugin_case.errors.status" }) }),
    owner: optionalId(ownerIds, "plugin_case.errors.owner"),
    due_date: z
      .string()
      .trim()
      .refine((v) => v === "" || validDay(v), "plugin_case.errors.dueDate")
      .transform((v) => v || null),
  });
}

type CaseValues = Record<(typeof CASE_FIELDS)[number], string>;

async function parseCase(values: CaseValues, current?: CaseRow) {
  const [types, staff] = await Promise.all([caseTypes(), staffList()]);
  const typeIds = types.filter((t) => t.active || t.id === current?.caseTypeId).map((t) => t.id);
  const ownerIds = [...staff.map((s) => s.id), ...(current?.ownerUserId ? [current.ownerUserId] : [])];
  return caseSchema(typeIds, ownerIds).safeParse({ ...values, status: values.status || current?.status || "open" });
}

async function logEvent(tx: Tx, caseId: number, userId: number, action: string, detail: string, at: number) {
  const { schema } = getDb();
  await tx.insert(schema.caseEvents).values({ caseId, userId, action, detail, createdAt: at });
}

/** Who did what to which tickets: their conversations get the new system messages once committed. */
type Told = { ticket: typeof import("@db/schema/sqlite").tickets.$inferSelect; messageId: number }[];

/** Writes a case's system message into a ticket's conversation (spec section 4: case status messages). */
async function tellTicket(tx: Tx, ticketId: number, actor: Actor, text: string, values: Record<string, string>, at: number, told: Told) {
  const { schema } = getDb();
  const messageId = await systemMessage(tx, ticketId, { event: "plugin", by: actor.name, text, values }, at);
  const [ticket] = await tx.select().from(schema.tickets).where(eq(schema.tickets.id, ticketId));
  told.push({ ticket, messageId });
}

async function publish(told: Told, actor: Actor) {
  for (const t of told) await newMessages(t.ticket, [t.messageId], actor.username);
}

export async function createCase(actor: Actor, values: CaseValues): Promise<Outcome<{ number: number }>> {
  const parsed = await parseCase(values);
  if (!parsed.success) return { ok: false, result: formError(parsed.error, values), status: 400 };
  const d = parsed.data;
  const handle = getDb();
  const { schema } = handle;
  const now = Date.now();
  const number = await withUniqueNumber(() =>
    handle.transaction(async (tx) => {
      const [{ top }] = await tx.select({ top: max(schema.cases.number) }).from(schema.cases);
      const [row] = await tx
        .insert(schema.cases)
        .values({
          number: Math.max(FIRST_NUMBER - 1, Number(top ?? 0)) + 1,
          title: d.title,
          caseTypeId: d.case_type,
          status: d.status,
          ownerUserId: d.owner,
          dueDate: d.due_date,
          createdBy: actor.id,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await logEvent(tx, row.id, actor.id, "created", d.title, now);
      await rememberRequest(tx, { number: row.number });
      return row.number;
    }),
  );
  return { ok: true, number };
}

async function caseByNumber(number: number) {
  if (!Number.isSafeInteger(number)) return undefined;
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.cases).where(eq(schema.cases.number, number));
  return row;
}

const notFound = (intent: string, values: Record<string, string> = {}) =>
  ({ ok: false, result: formResult({ intent, message: "plugin_case.errors.notFound", values }), status: 404 }) as const;

/** Title, type, status, owner and due date; each change is kept in the history, a new status also told in every ticket of the case. */
export async function updateCase(actor: Actor, number: number, values: CaseValues, version?: number): Promise<Outcome<{ changed: string[] }>> {
  const current = await caseByNumber(number);
  if (!current) return notFound("edit", values);
  // the form carries the case as it was read: saving it over someone's later change would undo that change unseen
  if (version !== undefined && version !== current.updatedAt)
    return { ok: false, result: formResult({ intent: "edit", message: "plugin_case.errors.changedMeanwhile", values }), status: 409 };
  const parsed = await parseCase(values, current);
  if (!parsed.success) return { ok: false, result: formError(parsed.error, values, "edit"), status: 400 };
  const d = parsed.data;
  const next = { title: d.title, caseTypeId: d.case_type, status: d.status, ownerUserId: d.owner, dueDate: d.due_date };
  const changed = (Object.keys(next) as (keyof typeof next)[]).filter((k) => next[k] !== current[k]);
  if (!changed.length) return { ok: true, changed };
  const handle = getDb();
  const { schema } = handle;
  // later than the version read even within one millisecond, so the next stale form is told
  const now = Math.max(Date.now(), current.updatedAt + 1);
  const told: Told = [];
  const [types, staff] = await Promise.all([caseTypes(), staffList()]);
  const changedMeanwhile = { ok: false, result: formResult({ intent: "edit", message: "plugin_case.errors.changedMeanwhile", values }), status: 409 } as const;
  const saved = await handle.transaction(async (tx) => {
    // written only over the row that was read, so of two saves at once the later one is refused, not merged
    const claimed = await tx
      .update(schema.cases)
      .set({ ...next, updatedAt: now })
      .where(and(eq(schema.cases.id, current.id), eq(schema.cases.updatedAt, current.updatedAt)))
      .returning({ id: schema.cases.id });
    if (!claimed.length) return false;
    for (const field of changed) {
      const detail =
        field === "caseTypeId"
          ? (types.find((t) => t.id === next.caseTypeId)?.name ?? "")
          : field === "ownerUserId"
            ? (staff.find((s) => s.id === next.ownerUserId)?.name ?? "")
            : String(next[field] ?? "");
      const action = { title: "title", caseTypeId: "type", status: "status", ownerUserId: "owner", dueDate: "due" }[field];
      await logEvent(tx, current.id, actor.id, action, detail, now);
    }
    if (changed.includes("status")) {
      const tickets = await tx.select({ id: schema.caseTickets.ticketId }).from(schema.caseTickets).where(eq(schema.caseTickets.caseId, current.id));
      for (const t of tickets)
        await tellTicket(tx, t.id, actor, "plugin_case.system.status", { number: String(number), status: `t:plugin_case.status.${d.status}` }, now, told);
    }
    await rememberRequest(tx);
    return true;
  });
  if (!saved) return changedMeanwhile;
  await publish(told, actor);
  return { ok: true, changed };
}

/** Puts a ticket (by its number) in the case; a ticket already in another case is refused, naming that case. */
export async function attachTicket(actor: Actor, number: number, ticketValue: string): Promise<Outcome<{ ticketNumber: number }>> {
  const intent = "attach";
  const values = { ticket: ticketValue };
  const current = await caseByNumber(number);
  if (!current) return notFound(intent, values);
  const ticketNumber = Number(ticketValue.trim().replace(/^#/, ""));
  const refuse = (error: string, status: number, messageValues: Record<string, string> = {}) =>
    ({
      ok: false,
      result: formResult({ intent, errors: { ticket: error }, values, messageValues: { ticket: ticketValue.trim(), ...messageValues } }),
      status,
    }) as const;
  if (!ticketValue.trim()) return refuse("plugin_case.errors.ticketRequired", 400);
  const handle = getDb();
  const { db, schema } = handle;
  const [ticket] = Number.isSafeInteger(ticketNumber) ? await db.select().from(schema.tickets).where(eq(schema.tickets.ticketNumber, ticketNumber)) : [];
  // a ticket the agent may not read is not theirs to put anywhere: the same answer as no ticket
  if (!ticket || ticket.kind === "chat" || !(await canRead(actor, ticket.id))) return refuse("plugin_case.errors.noTicket", 404);
  const inCase = async () => {
    const [row] = await db
      .select({ number: schema.cases.number })
      .from(schema.caseTickets)
      .innerJoin(schema.cases, eq(schema.cases.id, schema.caseTickets.caseId))
      .where(eq(schema.caseTickets.ticketId, ticket.id));
    return row?.number;
  };
  const already = async (other: number) =>
    other === number ? refuse("plugin_case.errors.alreadyHere", 409) : refuse("plugin_case.errors.inOtherCase", 409, { case: String(other) });
  const before = await inCase();
  if (before !== undefined) return already(before);
  const now = Date.now();
  const told: Told = [];
  try {
    await handle.transaction(async (tx) => {
      await tx.insert(schema.caseTickets).values({ caseId: current.id, ticketId: ticket.id, addedAt: now });
      await tx.update(schema.cases).set({ updatedAt: now }).where(eq(schema.cases.id, current.id));
      await logEvent(tx, current.id, actor.id, "attached", String(ticket.ticketNumber), now);
      await tellTicket(tx, ticket.id, actor, "plugin_case.system.attached", { number: String(number), title: current.title }, now, told);
      await rememberRequest(tx, { ticketNumber: ticket.ticketNumber });
    });
  } catch (error) {
    // another agent put it in a case meanwhile (the ticket is the table's primary key)
    if (!isUniqueViolation(error)) throw error;
    return already((await inCase()) ?? number);
  }
  await publish(told, actor);
  return { ok: true, ticketNumber: ticket.ticketNumber };
}

/** Takes a ticket out of the case (one the agent may read). */
export async function detachTicket(actor: Actor, number: number, ticketId: number): Promise<Outcome<{ ticketNumber: number }>> {
  const intent = "detach";
  const current = await caseByNumber(number);
  if (!current) return notFound(intent);
  const handle = getDb();
  const { db, schema } = handle;
  const [row] = Number.isSafeInteger(ticketId)
    ? await db
        .select({ ticketNumber: schema.tickets.ticketNumber })
        .from(schema.caseTickets)
        .innerJoin(schema.tickets, eq(schema.tickets.id, schema.caseTickets.ticketId))
        .where(and(eq(schema.caseTickets.ticketId, ticketId), eq(schema.caseTickets.caseId, current.id)))
    : [];
  if (!row || !(await canRead(actor, ticketId))) return { ok: false, result: formResult({ intent, message: "plugin_case.errors.notInCase" }), status: 404 };
  const now = Date.now();
  const told: Told = [];
  await handle.transaction(async (tx) => {
    // the delete claims the link: of two detaches at once, only the one that removed it logs and tells
    const removed = await tx
      .delete(schema.caseTickets)
      .where(and(eq(schema.caseTickets.ticketId, ticketId), eq(schema.caseTickets.caseId, current.id)))
      .returning({ ticketId: schema.caseTickets.ticketId });
    if (!removed.length) return;
    await tx.update(schema.cases).set({ updatedAt: now }).where(eq(schema.cases.id, current.id));
    await logEvent(tx, current.id, actor.id, "detached", String(row.ticketNumber), now);
    await tellTicket(tx, ticketId, actor, "plugin_case.system.detached", { number: String(number) }, now, told);
    await rememberRequest(tx);
  });
  await publish(told, actor);
  return { ok: true, ticketNumber: row.ticketNumber };
}

export async function addCaseNote(actor: Actor, number: number, body: string): Promise<Outcome<{ id: number }>> {
  const intent = "note";
  const values = { body };
  const current = await caseByNumber(number);
  if (!current) return notFound(intent, values);
  const text = body.trim();
  if (!text) return { ok: false, result: formResult({ intent, errors: { body: "plugin_case.errors.noteRequired" }, values }), status: 400 };
  if (text.length > NOTE_MAX)
    return {
      ok: false,
      result: formResult({ intent, errors: { body: "plugin_case.errors.noteTooLong" }, values, messageValues: { max: String(NOTE_MAX) } }),
      status: 400,
    };
  const handle = getDb();
  const { schema } = handle;
  const now = Date.now();
  const id = await handle.transaction(async (tx) => {
    const [row] = await tx
      .insert(schema.caseNotes)
      .values({ caseId: current.id, userId: actor.id, body: text, createdAt: now })
      .returning({ id: schema.caseNotes.id });
    await tx.update(schema.cases).set({ updatedAt: now }).where(eq(schema.cases.id, current.id));
    await rememberRequest(tx, { id: row.id });
    return row.id;
  });
  return { ok: true, id };
}

// ---------- reading ----------

export const listQuery = z.object({
  status: z.union([z.enum(CASE_STATUSES), z.literal("overdue"), z.literal("")]).catch(""),
  type: z.coerce.number().int().positive().optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
});
export type ListQuery = z.infer<typeof listQuery>;

/** A page of cases, the latest changed first, with their type, owner, due date (overdue marked) and number of tickets. */
export async function listCases(q: ListQuery, timeZone: string) {
  const { db, schema } = getDb();
  const c = schema.cases;
  const day = today(timeZone);
  const where: (SQL | undefined)[] = [q.type ? eq(c.caseTypeId, q.type) : undefined];
  if (q.status === "overdue") where.push(inArray(c.status, [...OPEN_STATUSES]), lt(c.dueDate, day));
  else if (q.status) where.push(eq(c.status, q.status));
  const condition = and(...where);
  const tickets = db
    .select({ caseId: schema.caseTickets.caseId, n: count().as("n") })
    .from(schema.caseTickets)
    .groupBy(schema.caseTickets.caseId)
    .as("tc");
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({
        number: c.number,
        title: c.title,
        status: c.status,
        type: schema.caseTypes.name,
        owner: schema.users.name,
        dueDate: c.dueDate,
        tickets: sql<number>`coalesce(${tickets.n}, 0)`,
        updatedAt: c.updatedAt,
      })
      .from(c)
      .leftJoin(schema.caseTypes, eq(schema.caseTypes.id, c.caseTypeId))
      .leftJoin(schema.users, eq(schema.users.id, c.ownerUserId))
      .leftJoin(tickets, eq(tickets.caseId, c.id))
      .where(condition)
      .orderBy(desc(c.updatedAt), desc(c.id))
      .limit(CASES_PAGE_SIZE)
      .offset((q.page - 1) * CASES_PAGE_SIZE),
    db.select({ total: count() }).from(c).where(condition),
  ]);
  return {
    cases: rows.map((r) => ({ ...r, tickets: Number(r.tickets), overdue: isOverdue(r, day) })),
    total: Number(total),
    page: q.page,
    pages: Math.max(1, Math.ceil(Number(total) / CASES_PAGE_SIZE)),
  };
}

/** Cases whose title contains `text` (any case), or whose number it is ("1001" or "#1001"); the latest changed first. */
export async function searchCases(text: string, limit: number) {
  const { db, schema } = getDb();
  const c = schema.cases;
  const q = text.trim().slice(0, TITLE_MAX);
  if (!q) return [];
  const number = /^#?\d{1,9}$/.test(q) ? Number(q.replace("#", "")) : null;
  const like = containsText(c.title, q);
  return db
    .select({ number: c.number, title: c.title, status: c.status })
    .from(c)
    .where(number === null ? like : sql`(${like} OR ${eq(c.number, number)})`)
    .orderBy(desc(c.updatedAt), desc(c.id))
    .limit(limit);
}

/** One case as the reader sees it: the tickets they may read (the others only counted), notes and history. */
export async function caseDetail(reader: Reader, number: number, timeZone: string) {
  const current = await caseByNumber(number);
  if (!current) return undefined;
  const { db, schema } = getDb();
  const t = schema.tickets;
  const ct = schema.caseTickets;
  const people = [current.ownerUserId, current.createdBy].filter((id): id is number => id != null);
  const [names, [type], tickets, [{ total }], notes, history] = await Promise.all([
    people.length ? db.select({ id: schema.users.id, name: schema.users.name }).from(schema.users).where(inArray(schema.users.id, people)) : [],
    current.caseTypeId ? db.select({ name: schema.caseTypes.name }).from(schema.caseTypes).where(eq(schema.caseTypes.id, current.caseTypeId)) : [],
    db
      .select({ id: t.id, number: t.ticketNumber, kind: t.kind, title: t.title, channel: t.channel, status: t.status, addedAt: ct.addedAt })
      .from(ct)
      .innerJoin(t, eq(t.id, ct.ticketId))
      .where(and(eq(ct.caseId, current.id), readableBy(reader)))
      .orderBy(asc(ct.addedAt), asc(t.id)),
    db.select({ total: count() }).from(ct).where(eq(ct.caseId, current.id)),
    db
      .select({ id: schema.caseNotes.id, body: schema.caseNotes.body, by: schema.users.name, at: schema.caseNotes.createdAt })
      .from(schema.caseNotes)
      .leftJoin(schema.users, eq(schema.users.id, schema.caseNotes.userId))
      .where(eq(schema.caseNotes.caseId, current.id))
      .orderBy(desc(schema.caseNotes.createdAt), desc(schema.caseNotes.id)),
    db
      .select({
        id: schema.caseEvents.id,
        action: schema.caseEvents.action,
        detail: schema.caseEvents.detail,
        by: schema.users.name,
        at: schema.caseEvents.createdAt,
      })
      .from(schema.caseEvents)
      .leftJoin(schema.users, eq(schema.users.id, schema.caseEvents.userId))
      .where(eq(schema.caseEvents.caseId, current.id))
      .orderBy(desc(schema.caseEvents.createdAt), desc(schema.caseEvents.id)),
  ]);
  // a ticket the reader may not open is named in the history without its number
  const ticketEvent = (h: (typeof history)[number]) => h.action === "attached" || h.action === "detached";
  const named = [...new Set(history.filter(ticketEvent).map((h) => Number(h.detail)))].filter(Number.isSafeInteger);
  const readable = new Set(
    named.length
      ? (
          await db
            .select({ number: t.ticketNumber })
            .from(t)
            .where(and(inArray(t.ticketNumber, named), readableBy(reader)))
        ).map((r) => String(r.number))
      : [],
  );
  return {
    number: current.number,
    title: current.title,
    status: current.status as CaseStatus,
    caseTypeId: current.caseTypeId,
    type: type?.name ?? null,
    ownerUserId: current.ownerUserId,
    owner: names.find((u) => u.id === current.ownerUserId)?.name ?? null,
    dueDate: current.dueDate,
    overdue: isOverdue(current, today(timeZone)),
    createdBy: names.find((u) => u.id === current.createdBy)?.name ?? null,
    createdAt: current.createdAt,
    updatedAt: current.updatedAt,
    tickets,
    ticketCount: Number(total),
    hiddenTickets: Number(total) - tickets.length,
    notes,
    history: history.map((h) => (ticketEvent(h) && !readable.has(h.detail) ? { ...h, action: `${h.action}Hidden`, detail: "" } : h)),
  };
}
export type CaseDetail = NonNullable<Awaited<ReturnType<typeof caseDetail>>>;

/** The case a ticket belongs to, if any (for a conversation that wants to show it). */
export async function caseOfTicket(ticketId: number) {
  const { db, schema } = getDb();
  const [row] = await db
    .select({ number: schema.cases.number, title: schema.cases.title, status: schema.cases.status })
    .from(schema.caseTickets)
    .innerJoin(schema.cases, eq(schema.cases.id, schema.caseTickets.caseId))
    .where(eq(schema.caseTickets.ticketId, ticketId));
  return row;
}
