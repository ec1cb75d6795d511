// Own account (/profile): avatar, name, email and password; and the profile card anyone in the
// shell opens on a person (spec section 2, "Profile modal"), with its JSON twins.
import { and, count, desc, eq, exists, inArray, ne, or, sql } from "drizzle-orm";
import { unstable_parseMultipartFormData, type UploadHandler } from "@remix-run/node";
import { z } from "zod";
import { getDb } from "@db/client";
import { EMAIL_PATTERN } from "~/forms";
import { readableBy, type Reader } from "~/conversation/access.server";
import { listColumns, type ListRow } from "~/conversation/list-columns.server";
import { formatDate } from "~/time";
import { fileStorage } from "~/storage.server";
import { audit } from "./audit.server";
import { tellAccountChanged } from "./security-mail.server";
import { reauthenticate } from "./auth.server";
import { hashPassword } from "./password.server";
import { passwordProblem } from "./password-policy.server";
import { endUserSessions } from "./sessions.server";
import { findUserByUsername, type UserRow } from "./users.server";
import { BOT_USERNAMES } from "./bots";
import { customerProfile, CUSTOMER_LISTS, type CustomerList, type CustomerProfile } from "./customer-profile.server";
import type { Viewer as RuleViewer } from "~/permissions";

// ---- avatar ----

export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;
/** The whole upload form may carry the image and a few short fields. */
const AVATAR_BODY_MAX = AVATAR_MAX_BYTES + 64 * 1024;
const FIELD_MAX = 1000;
export const AVATAR_PATH = "/avatar/";
const KEY = /^[a-f0-9]{32}$/;

export type AvatarType = "image/png" | "image/jpeg" | "image/webp" | "image/gif";

const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));

/** The image type by its first bytes (never by the name or the browser's claim), or null. */
export function imageTypeOf(b: Uint8Array): AvatarType | null {
  if (b.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((x, i) => b[i] === x)) return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 6 && ["GIF87a", "GIF89a"].includes(ascii(b, 0, 6))) return "image/gif";
  if (b.length >= 12 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WEBP") return "image/webp";
  return null;
}

/** Why an upload cannot be an avatar (a translation key), or null. */
export function avatarProblem(bytes: Uint8Array | null | undefined): string | null {
  if (!bytes || bytes.length === 0) return "account.avatarMissing";
  if (bytes.length > AVATAR_MAX_BYTES) return "account.avatarTooLarge";
  if (!imageTypeOf(bytes)) return "account.avatarType";
  return null;
}

/** A body past the avatar form's limit: answered 413. */
export class AvatarBodyTooLarge extends Error {
  constructor() {
    super("The upload is too large.");
  }
}

/**
 * Reads the avatar form: its short text fields and the `photo` file, at most AVATAR_MAX_BYTES
 * kept (a larger one is read to its end only up to the body limit, then refused).
 */
export async function readAvatarForm(request: Request): Promise<{ fields: Record<string, string>; photo: Uint8Array | null; tooLarge: boolean }> {
  if (Number(request.headers.get("Content-Length") ?? 0) > AVATAR_BODY_MAX) throw new AvatarBodyTooLarge();
  const fields: Record<string, string> = {};
  let photo: Uint8Array | null = null;
  let tooLarge = false;
  let total = 0;
  const handler: UploadHandler = async ({ name, filename, data }) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const keep = filename === undefined ? FIELD_MAX : AVATAR_MAX_BYTES;
    for await (const chunk of data) {
      size += chunk.length;
      total += chunk.length;
      if (total > AVATAR_BODY_MAX) throw new AvatarBodyTooLarge();
      if (size <= keep) chunks.push(chunk);
    }
    if (filename === undefined) {
      if (size <= FIELD_MAX && !(name in fields)) fields[name] = Buffer.concat(chunks).toString("utf8");
    } else if (name === "photo" && photo === null && size > 0) {
      if (size > AVATAR_MAX_BYTES) tooLarge = true;
      else photo = new Uint8Array(Buffer.concat(chunks));
    }
    return undefined;
  };
  try {
    await unstable_parseMultipartFormData(request, handler);
  } catch (error) {
    // the parser wraps the handler's error
    if (error instanceof AvatarBodyTooLarge || String(error).includes("The upload is too large")) throw new AvatarBodyTooLarge();
    throw error;
  }
  return { fields, photo, tooLarge };
}

