// User management by admins (/settings/users): the list, create, edit, disable, re-enable, reset
// 2FA. Every change is one transaction with its audit entry; the rules that need the database
// (unique names, the last admin, seats) are checked inside it, after a lock, so two admins
// posting at once cannot both pass.
import { and, asc, eq, inArray, isNull, ne, or, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { z } from "zod";
import { containsText } from "~/sql-contains.server";
import { getDb, type Tx } from "@db/client";
import { formResult } from "~/forms";
import { refuse } from "~/forms.server";
import { disconnectUserSockets, publish } from "~/realtime.server";
import { SERVER_EVENTS } from "~/realtime-events";
import { audit } from "./audit.server";
import { tellAccountChanged } from "./security-mail.server";
import { hashPassword } from "./password.server";
import { passwordProblem, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./password-policy.server";
import { seatsFree } from "./seats.server";
import { emailSchema, optionalEmailSchema, usernameSchema, USERNAME_RULE_VALUES } from "./username";
import { endUserSessions } from "./sessions.server";
import { permissionsOf, type UserRow, type UserType } from "./users.server";

// ---------------------------------------------------------------- rules of the fields

export const NAME_MAX_LENGTH = 100;
export const RANK_MAX = 9_999_999;

/** The permission and hide_* flags an admin may give (spec section 6, read by app/permissions.ts). */
export const PERMISSION_FLAGS = [
  "view_report",
  "view_voicemail",
  "call_settings",
  "hide_chat",
  "hide_contacts",
  "hide_case",
  "hide_calendar",
  "hide_call",
  "hide_kanban",
  "shadow_admin",
] as const;

/** Interpolation values of the rule texts (distinct names: one refusal carries all of them). */
export const RULE_VALUES = {
  ...USERNAME_RULE_VALUES,
  nameMax: String(NAME_MAX_LENGTH),
  rankMax: String(RANK_MAX),
  min: String(PASSWORD_MIN_LENGTH),
  max: String(PASSWORD_MAX_LENGTH),
};

const issue = (ctx: z.RefinementCtx, key: string | null, path?: string) => {
  if (key) ctx.addIssue({ code: "custom", message: key, params: RULE_VALUES, ...(path ? { path: [path] } : {}) });
};

const usernameField = usernameSchema;
const nameField = z
  .string()
  .trim()
  .min(1, "users.rules.nameRequired")
  .superRefine((v, ctx) => issue(ctx, v.length > NAME_MAX_LENGTH ? "users.rules.nameTooLong" : null));
const emailField = (required: boolean) => (required ? emailSchema : optionalEmailSchema);
const typeField = z.enum(["admin", "agent"], { message: "users.rules.typeInvalid" });
/** A department's id, or "" for none. */
const departmentField = z
  .string()
  .regex(/^\d{0,9}$/, "users.rules.departmentUnknown")
  .transform((v) => (v ? Number(v) : null));

/** Create with a password: the admin chose it, so the policy applies here too. */
export const createUserSchema = z
  .object({ username: usernameField, name: nameField, email: emailField(false), type: typeField, department: departmentField, password: z.string() })
  .superRefine((v, ctx) => issue(ctx, passwordProblem(v.password, { username: v.username, email: v.email }), "password"));

/** Invite by email: the invited person chooses the password from the link. */
export const inviteUserSchema = z.object({ username: usernameField, name: nameField, email: emailField(true), type: typeField, department: departmentField });

export const updateUserSchema = z.object({
  name: nameField,
  email: emailField(false),
  type: typeField,
  department: departmentField,
  rank: z
    .string()
    .trim()
    .regex(/^\d{1,7}$/, "users.rules.rankInvalid")
    .transform(Number),
  // checkboxes, one per line (formValues); anything not a known flag is dropped
  permissions: z.string().transform((v) => PERMISSION_FLAGS.filter((p) => v.split("\n").includes(p))),
});

export type CreateUserInput = z.output<typeof createUserSchema>;
export type InviteUserInput = z.output<typeof inviteUserSchema>;
export type UpdateUserInput = z.output<typeof updateUserSchema>;

// ---------------------------------------------------------------- refusals

/** A change the rules refuse: a locale key, the field it belongs to (if any), an HTTP status. */
export class Refused extends Error {
  constructor(
    readonly key: string,
    readonly opts: { field?: string; status?: number; values?: Record<string, string> } = {},
  ) {
    super(key);
  }
}

export type Actor = { id: number; name: string };

// ---------------------------------------------------------------- reading

export type AccountStatus = "active" | "disabled" | "invited";

/** Invited: has neither a password nor a single sign-on identity yet (and is not disabled). */
export function accountStatus(user: Pick<UserRow, "disabledAt" | "passwordHash">, hasIdentity: boolean): AccountStatus {
  if (user.disabledAt) return "disabled";
  return !user.passwordHash && !hasIdentity ? "invited" : "active";
}

async function usersWithIdentity(ids: number[], tx?: Tx) {
  if (!ids.length) return new Set<number>();
  const { db, schema } = getDb();
  const rows = await (tx ?? db)
    .selectDistinct({ userId: schema.userIdentities.userId })
    .from(schema.userIdentities)
    .where(inArray(schema.userIdentities.userId, ids));
  return new Set(rows.map((r) => r.userId));
}

const contains = containsText;

export const SEARCH_MAX_LENGTH = 100;

/** Every user (or those whose name, username or email contains `search`), by name. */
export async function listUsers(search = "") {
  const { db, schema } = getDb();
  const u = schema.users;
  const q = search.trim().slice(0, SEARCH_MAX_LENGTH);
  const rows = await db
    .select({ user: u, department: schema.departments.name })
    .from(u)
    .leftJoin(schema.departments, eq(schema.departments.id, u.departmentId))
    .where(q ? or(contains(u.name, q), contains(u.username, q), contains(u.email, q)) : undefined)
    .orderBy(asc(u.name), asc(u.id));
  const sso = await usersWithIdentity(rows.map((r) => r.user.id));
  return rows.map(({ user, department }) => ({
    id: user.id,
    name: user.name,
    username: user.username,
    email: user.email,
    type: user.type as UserType,
    department: department ?? "",
    status: accountStatus(user, sso.has(user.id)),
    tfa: user.totpEnabled,
  }));
}

/** One user for the edit page, with what the page offers (resend invite, reset 2FA). */
export async function userDetail(id: number) {
  const { db, schema } = getDb();
  const [user] = await db.select().from(schema.users).where(eq(schema.users.id, id));
  if (!user) return undefined;
  const sso = await usersWithIdentity([id]);
  const t = schema.oneTimeTokens;
  const [invite] = await db
    .select({ expiresAt: t.expiresAt })
    .from(t)
    .where(and(eq(t.userId, id), eq(t.purpose, "invite"), isNull(t.usedAt)))
    .orderBy(sql`${t.expiresAt} desc`)
    .limit(1);
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    email: user.email,
    type: user.type as UserType,
    departmentId: user.departmentId,
    rank: user.rank,
    permissions: permissionsOf(user),
    status: accountStatus(user, sso.has(id)),
    disabledAt: user.disabledAt,
    tfa: user.totpEnabled,
    inviteExpiresAt: invite?.expiresAt ?? null,
  };
}

// ---------------------------------------------------------------- checks inside a change

/** Any fixed number: the PostgreSQL advisory lock that serialises account changes. */
const ACCOUNTS_LOCK = 731_015;

/** Call first in a transaction that adds accounts or changes who is an active admin. */
export async function lockAccounts(tx: Tx) {
  // SQLite transactions are BEGIN IMMEDIATE and queued already
  if (getDb().dialect === "pg") await (tx as unknown as { execute(q: SQL): Promise<unknown> }).execute(sql`select pg_advisory_xact_lock(${ACCOUNTS_LOCK})`);
}

async function assertUnique(tx: Tx, input: { username?: string; email: string }, exceptId?: number) {
  const { schema } = getDb();
  const u = schema.users;
  const other = (cond: SQL) => (exceptId ? and(cond, ne(u.id, exceptId))! : cond);
  if (input.username !== undefined) {
    const [taken] = await tx
      .select({ id: u.id })
      .from(u)
      .where(other(sql`lower(${u.username}) = ${input.username.toLowerCase()}`))
      .limit(1);
    if (taken) throw new Refused("users.rules.usernameTaken", { field: "username", status: 409 });
  }
  if (input.email) {
    const [taken] = await tx
      .select({ id: u.id })
      .from(u)
      .where(other(eq(u.email, input.email)))
      .limit(1);
    if (taken) throw new Refused("users.rules.emailTaken", { field: "email", status: 409 });
  }
}

async function assertDepartment(tx: Tx, departmentId: number | null) {
  if (departmentId === null) return;
  const { schema } = getDb();
  const [found] = await tx.select({ id: schema.departments.id }).from(schema.departments).where(eq(schema.departments.id, departmentId));
  if (!found) throw new Refused("users.rules.departmentUnknown", { field: "department" });
}

/** One more account must fit in the seats (see seats.server.ts). */
export async function assertSeat(tx: Tx) {
  const seats = await seatsFree(1, tx);
  if (!seats.ok) throw new Refused(seats.trial ? "users.seats.trialFull" : "users.seats.full", { status: 409, values: { limit: String(seats.limit) } });
}

/** Admins who can sign in: not disabled, and past their invite. */
async function activeAdminIds(tx: Tx) {
  const { schema } = getDb();
  const u = schema.users;
  const rows = await tx
    .select({ id: u.id, disabledAt: u.disabledAt, passwordHash: u.passwordHash })
    .from(u)
    .where(and(eq(u.type, "admin"), isNull(u.disabledAt)));
  const sso = await usersWithIdentity(
    rows.map((r) => r.id),
    tx,
  );
  return rows.filter((r) => accountStatus(r, sso.has(r.id)) === "active").map((r) => r.id);
}

/** The workspace must keep an admin who can sign in. */
async function assertNotLastAdmin(tx: Tx, userId: number, field?: string) {
  const admins = await activeAdminIds(tx);
  if (admins.includes(userId) && admins.length === 1) throw new Refused("users.lastAdmin", { field, status: 409 });
}

async function lockedUser(tx: Tx, id: number) {
  await lockAccounts(tx);
  const { schema } = getDb();
  const [user] = await tx.select().from(schema.users).where(eq(schema.users.id, id));
  if (!user) throw new Refused("users.notFound", { status: 404 });
  return user;
}

// ---------------------------------------------------------------- changes

/** A new account with a password the admin chose. */
export async function createUser(actor: Actor, input: CreateUserInput, ip = "") {
  const passwordHash = await hashPassword(input.password); // slow: before the transaction
  const handle = getDb();
  return handle.transaction(async (tx) => {
    await lockAccounts(tx);
    const id = await insertUser(tx, input, passwordHash);
    await audit(
      {
        action: "user.created",
        actor,
        target: { type: "user", id },
        detail: { username: input.username, type: input.type, email: input.email, departmentId: input.department },
        ip,
      },
      tx,
    );
    return id;
  });
}

/** An account without a usable password (the invite sets one); the caller issues the link in `tx`. */
export function insertInvitedUser(tx: Tx, input: InviteUserInput) {
  return insertUser(tx, input, "");
}

/** The rules every new account passes (unique, a real department, a free seat), then the row. */
async function insertUser(tx: Tx, input: InviteUserInput, passwordHash: string) {
  const { schema } = getDb();
  await assertUnique(tx, input);
  await assertDepartment(tx, input.department);
  await assertSeat(tx);
  const [row] = await tx
    .insert(schema.users)
    .values({
      username: input.username,
      name: input.name,
      email: input.email,
      type: input.type,
      departmentId: input.department,
      passwordHash,
      createdAt: Date.now(),
    })
    .returning({ id: schema.users.id });
  return row.id;
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** Name, email, department, type, rank and permissions; answers the names of the fields changed. */
export async function updateUser(actor: Actor, id: number, input: UpdateUserInput, ip = "") {
  const handle = getDb();
  const { schema } = handle;
  const result = await handle.transaction(async (tx) => {
    const user = await lockedUser(tx, id);
    await assertUnique(tx, { email: input.email }, id);
    await assertDepartment(tx, input.department);
    if (user.type === "admin" && input.type !== "admin") await assertNotLastAdmin(tx, id, "type");
    const before = { name: user.name, email: user.email, type: user.type, departmentId: user.departmentId, rank: user.rank, permissions: permissionsOf(user) };
    const after = { name: input.name, email: input.email, type: input.type, departmentId: input.department, rank: input.rank, permissions: input.permissions };
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const key of Object.keys(before) as (keyof typeof before)[]) {
      const [from, to] = [before[key], after[key]];
      if (Array.isArray(from) && Array.isArray(to) ? !sameList(from, to) : from !== to) changes[key] = { from, to };
    }
    if (!Object.keys(changes).length) return { changed: [] as string[], before };
    await tx
      .update(schema.users)
      .set({ ...after, permissions: JSON.stringify(after.permissions) })
      .where(eq(schema.users.id, id));
    await audit({ action: "user.updated", actor, target: { type: "user", id }, detail: { username: user.username, changes }, ip }, tx);
    return { changed: Object.keys(changes), before };
  });
  const { changed, before } = result;
  if (changed.length) {
    // sockets join their department's room and learn shadow_admin when they connect: those
    // changes take a reconnect; any other change reloads the user's open pages (menu rules)
    const shadow = (list: string[]) => list.includes("shadow_admin");
    if (changed.includes("departmentId") || shadow(before.permissions) !== shadow(input.permissions)) disconnectUserSockets(id);
    else publish(`user:${id}`, SERVER_EVENTS.settingsChanged, {});
  }
  return changed;
}

/** Disabled: no sign-in, every session ends at once; tickets and history stay. */
export async function disableUser(actor: Actor, id: number, ip = "") {
  const handle = getDb();
  const { schema } = handle;
  const done = await handle.transaction(async (tx) => {
    const user = await lockedUser(tx, id);
    if (user.disabledAt) return false;
    if (id === actor.id) throw new Refused("users.cannotDisableSelf", { status: 409 });
    await assertNotLastAdmin(tx, id);
    await tx.update(schema.users).set({ disabledAt: Date.now() }).where(eq(schema.users.id, id));
    await audit({ action: "user.disabled", actor, target: { type: "user", id }, detail: { username: user.username }, ip }, tx);
    return true;
  });
  // after the commit: a session checked from now on finds the user disabled anyway
  if (done) await endUserSessions(id);
  return done;
}

/** Enabled again, if a seat is free. */
export async function enableUser(actor: Actor, id: number, ip = "") {
  const handle = getDb();
  const { schema } = handle;
  return handle.transaction(async (tx) => {
    const user = await lockedUser(tx, id);
    if (!user.disabledAt) return false;
    await assertSeat(tx);
    await tx.update(schema.users).set({ disabledAt: null }).where(eq(schema.users.id, id));
    await audit({ action: "user.enabled", actor, target: { type: "user", id }, detail: { username: user.username }, ip }, tx);
    return true;
  });
}

/** For a user who lost their authenticator: they sign in with the password alone and may set it up again. */
export async function resetTfa(actor: Actor, id: number, ip = "") {
  const handle = getDb();
  const { schema } = handle;
  return handle.transaction(async (tx) => {
    const user = await lockedUser(tx, id);
    if (!user.totpEnabled && !user.totpSecret) return false;
    await tx.update(schema.users).set({ totpEnabled: false, totpSecret: null, totpLastStep: 0 }).where(eq(schema.users.id, id));
    await audit({ action: "user.tfa_reset", actor, target: { type: "user", id }, detail: { username: user.username }, ip }, tx);
    await tellAccountChanged(user, "tfa_reset", { ip }, tx);
    return true;
  });
}

/** A refusal as the form's answer (FormResult and status); anything else is thrown on. */
export function refusal(error: unknown, intent: string, values: Record<string, string>) {
  if (!(error instanceof Refused)) throw error;
  const { field, status, values: messageValues } = error.opts;
  return refuse(
    formResult({ intent, values, errors: field ? { [field]: error.key } : {}, message: field ? undefined : error.key, messageValues }),
    status ?? 400,
  );
}
