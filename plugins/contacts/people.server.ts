// /contacts/{uid} for the people who are not customer contacts. The profile card's 'View Profile'
// names a local user (agent, admin) or one of the bots by username, and a live chat visitor as
// livechat-{n} (app/accounts/profile.server.ts): each gets a profile page here instead of a 404.
// A team member's page lists only the conversations they take part in that the viewer may read.
import { and, eq } from "drizzle-orm";
import { getDb } from "@db/client";
import { readableBy } from "~/conversation/access.server";
import { conversationPath } from "~/conversation/channels";
import { personByUsername, userConversations, CARD_PAGE, type CardKind } from "~/accounts/profile.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";

type Viewer = Pick<UserRow, "id" | "type" | "departmentId">;

export type StaffConversation = { path: string; ticketNumber: number; title: string; status: number; updatedAt: number };

export type StaffProfile =
  | {
      kind: "user";
      username: string;
      name: string;
      photo: string;
      type: string;
      department: string;
      /** the status shown to others: an away status when one is set, else ONLINE */
      status: string;
      email?: string;
      conversations: Record<CardKind, { items: StaffConversation[]; more: boolean }>;
    }
  | { kind: "bot"; username: string; name: string; photo: string };

/** A team member or bot by username, or undefined when there is none. */
export async function staffProfile(viewer: Viewer, username: string): Promise<StaffProfile | undefined> {
  const person = await personByUsername(viewer, username);
  if (!person || person.kind === "visitor" || person.kind === "contact") return undefined;
  if (person.kind === "bot") return { kind: "bot", username: person.username, name: person.name, photo: person.photo };
  const user = (await findUserByUsername(person.username))!;
  const { db, schema } = getDb();
  const [department] = user.departmentId
    ? await db.select({ name: schema.departments.name }).from(schema.departments).where(eq(schema.departments.id, user.departmentId))
    : [];
  const list = async (kind: CardKind) => {
    const page = await userConversations(viewer, person.id, kind, 0, CARD_PAGE);
    const items = page.items.map((i) => ({
      path: conversationPath(i.kind, i.ticketNumber),
      ticketNumber: i.ticketNumber,
      title: i.title,
      status: i.status,
      updatedAt: Number(i.updatedAt),
    }));
    return { items, more: page.more };
  };
  const [ticket, livechat] = [await list("ticket"), await list("livechat")];
  return {
    kind: "user",
    username: person.username,
    name: person.name,
    photo: person.photo,
    type: person.type,
    department: department?.name ?? "",
    status: user.secondStatus || user.status,
    ...(person.email !== undefined ? { email: person.email } : {}),
    conversations: { ticket, livechat },
  };
}

export type VisitorProfile = { name: string; email: string; ticketNumber: number; path: string };

/** The visitor of live chat {n} (uid livechat-{n}), when the viewer may read that chat. */
export async function visitorProfile(viewer: Viewer, uid: string): Promise<VisitorProfile | undefined> {
  const match = /^livechat-(\d{1,12})$/.exec(uid);
  if (!match) return undefined;
  const { db, schema } = getDb();
  const t = schema.tickets;
  const [chat] = await db
    .select({ name: t.contactName, email: t.contactEmail, ticketNumber: t.ticketNumber, kind: t.kind })
    .from(t)
    .where(and(eq(t.ticketNumber, Number(match[1])), eq(t.kind, "livechat"), readableBy(viewer)));
  if (!chat) return undefined;
  return { name: chat.name, email: chat.email, ticketNumber: chat.ticketNumber, path: conversationPath(chat.kind, chat.ticketNumber) };
}