const keyOf = (photo: string | null | undefined) => {
  const key = photo?.startsWith(AVATAR_PATH) ? photo.slice(AVATAR_PATH.length) : "";
  return KEY.test(key) ? key : null;
};

/** Stores a checked image and makes it the user's photo; the previous one is removed. */
export async function setAvatar(user: Pick<UserRow, "id" | "photo">, bytes: Uint8Array): Promise<string | null> {
  const problem = avatarProblem(bytes);
  if (problem) return problem;
  const storage = fileStorage();
  const key = await storage.put(bytes);
  const { db, schema } = getDb();
  try {
    await db
      .update(schema.users)
      .set({ photo: AVATAR_PATH + key })
      .where(eq(schema.users.id, user.id));
  } catch (error) {
    await storage.remove(key);
    throw error;
  }
  const old = keyOf(user.photo);
  if (old) await storage.remove(old);
  return null;
}

export async function removeAvatar(user: Pick<UserRow, "id" | "photo">) {
  const { db, schema } = getDb();
  await db.update(schema.users).set({ photo: null }).where(eq(schema.users.id, user.id));
  const old = keyOf(user.photo);
  if (old) await fileStorage().remove(old);
}

/**
 * An avatar's bytes and type, only for a key that is someone's photo: the file storage also
 * holds conversation attachments, which this must never serve.
 */
export async function avatarFile(key: string): Promise<{ bytes: Uint8Array; type: AvatarType } | undefined> {
  if (!KEY.test(key)) return undefined;
  const { db, schema } = getDb();
  const [owner] = await db
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(eq(schema.users.photo, AVATAR_PATH + key))
    .limit(1);
  if (!owner) return undefined;
  const stream = await fileStorage().get(key);
  if (!stream) return undefined;
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  const type = imageTypeOf(bytes);
  return type ? { bytes, type } : undefined;
}

// ---- name, email, password ----

export const profileSchema = z
  .object({
    name: z.string().trim().min(1, "account.nameRequired").max(100, "account.nameTooLong"),
    email: z.string().trim().toLowerCase().max(254),
  })
  .superRefine((v, ctx) => {
    if (v.email && !EMAIL_PATTERN.test(v.email)) ctx.addIssue({ code: "custom", path: ["email"], message: "account.badEmail", params: { address: v.email } });
  });

export type ProfileRefusal = { errors: Record<string, string>; status: number };

/**
 * Name and email (lower-cased, unique among users; empty allowed). The email is where reset links
 * go, so changing it asks for the current password (counted on the sign-in limit) and the old
 * address is told. Answers field errors with a status, or null when saved.
 */
export async function updateProfile(user: UserRow, input: { name: string; email: string; current?: string }, ip = ""): Promise<ProfileRefusal | null> {
  const { name, email } = profileSchema.parse(input);
  if (email !== user.email) {
    if (!input.current) return { status: 400, errors: { current: "account.currentRequired" } };
    const check = await reauthenticate(user, input.current, ip, "email_change");
    if (!check.ok)
      return check.code === "rate_limited"
        ? { status: 429, errors: { current: "account.tooManyAttempts" } }
        : { status: 400, errors: { current: "account.currentWrong" } };
  }
  const handle = getDb();
  const u = handle.schema.users;
  return handle.transaction(async (tx) => {
    if (email) {
      const [taken] = await tx
        .select({ id: u.id })
        .from(u)
        .where(and(eq(u.email, email), ne(u.id, user.id)))
        .limit(1);
      if (taken) return { status: 409, errors: { email: "account.emailTaken" } };
    }
    await tx.update(u).set({ name, email }).where(eq(u.id, user.id));
    const changed = { ...(name !== user.name ? { name } : {}), ...(email !== user.email ? { email, previousEmail: user.email } : {}) };
    if (Object.keys(changed).length) await audit({ action: "profile.updated", actor: user, target: { type: "user", id: user.id }, detail: changed, ip }, tx);
    // told at the address it had: whoever took over a session cannot hide the change
    if (email !== user.email) await tellAccountChanged(user, "email_changed", { ip, newEmail: email || "-" }, tx);
    return null;
  });
}

export type PasswordChange = { ok: true; endedSessions: number } | { ok: false; errors: Record<string, string>; status: number; message?: string };

/**
 * Changes the signed-in user's password: the current one is required (counted on the account's
 * sign-in limit), the new one must pass the policy and match its
 * confirmation; every other session of the user ends at once.
 */
