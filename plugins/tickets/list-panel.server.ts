// Data for the shell's list panel, read from the URL so every state is a link (works without JS).
import { and, desc } from "drizzle-orm";
import { getDb } from "@db/client";
import { listDepartmentChoices, listLabelChoices } from "~/conversation/choices.server";
import { staffList } from "~/conversation/model.server";
import { liveChatDesk } from "@plugins/livechat/livechat.server";
import { listColumns } from "~/conversation/list-columns.server";
import { GROUP_PAGE_SIZE, decorate, listConditions, listTickets, parseListQuery, type ListItem, type ListQuery } from "./ticket-list.server";
import type { Reader } from "~/conversation/access.server";

export const LIST_MODES = ["ticket", "livechat", "chat"] as const;
export type ListMode = (typeof LIST_MODES)[number];
export const TICKET_TABS = ["all", "department", "label"] as const;
export type TicketTab = (typeof TICKET_TABS)[number];

export interface ListGroup {
  key: string;
  id: number | null;
  name: string;
  color?: string;
  colorDark?: string;
  items: ListItem[];
  limit: number;
  more: boolean;
}

export interface FilterChoices {
  departments: { id: number; name: string }[];
  labels: { id: number; name: string; color: string; colorDark: string }[];
  agents: { username: string; name: string }[];
}

async function filterChoices(): Promise<FilterChoices> {
  const [departments, labels, agents] = await Promise.all([listDepartmentChoices(), listLabelChoices(), staffList()]);
  return { departments, labels, agents };
}

/** One group of the Department or Label tab: the first `limit` rows (+1: is there more?), 10 more per Show More. */
async function groupRows(reader: Reader, q: ListQuery, extra: Partial<ListQuery>, limit: number, timeZone: string, offset = 0) {
  const { db, schema } = getDb();
  return db
    .select(listColumns())
    .from(schema.tickets)
    .where(and(...listConditions(reader, "ticket", { ...q, ...extra }, Date.now(), timeZone)))
    .orderBy(desc(schema.tickets.updatedAt), desc(schema.tickets.id))
    .limit(limit + 1)
    .offset(offset);
}

/**
 * The Department or Label tab for the JSON twin (load2): 10 tickets of each group from `offset`,
 * or of one group when `groupId` is given (its Show More). Undefined when that group does not exist.
 */
export async function groupPages(reader: Reader, by: "department" | "label", q: ListQuery, opts: { groupId?: number; offset: number; timeZone: string }) {
  const choices = by === "department" ? await listDepartmentChoices() : await listLabelChoices();
  const chosen = opts.groupId ? choices.filter((c) => c.id === opts.groupId) : choices;
  if (opts.groupId && !chosen.length) return undefined;
  const found = await Promise.all(
    chosen.map(async (c) => {
      const extra = by === "department" ? { department: c.id } : { label: c.id };
      const rows = await groupRows(reader, q, extra, GROUP_PAGE_SIZE, opts.timeZone, opts.offset);
      return { id: c.id, name: c.name, color: "color" in c ? c.color : undefined, rows: rows.slice(0, GROUP_PAGE_SIZE), more: rows.length > GROUP_PAGE_SIZE };
    }),
  );
  const unique = new Map(found.flatMap((g) => g.rows).map((r) => [r.id, r]));
  const items = new Map((await decorate(reader, [...unique.values()])).map((i) => [i.id, i]));
  return found.map(({ rows, ...g }) => ({ ...g, items: rows.map((r) => items.get(r.id)!) }));
}

const groupLimit = (params: URLSearchParams, key: string) => {
  const n = Number(params.get(key));
  return Number.isInteger(n) && n > GROUP_PAGE_SIZE ? Math.min(n, 500) : GROUP_PAGE_SIZE;
};

export async function loadListPanel(reader: Reader, url: URL, timeZone: string) {
  const params = url.searchParams;
  const mode: ListMode = (LIST_MODES as readonly string[]).includes(params.get("list") ?? "") ? (params.get("list") as ListMode) : "ticket";
  const tab: TicketTab = (TICKET_TABS as readonly string[]).includes(params.get("tab") ?? "") ? (params.get("tab") as TicketTab) : "all";
  const q = parseListQuery(params);
  const choices = await filterChoices();
  if (mode === "livechat") return { mode, tab, q, choices, list: null, groups: null, desk: await liveChatDesk(reader) };
  if (mode === "chat" || tab === "all") {
    const list = await listTickets(reader, mode === "chat" ? "chat" : "ticket", q, { timeZone });
    return { mode, tab, q, choices, list, groups: null, desk: null };
  }
  const sources =
    tab === "department"
      ? choices.departments.map((d) => ({ key: `g${d.id}`, id: d.id, name: d.name, extra: { department: d.id } }))
      : choices.labels.map((l) => ({ key: `g${l.id}`, id: l.id, name: l.name, color: l.color, colorDark: l.colorDark, extra: { label: l.id } }));
  const found = await Promise.all(
    sources.map(async (s) => {
      const limit = groupLimit(params, s.key);
      const rows = await groupRows(reader, q, s.extra, limit, timeZone);
      return { ...s, limit, rows: rows.slice(0, limit), more: rows.length > limit };
    }),
  );
  // every group's rows decorated at once; a ticket in two label groups is decorated once
  const unique = new Map(found.flatMap((g) => g.rows).map((r) => [r.id, r]));
  const items = new Map((await decorate(reader, [...unique.values()])).map((i) => [i.id, i]));
  const groups: ListGroup[] = found.map((g) => ({
    key: g.key,
    id: g.id,
    name: g.name,
    color: "color" in g ? g.color : undefined,
    colorDark: "colorDark" in g ? g.colorDark : undefined,
    items: g.rows.map((r) => items.get(r.id)!),
    limit: g.limit,
    more: g.more,
  }));
  return { mode, tab, q, choices, list: null, groups, desk: null };
}
export type ListPanelData = Awaited<ReturnType<typeof loadListPanel>>;
