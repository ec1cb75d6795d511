// Custom contact tabs (spec section 3: id, name, start_index, data_per_page): admins name a slice
// of the contacts list, from the start_index-th contact (0 is the first), shown data_per_page a
// page as a tab of /contacts and through GET /api/contacts/custom. The slice reads the contacts in
// the order they were added (oldest first), so a tab keeps its people as new customers write in;
// contacts merged away are left out.
import { asc, count, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { formError, formResult, type FormResult } from "~/forms";
import { audit } from "~/accounts/audit.server";
import { LIST_PAGE, LIST_PAGE_MAX, withReach, type ContactRow } from "./contacts.server";

export const TAB_NAME_MAX = 60;
export const TABS_MAX = 20;
export const START_INDEX_MAX = 10_000_000;
/** The highest page index asked for (pages are counted from 0). */
export const TAB_INDEX_MAX = 1_000_000;

export type ContactTab = { id: number; name: string; startIndex: number; dataPerPage: number };

/** The tabs in the order admins added them. */
export async function contactTabs(): Promise<ContactTab[]> {
  const { db, schema } = getDb();
  const tab = schema.contactTabs;
  return db.select({ id: tab.id, name: tab.name, startIndex: tab.startIndex, dataPerPage: tab.dataPerPage }).from(tab).orderBy(asc(tab.position), asc(tab.id));
}

export async function contactTab(id: number): Promise<ContactTab | undefined> {
  if (!Number.isSafeInteger(id)) return undefined;
  const { db, schema } = getDb();
  const tab = schema.contactTabs;
  const [row] = await db.select({ id: tab.id, name: tab.name, startIndex: tab.startIndex, dataPerPage: tab.dataPerPage }).from(tab).where(eq(tab.id, id));
  return row;
}

/** A whole number as typed in a form ("20", " 0 "), within bounds. */
const wholeNumber = (min: number, max: number, message: string) =>
  z
    .string()
    .trim()
    .regex(/^\d{1,9}$/, message)
    .transform(Number)
    .refine((n) => n >= min && n <= max, message);

const tabSchema = z.object({
  name: z.string().trim().min(1, "plugin_contacts.tabs.error.nameRequired").max(TAB_NAME_MAX, "plugin_contacts.tabs.error.nameTooLong"),
  start_index: wholeNumber(0, START_INDEX_MAX, "plugin_contacts.tabs.error.startIndex"),
  data_per_page: wholeNumber(1, LIST_PAGE_MAX, "plugin_contacts.tabs.error.dataPerPage"),
});

export const TAB_FORM = ["name", "start_index", "data_per_page"] as const;

/** Adds a tab (admins); a refusal names each wrong field and keeps what was typed. */
export async function addContactTab(
  values: Record<(typeof TAB_FORM)[number], string>,
  by: { id: number; username: string },
  now = Date.now(),
): Promise<{ ok: true; id: number } | { ok: false; result: FormResult }> {
  const intent = "addTab";
  const parsed = tabSchema.safeParse(values);
  if (!parsed.success) {
    const result = formError(parsed.error, values, intent);
    // the bounds of both numbers go with their messages, whichever field is wrong
    return { ok: false, result: { ...result, messageValues: { start: String(START_INDEX_MAX), perPage: String(LIST_PAGE_MAX), ...result.messageValues } } };
  }
  const handle = getDb();
  const tab = handle.schema.contactTabs;
  return handle.transaction(async (tx) => {
    const existing = await tx.select({ position: tab.position }).from(tab);
    if (existing.length >= TABS_MAX)
      return {
        ok: false as const,
        result: formResult({ intent, values, message: "plugin_contacts.tabs.error.tooMany", messageValues: { max: String(TABS_MAX) } }),
      };
    const { name, start_index: startIndex, data_per_page: dataPerPage } = parsed.data;
    const [row] = await tx
      .insert(tab)
      .values({ name, startIndex, dataPerPage, position: Math.max(0, ...existing.map((e) => e.position)) + 1, createdAt: now })
      .returning({ id: tab.id });
    await audit(
      {
        action: "contact.tab_added",
        actor: { id: by.id, name: by.username },
        target: { type: "contact_tab", id: row.id },
        detail: { name, startIndex, dataPerPage },
      },
      tx,
    );
    return { ok: true as const, id: row.id };
  });
}

/** Removes a tab (admins; the contacts stay); false when there is no such tab. */
export async function removeContactTab(id: number, by: { id: number; username: string }): Promise<boolean> {
  const handle = getDb();
  const tab = handle.schema.contactTabs;
  return handle.transaction(async (tx) => {
    const [gone] = await tx.delete(tab).where(eq(tab.id, id)).returning({ name: tab.name });
    if (!gone) return false;
    await audit(
      { action: "contact.tab_removed", actor: { id: by.id, name: by.username }, target: { type: "contact_tab", id }, detail: { name: gone.name } },
      tx,
    );
    return true;
  });
}

export type TabPage = {
  tab: ContactTab;
  /** contacts in the tab: those from start_index on */
  total: number;
  /** this page, counted from 0 */
  index: number;
  /** at least 1, so an empty tab has its one (empty) page */
  pages: number;
  /** the position of this page's first contact in the tab (0 first) */
  first: number;
  contacts: ContactRow[];
};

/** Page `index` (from 0) of a tab; `pastEnd` when the tab has no such page. */
export async function tabPage(tab: ContactTab, index: number): Promise<TabPage & { pastEnd: boolean }> {
  const { db, schema } = getDb();
  const c = schema.contacts;
  const perPage = Math.min(Math.max(1, tab.dataPerPage || LIST_PAGE), LIST_PAGE_MAX);
  const [counted] = await db.select({ n: count() }).from(c).where(isNull(c.mergedInto));
  const total = Math.max(0, Number(counted?.n ?? 0) - tab.startIndex);
  const pages = Math.max(1, Math.ceil(total / perPage));
  const page = Math.max(0, Math.floor(index));
  const first = page * perPage;
  if (page >= pages) return { tab, total, index: page, pages, first, contacts: [], pastEnd: true };
  const rows = await db
    .select({ id: c.id, uid: c.uid, name: c.name, salutation: c.salutation, createdAt: c.createdAt })
    .from(c)
    .where(isNull(c.mergedInto))
    .orderBy(asc(c.id))
    .limit(perPage)
    .offset(tab.startIndex + first);
  return { tab, total, index: page, pages, first, contacts: await withReach(rows), pastEnd: false };
}