export async function changePassword(
  auth: { user: UserRow; session: { idHash: string } },
  input: { current: string; password: string; confirm: string },
  ip = "",
): Promise<PasswordChange> {
  const { current, password, confirm } = input;
  if (!current) return { ok: false, status: 400, errors: { current: "account.currentRequired" } };
  const { user } = auth;
  const problem = passwordProblem(password, { username: user.username, email: user.email });
  if (problem) return { ok: false, status: 400, errors: { password: problem } };
  if (password !== confirm) return { ok: false, status: 400, errors: { confirm: "account.passwordMismatch" } };
  // the same per-account counter as sign-in, taken before the check: parallel guesses cannot all pass
  const check = await reauthenticate(user, current, ip, "password_change");
  if (!check.ok && check.code === "rate_limited") return { ok: false, status: 429, errors: {}, message: "account.tooManyAttempts" };
  if (!check.ok) return { ok: false, status: 400, errors: { current: "account.currentWrong" } };
  const hash = await hashPassword(password);
  const handle = getDb();
  await handle.transaction(async (tx) => {
    await tx.update(handle.schema.users).set({ passwordHash: hash }).where(eq(handle.schema.users.id, user.id));
    await audit({ action: "password.changed", actor: user, target: { type: "user", id: user.id }, ip }, tx);
    await tellAccountChanged(user, "password_changed", { ip }, tx);
  });
  return { ok: true, endedSessions: await endUserSessions(user.id, auth.session.idHash) };
}

// ---- the profile card (spec "Profile modal") and its lists ----

/** Senders that are the product's own bots (spec: bot, chatbot, translatebot). */
export { BOT_USERNAMES };
/** Tickets and Live Chat tabs: 10 a page; a customer's activity: 5 (spec section 9). */
export const CARD_PAGE = 10;
export const ACTIVITY_PAGE = 5;
/** Every so many solved conversations make one experience level (the JSON twin's expLevel). */
export const EXP_PER_LEVEL = 25;

export type CardKind = "ticket" | "livechat";
export const CARD_KINDS: readonly CardKind[] = ["ticket", "livechat"];

export type Person =
  | { kind: "user"; id: number; username: string; name: string; photo: string; type: string; email?: string; uid: string }
  | { kind: "bot"; username: string; name: string; photo: string; uid: string }
  | { kind: "visitor"; name: string; photo: string; uid: string }
  | { kind: "contact"; name: string; photo: string; email: string; phone: string; uid: string };

type Viewer = Reader & Pick<UserRow, "id">;

/** A local user (or one of the bots) by username; the email only to themselves and admins. */
export async function personByUsername(viewer: Viewer, username: string): Promise<Person | undefined> {
  if (!username || username.length > 200) return undefined;
  const user = await findUserByUsername(username);
  if (!user) {
    return (BOT_USERNAMES as readonly string[]).includes(username) ? { kind: "bot", username, name: username, photo: "", uid: username } : undefined;
  }
  if ((BOT_USERNAMES as readonly string[]).includes(user.username))
    return { kind: "bot", username: user.username, name: user.name, photo: user.photo ?? "", uid: user.username };
  const seesEmail = viewer.id === user.id || viewer.type === "admin";
  return {
    kind: "user",
    id: user.id,
    username: user.username,
    name: user.name,
    photo: user.photo ?? "",
    type: user.type,
    uid: user.username,
    ...(seesEmail ? { email: user.email } : {}),
  };
}

export type CardItem = ListRow;

/** Where a list item opens (spec section 2: /ticket/{n}, /chat/{n}, /call/{n}, /livechat/{n}). */
export const itemPath = (item: Pick<CardItem, "kind" | "ticketNumber">) =>
  `/${["chat", "call", "livechat"].includes(item.kind) ? item.kind : "ticket"}/${item.ticketNumber}`;

/** Conversations of one kind the user takes part in that the viewer may read, newest first. */
function takesPart(userId: number) {
  const { db, schema } = getDb();
  const p = schema.participants;
  return exists(
    db
      .select({ one: sql`1` })
      .from(p)
      .where(and(eq(p.ticketId, schema.tickets.id), eq(p.userId, userId))),
  );
}

