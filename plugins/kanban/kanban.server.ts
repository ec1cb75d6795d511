// The kanban board: tickets by status (open, pending, resolved, closed) or by the admins' own
// columns, filtered by label, department, assignee and campaign, each column capped with a count
// of the rest. Moving a card by status is the conversation's own status change (its system message,
// events and lists); moving it between custom columns writes the card's row and a system message
// in the ticket, in one transaction. Either way every open board hears receiveKanbanNotification.
// Two admins moving one card at once: each move is one conditional write, the later one wins.
import { and, asc, count, desc, eq, exists, isNull, lt, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { getDb, isUniqueViolation } from "@db/client";
import { readableBy, type Reader } from "~/conversation/access.server";
import { RESOLVED } from "~/conversation/constants";
import { newMessages } from "~/conversation/events.server";
import { setStatus, staffList, systemMessage } from "~/conversation/model.server";
import { formError, formResult, type FormResult } from "~/forms";
import { publish } from "~/realtime.server";
import { audit } from "~/accounts/audit.server";
import { SERVER_EVENTS } from "~/realtime-events";
import { CARD_CAP, COLUMN_NAME_MAX, MORE_CAP, NO_COLUMN, STATUS_KEYS, columnKey, statusKey } from "./limits";

export type Actor = Reader & { name: string; username: string };
export type Outcome<T> = ({ ok: true } & T) | { ok: false; result: FormResult; status: number };

/** Every open board (admins allowed to see it join this room: socket.server.ts). */
export const KANBAN_ROOM = "kanban";

const optionalId = z.coerce
  .number()
  .int()
  .positive()
  .max(2 ** 31 - 1)
  .optional()
  .catch(undefined);

export const boardQuery = z.object({
  view: z.enum(["status", "columns"]).catch("status"),
  label: optionalId,
  department: optionalId,
  agent: optionalId,
  campaign: optionalId,
  /** A column shown with more of its cards (MORE_CAP instead of CARD_CAP). */
  more: z.string().max(20).catch(""),
});
export type BoardQuery = z.infer<typeof boardQuery>;

export type Card = {
  ticketNumber: number;
  title: string;
  contactName: string;
  channel: string;
  status: number;
  updatedAt: number;
  column: string;
  version: number;
};
export type Column = { key: string; name: string | null; status: number | null; total: number; cards: Card[] };

/** The filters' conditions on tickets: tickets only (not chats, calls or live chats), those the reader may read. */
function filters(reader: Reader, q: BoardQuery): SQL[] {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const where: (SQL | undefined)[] = [eq(t.kind, "ticket"), readableBy(reader)];
  if (q.department) where.push(eq(t.departmentId, q.department));
  if (q.campaign) where.push(eq(t.campaignId, q.campaign));
  if (q.label) {
    const tl = schema.ticketLabels;
    where.push(
      exists(
        db
          .select({ one: sql`1` })
          .from(tl)
          .where(and(eq(tl.ticketId, t.id), eq(tl.labelId, q.label))),
      ),
    );
  }
  if (q.agent) {
    const p = schema.participants;
    where.push(
      exists(
        db
          .select({ one: sql`1` })
          .from(p)
          .where(and(eq(p.ticketId, t.id), eq(p.userId, q.agent), eq(p.assignee, true))),
      ),
    );
  }
  return where.filter((w): w is SQL => !!w);
}

/** The admins' columns, left to right. */
export async function kanbanColumns() {
  const { db, schema } = getDb();
  const c = schema.kanbanColumns;
  return db.select({ id: c.id, name: c.name, position: c.position }).from(c).orderBy(asc(c.position), asc(c.id));
}

/** The board: its columns, each with its first cards (the latest changed first) and how many it holds. */
export async function loadBoard(reader: Reader, q: BoardQuery): Promise<Column[]> {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const k = schema.kanbanCards;
  const base = filters(reader, q);
  const capOf = (key: string) => (q.more === key ? MORE_CAP : CARD_CAP);
  const fields = {
    ticketNumber: t.ticketNumber,
    title: t.title,
    contactName: t.contactName,
    channel: t.channel,
    status: t.status,
    updatedAt: t.updatedAt,
    columnId: k.columnId,
    version: k.version,
  };
  const column = async (key: string, name: string | null, status: number | null, where: SQL[]) => {
    const condition = and(...base, ...where);
    const [rows, [{ total }]] = await Promise.all([
      db.select(fields).from(t).leftJoin(k, eq(k.ticketId, t.id)).where(condition).orderBy(desc(t.updatedAt), desc(t.id)).limit(capOf(key)),
      db.select({ total: count() }).from(t).leftJoin(k, eq(k.ticketId, t.id)).where(condition),
    ]);
    const cards = rows.map(({ columnId, ...r }) => ({
      ...r,
      updatedAt: Number(r.updatedAt),
      column: q.view === "status" ? statusKey(r.status) : columnId == null ? NO_COLUMN : columnKey(columnId),
      version: r.version ?? 0,
    }));
    return { key, name, status, total: Number(total), cards };
  };
  if (q.view === "status") return Promise.all(STATUS_KEYS.map((key, status) => column(key, null, status, [eq(t.status, status)])));
  // the custom board holds the work still to do: tickets not yet resolved
  const open = lt(t.status, RESOLVED);
  const columns = await kanbanColumns();
  return Promise.all([
    column(NO_COLUMN, null, null, [open, isNull(k.columnId)]),
    ...columns.map((c) => column(columnKey(c.id), c.name, null, [open, eq(k.columnId, c.id)])),
  ]);
}

/** What the filters offer: labels, departments, agents (assignees) and campaigns. */
export async function filterOptions() {
  const { db, schema } = getDb();
  const [labels, departments, staff, campaigns] = await Promise.all([
    db.select({ id: schema.labels.id, name: schema.labels.name }).from(schema.labels).orderBy(asc(schema.labels.name)),
    db.select({ id: schema.departments.id, name: schema.departments.name }).from(schema.departments).orderBy(asc(schema.departments.name)),
    staffList(),
    db.select({ id: schema.campaigns.id, name: schema.campaigns.name }).from(schema.campaigns).orderBy(desc(schema.campaigns.createdAt)).limit(200),
  ]);
  return { labels, departments, agents: staff.map((s) => ({ id: s.id, name: s.name })), campaigns };
}

/** Tells every open board that a card moved (they reload what they show). */
function tellBoards(ticketNumber: number, to: string, version: number) {
  publish(KANBAN_ROOM, SERVER_EVENTS.receiveKanbanNotification, { ticketNumber, to, version });
}

export const moveSchema = z.object({
  ticket: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  to: z.string().regex(/^(s[0-3]|c\d{1,10}|none)$/),
});

/**
 * Moves a card: `to` is a status ("s0".."s3"), a custom column ("c<id>") or out of the columns
 * ("none"). A move to where the card already is changes nothing (and says so: `moved` false).
 */
export async function moveCard(actor: Actor, values: { ticket: string; to: string }): Promise<Outcome<{ moved: boolean; ticketNumber: number }>> {
  const intent = "move";
  const parsed = moveSchema.safeParse(values);
  if (!parsed.success) return { ok: false, result: formResult({ intent, message: "plugin_kanban.errors.badMove", values }), status: 400 };
  const { ticket: number, to } = parsed.data;
  const handle = getDb();
  const { db, schema } = handle;
  const t = schema.tickets;
  const [ticket] = await db
    .select()
    .from(t)
    .where(and(eq(t.ticketNumber, number), eq(t.kind, "ticket"), readableBy(actor)));
  const gone = { ok: false as const, result: formResult({ intent, message: "plugin_kanban.errors.noTicket", values }), status: 404 };
  if (!ticket) return gone;

  if (to.startsWith("s")) {
    const status = Number(to.slice(1));
    // the conversation's own write path: system message, lists, open pages (a conditional write)
    const moved = await setStatus(actor, ticket, status);
    if (moved) {
      // setStatus keeps its own transaction (the ticket page's path); the board's entry follows it
      await audit({ action: "kanban.card_moved", actor, target: { type: "ticket", id: number }, detail: { from: statusKey(ticket.status), to } });
      tellBoards(number, to, 0);
    }
    return { ok: true, moved, ticketNumber: number };
  }

  const k = schema.kanbanCards;
  const now = Date.now();
  const columnId = to === "none" ? null : Number(to.slice(1));
  let done: { messageId: number; version: number } | null;
  let from = NO_COLUMN;
  try {
    done = await handle.transaction(async (tx) => {
      let name = "";
      let version = 0;
      const [was] = await tx.select({ columnId: k.columnId }).from(k).where(eq(k.ticketId, ticket.id));
      if (was) from = columnKey(was.columnId);
      if (columnId === null) {
        const removed = await tx.delete(k).where(eq(k.ticketId, ticket.id)).returning({ version: k.version });
        if (!removed.length) return null;
        version = removed[0].version + 1;
      } else {
        const [col] = await tx.select({ name: schema.kanbanColumns.name }).from(schema.kanbanColumns).where(eq(schema.kanbanColumns.id, columnId));
        if (!col) throw new ColumnGone();
        name = col.name;
        // one statement: a new card, or the card moved on with its version counted; nothing when it is there already
        const rows = await tx
          .insert(k)
          .values({ ticketId: ticket.id, columnId, version: 1, movedBy: actor.id, movedAt: now })
          .onConflictDoUpdate({
            target: k.ticketId,
            set: { columnId, version: sql`${k.version} + 1`, movedBy: actor.id, movedAt: now },
            setWhere: sql`${k.columnId} <> ${columnId}`,
          })
          .returning({ version: k.version });
        if (!rows.length) return null;
        version = rows[0].version;
      }
      const messageId = await systemMessage(
        tx,
        ticket.id,
        columnId === null
          ? { event: "plugin", by: actor.name, text: "plugin_kanban.system.removed", values: {} }
          : { event: "plugin", by: actor.name, text: "plugin_kanban.system.moved", values: { column: name } },
        now,
      );
      await audit({ action: "kanban.card_moved", actor, target: { type: "ticket", id: number }, detail: { from, to, ...(name ? { column: name } : {}) } }, tx);
      return { messageId, version };
    });
  } catch (error) {
    // the column was deleted meanwhile (or between the read and the write: its foreign key)
    if (error instanceof ColumnGone || isForeignKeyViolation(error))
      return { ok: false, result: formResult({ intent, message: "plugin_kanban.errors.noColumn", values }), status: 404 };
    throw error;
  }
  if (!done) return { ok: true, moved: false, ticketNumber: number };
  await newMessages(ticket, [done.messageId], actor.username);
  tellBoards(number, to, done.version);
  return { ok: true, moved: true, ticketNumber: number };
}

class ColumnGone extends Error {}

function isForeignKeyViolation(error: unknown) {
  const e = error as { code?: string; message?: string } | null;
  return e?.code === "23503" || e?.code === "SQLITE_CONSTRAINT_FOREIGNKEY";
}

// ---------- the admins' columns ----------

const nameSchema = z
  .string()
  .trim()
  .min(1, "plugin_kanban.errors.nameRequired")
  .max(COLUMN_NAME_MAX, "plugin_kanban.errors.nameTooLong")
  // a system message's value starting with "t:" is read as a translation key
  .refine((v) => !/^t:/i.test(v), "plugin_kanban.errors.nameReserved");

async function columnWrite<T>(intent: string, values: Record<string, string>, write: () => Promise<T>): Promise<Outcome<{ value: T }>> {
  try {
    return { ok: true, value: await write() };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return { ok: false, result: formResult({ intent, errors: { name: "plugin_kanban.errors.nameTaken" }, values }), status: 409 };
  }
}

export async function addColumn(values: { name: string }, actor?: Actor): Promise<Outcome<{ value: number }>> {
  const intent = "add";
  const parsed = nameSchema.safeParse(values.name);
  if (!parsed.success) return { ok: false, result: formError(wrap(parsed.error), values, intent), status: 400 };
  const { db, schema } = getDb();
  const c = schema.kanbanColumns;
  return columnWrite(intent, values, async () => {
    const [{ top }] = await db.select({ top: sql<number | null>`max(${c.position})` }).from(c);
    const [row] = await db
      .insert(c)
      .values({ name: parsed.data, position: Number(top ?? 0) + 1, createdAt: Date.now() })
      .returning({ id: c.id });
    await audit({ action: "kanban.column_created", actor, target: { type: "kanban_column", id: row.id }, detail: { name: parsed.data } });
    return row.id;
  });
}

export async function renameColumn(id: number, values: { name: string }, actor?: Actor): Promise<Outcome<{ value: number }>> {
  const intent = `column-${id}`;
  const parsed = nameSchema.safeParse(values.name);
  if (!parsed.success) return { ok: false, result: formError(wrap(parsed.error), values, intent), status: 400 };
  const { db, schema } = getDb();
  const c = schema.kanbanColumns;
  const out = await columnWrite(intent, values, () => db.update(c).set({ name: parsed.data }).where(eq(c.id, id)).returning({ id: c.id }));
  if (!out.ok) return out;
  if (!out.value.length) return { ok: false, result: formResult({ intent, message: "plugin_kanban.errors.noColumn", values }), status: 404 };
  await audit({ action: "kanban.column_renamed", actor, target: { type: "kanban_column", id }, detail: { name: parsed.data } });
  tellBoards(0, columnKey(id), 0);
  return { ok: true, value: id };
}

/** Swaps a column with its neighbour to the left (-1) or right (+1), in one transaction. */
export async function shiftColumn(id: number, by: -1 | 1) {
  const handle = getDb();
  const c = handle.schema.kanbanColumns;
  await handle.transaction(async (tx) => {
    const all = await tx.select({ id: c.id, position: c.position }).from(c).orderBy(asc(c.position), asc(c.id));
    const i = all.findIndex((x) => x.id === id);
    const j = i + by;
    if (i < 0 || j < 0 || j >= all.length) return;
    [all[i], all[j]] = [all[j], all[i]];
    for (const [position, col] of all.entries()) await tx.update(c).set({ position }).where(eq(c.id, col.id));
  });
  tellBoards(0, columnKey(id), 0);
}

/** Deletes a column; its cards go back to no column. */
export async function deleteColumn(id: number, actor?: Actor) {
  const handle = getDb();
  const c = handle.schema.kanbanColumns;
  const gone = await handle.transaction(async (tx) => {
    const rows = await tx.delete(c).where(eq(c.id, id)).returning({ name: c.name });
    if (rows.length) await audit({ action: "kanban.column_deleted", actor, target: { type: "kanban_column", id }, detail: { name: rows[0].name } }, tx);
    return rows.length > 0;
  });
  if (gone) tellBoards(0, columnKey(id), 0);
}

/** zod's error for one value, as if it were the form's `name` field. */
function wrap(error: z.ZodError) {
  return new z.ZodError(error.issues.map((i) => ({ ...i, path: ["name"] })));
}