export async function userConversations(viewer: Viewer, userId: number, kind: CardKind, offset: number, limit = CARD_PAGE) {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const rows = await db
    .select(listColumns())
    .from(t)
    .where(and(eq(t.kind, kind), takesPart(userId), readableBy(viewer)))
    .orderBy(desc(t.updatedAt), desc(t.id))
    .limit(limit + 1)
    .offset(Math.max(0, offset));
  return { items: rows.slice(0, limit), more: rows.length > limit };
}

/** Solved (resolved or closed) conversations of this kind the user took part in, among those the viewer may read. */
export async function experience(viewer: Viewer, userId: number, kind: CardKind) {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const [row] = await db
    .select({ n: count() })
    .from(t)
    .where(and(eq(t.kind, kind), inArray(t.status, [2, 3]), takesPart(userId), readableBy(viewer)));
  const exp = Number(row?.n ?? 0);
  return { exp, expLevel: 1 + Math.floor(exp / EXP_PER_LEVEL) };
}

/** Where the customer lists' page sizes come from: activity 5, a kind's tab 10 (spec section 9). */
export const customerPage = (list: CustomerList) => (list === "activity" ? ACTIVITY_PAGE : CARD_PAGE);

/**
 * What the plugins may add to a customer's card (app/accounts/customer-profile.server.ts): the
 * viewer for their menu rules and the edition's plugins. Without it only the host's own match runs.
 */
export type ProfileScope = { viewer: RuleViewer; enabled: readonly string[]; trial: boolean };
type Found = { person: Person; items: CardItem[]; more: boolean };

/**
 * A customer's conversations (by email or phone) the viewer may read, newest first: all of them
 * (activity) or one kind. The contacts plugin, when the edition has it, knows the customer across
 * channels and merges; else the conversations' own email and phone columns are matched as stored.
 */
export async function contactActivity(
  viewer: Viewer,
  who: { email?: string; phone?: string },
  offset: number,
  limit = ACTIVITY_PAGE,
  list: CustomerList = "activity",
  scope?: ProfileScope,
): Promise<Found | undefined> {
  const email = (who.email ?? "").trim();
  const phone = (who.phone ?? "").trim();
  if ((!email && !phone) || email.length > 254 || phone.length > 50) return undefined;
  const known = scope
    ? await customerProfile({ reader: viewer, viewer: scope.viewer, who: { email, phone }, list, offset, limit }, scope.enabled, scope.trial)
    : null;
  // nothing readable: the viewer learns nothing about this person
  if (known) return known.readsAny ? fromProfile(known) : undefined;
  const { db, schema } = getDb();
  const t = schema.tickets;
  const match = or(email ? eq(t.contactEmail, email) : undefined, phone ? eq(t.contactPhone, phone) : undefined);
  const rows = await db
    .select({ ...listColumns(), contactName: t.contactName, contactEmail: t.contactEmail, contactPhone: t.contactPhone })
    .from(t)
    .where(and(match, readableBy(viewer), list === "activity" ? undefined : eq(t.kind, list)))
    .orderBy(desc(t.updatedAt), desc(t.id))
    .limit(limit + 1)
    .offset(Math.max(0, offset));
  let named = rows[0];
  if (!named && list !== "activity") {
    // an empty tab: the person is still known when another kind of theirs may be read
    [named] = await db
      .select({ ...listColumns(), contactName: t.contactName, contactEmail: t.contactEmail, contactPhone: t.contactPhone })
      .from(t)
      .where(and(match, readableBy(viewer)))
      .limit(1);
  }
  if (!named && offset === 0) return undefined;
  const person: Person = {
    kind: "contact",
    name: named?.contactName || email || phone,
    photo: "",
    email: named?.contactEmail || email,
    phone: named?.contactPhone || phone,
    uid: email || phone,
  };
  // the contact columns made the person; the cards are plain list rows
  const items: CardItem[] = rows.slice(0, limit).map(({ contactName, contactEmail, contactPhone, ...item }) => item);
  return { person, items, more: rows.length > limit };
}

const fromProfile = (known: CustomerProfile): Found => ({
  person: { kind: "contact", name: known.name || known.email || known.phone, photo: "", email: known.email, phone: known.phone, uid: known.uid },
  items: known.items,
  more: known.more,
});

/** The customer of a conversation the viewer may read: a live chat's is a visitor, others a contact. */
export async function conversationCustomer(
  viewer: Viewer,
  ref: { number: number } | { id: number },
  offset = 0,
  limit = ACTIVITY_PAGE,
  list: CustomerList = "activity",
  scope?: ProfileScope,
): Promise<Found | undefined> {
  const value = "id" in ref ? ref.id : ref.number;
  if (!Number.isSafeInteger(value)) return undefined;
  const { db, schema } = getDb();
  const t = schema.tickets;
  const [ticket] = await db
    .select()
    .from(t)
    .where(and(eq("id" in ref ? t.id : t.ticketNumber, value), readableBy(viewer)));
  if (!ticket) return undefined;
  if (ticket.kind === "livechat")
    return {
      person: { kind: "visitor", name: ticket.contactName, photo: "", uid: ticket.contactEmail || `livechat-${ticket.ticketNumber}` } as Person,
      items: [],
      more: false,
    };
  // the conversation is readable: its customer may be shown
  const known = scope
    ? await customerProfile({ reader: viewer, viewer: scope.viewer, who: { ticketId: ticket.id }, list, offset, limit }, scope.enabled, scope.trial)
    : null;
  if (known) return fromProfile(known);
  const found = await contactActivity(viewer, { email: ticket.contactEmail, phone: ticket.contactPhone }, offset, limit, list);
  if (found) return found;
  return { person: { kind: "contact", name: ticket.contactName, photo: "", email: "", phone: "", uid: "" } as Person, items: [], more: false };
}

/** What the profile card shows (the modal, and /profile?username=... without JavaScript). */
export type CardPerson = Person extends infer P ? (P extends unknown ? Omit<P, "id"> : never) : never;
export type CardTab = CardKind | "activity";
export type ProfileCardData = {
  person: CardPerson;
  /** the card's tabs: a local user's Tickets and Live Chat; a customer's Activity, Tickets and Live Chat; none for bots and visitors */
  tabs: CardTab[];
  /** the open tab; null for bots and visitors */
  tab: CardTab | null;
  items: { path: string; ticketNumber: number; title: string; status: number; date: string }[];
  more: boolean;
  /** how many items are shown: Load More asks for `step` more on top */
  shown: number;
  step: number;
  /** the query that names this person (username=... or ticket=...), for the card's links */
  query: string;
};

const MAX_SHOWN = 200;
const shownOf = (q: URLSearchParams, page: number) => {
  const asked = Math.floor(Number(q.get("shown")) || page);
  return Math.min(MAX_SHOWN, Math.max(page, Math.ceil(asked / page) * page));
};

/**
 * The card for ?username= (a user or a bot) or ?ticket= (that conversation's customer), with
 * ?tab= and ?shown=; null when unknown or not readable. `scope` lets the contacts plugin name the
 * customer (customer-profile.server.ts).
 */
export async function profileCard(viewer: Viewer, q: URLSearchParams, timeZone: string, scope?: ProfileScope): Promise<ProfileCardData | null> {
  const toItems = (items: CardItem[]) =>
    items.map((i) => ({ path: itemPath(i), ticketNumber: i.ticketNumber, title: i.title, status: i.status, date: formatDate(i.updatedAt, timeZone) }));
  const username = q.get("username");
  if (username !== null) {
    const person = await personByUsername(viewer, username);
    if (!person) return null;
    const query = new URLSearchParams({ username }).toString();
    if (person.kind !== "user") return { person, tabs: [], tab: null, items: [], more: false, shown: 0, step: 0, query };
    const { id, ...shown } = person;
    const tab: CardKind = q.get("tab") === "livechat" ? "livechat" : "ticket";
    const count = shownOf(q, CARD_PAGE);
    const page = await userConversations(viewer, id, tab, 0, count);
    return { person: shown, tabs: [...CARD_KINDS], tab, items: toItems(page.items), more: page.more, shown: count, step: CARD_PAGE, query };
  }
  const number = Number(q.get("ticket"));
  if (!q.get("ticket") || !Number.isSafeInteger(number)) return null;
  const list = CUSTOMER_LISTS.find((l) => l === q.get("tab")) ?? "activity";
  const count = shownOf(q, customerPage(list));
  const found = await conversationCustomer(viewer, { number }, 0, count, list, scope);
  if (!found) return null;
  const customer = found.person.kind === "contact";
  return {
    person: found.person,
    tabs: customer ? [...CUSTOMER_LISTS] : [],
    tab: customer ? list : null,
    items: toItems(found.items),
    more: found.more,
    shown: count,
    step: customerPage(list),
    query: new URLSearchParams({ ticket: String(number) }).toString(),
  };
}
