// The first run: an install with no users is "empty"; its first admin and the workspace are made
// together, by the one-time setup page (token printed on the console), by sign-up of a trial
// workspace (SIGNUP_OPEN=1), or by `npm run user:create -- --admin`. One workspace per install.
import { redirect } from "@remix-run/node";
import { z } from "zod";
import { getDb, type DbHandle, type Tx } from "@db/client";
import { LANGUAGES, type Language } from "~/i18n";
import { SETTING_DEFAULTS, type SettingKey } from "~/models/settings.server";
import { DEMO_SURVEY_FIELDS } from "~/seed/seed-forms";
import { formError, formResult, formValues, type FormResult } from "~/forms";
import { audit } from "./audit.server";
import { hashPassword } from "./password.server";
import { completeSignIn } from "./auth.server";
import { sessionCookie } from "~/cookies.server";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordProblem } from "./password-policy.server";
import { consumeOneTimeToken, issueOneTimeToken, peekOneTimeToken } from "./one-time-tokens.server";
import { emailSchema, usernameSchema } from "./username";
import type { UserRow } from "./users.server";
import { emailTaken, usernameTaken } from "./username.server";
import { newPublicToken } from "./public-tokens.server";

export const SETUP_LINK_TTL_MS = 24 * 60 * 60 * 1000;
export const TRIAL_DAYS = 14;
/** Users a trial workspace may have (the payment plugin sells more). */
export const WORKSPACE_NAME_MAX = 100;
export const PERSON_NAME_MAX = 100;
/** A password field is read up to this length; the policy refuses anything over its own maximum. */
const PASSWORD_READ_MAX = 1024;

/** Public pages a workspace gets a random token for: live chat, new ticket and its first survey. */
const PUBLIC_KINDS = ["livechat", "new_ticket", "survey"] as const;
export type WorkspaceTokens = Record<(typeof PUBLIC_KINDS)[number], string>;

// once an install has a user it never becomes empty again (accounts are disabled, not deleted),
// so only that answer is kept; an empty one is asked again (another node may have set it up)
const settled = new WeakSet<DbHandle>();

export async function installIsEmpty(tx?: Tx) {
  const handle = getDb();
  if (!tx && settled.has(handle)) return false;
  const rows = await (tx ?? handle.db).select({ id: handle.schema.users.id }).from(handle.schema.users).limit(1);
  if (rows.length) settled.add(handle);
  return rows.length === 0;
}

/** SIGNUP_OPEN=1: visitors may create the (trial) workspace of an empty install. */
export const signupOpen = () => process.env.SIGNUP_OPEN === "1";

/** A new setup token when the install is empty (each server start prints one), else undefined. */
export async function issueSetupToken() {
  if (!(await installIsEmpty())) return undefined;
  return issueOneTimeToken("setup", { ttlMs: SETUP_LINK_TTL_MS });
}

/** Whether the setup page should open its form for this token (the post still checks it again). */
export async function setupTokenValid(token: string | undefined) {
  return !!(await peekOneTimeToken("setup", token));
}

export const timeZones = () => Intl.supportedValuesOf("timeZone");
const isTimeZone = (value: string) => value === "UTC" || timeZones().includes(value);

/** The setup and sign-up form. The password is checked against the policy by the caller (it names the reason). */
export const workspaceFormSchema = z.object({
  workspace: z.string().trim().min(1, "setup.form.workspaceRequired").max(WORKSPACE_NAME_MAX, "setup.form.tooLong"),
  timezone: z.string().refine(isTimeZone, "setup.form.timezoneInvalid"),
  language: z.enum(LANGUAGES, { message: "setup.form.languageInvalid" }),
  username: usernameSchema,
  name: z.string().trim().min(1, "setup.form.nameRequired").max(PERSON_NAME_MAX, "setup.form.tooLong"),
  email: emailSchema,
  password: z.string().max(PASSWORD_READ_MAX, "password.tooLong"),
});
/** The password last: it is never sent back. */
export const WORKSPACE_FORM_FIELDS = ["workspace", "timezone", "language", "username", "name", "email", "password"] as const;

/**
 * The setup and sign-up form read: a refusal (what was typed kept, the password never) or the
 * workspace to create, its admin's password hashed already.
 */
export async function readWorkspaceForm(form: FormData): Promise<{ ok: true; workspace: NewWorkspace } | { ok: false; result: FormResult }> {
  const typed = formValues(form, WORKSPACE_FORM_FIELDS);
  const values = formValues(form, WORKSPACE_FORM_FIELDS.slice(0, -1));
  const parsed = workspaceFormSchema.safeParse(typed);
  const policy = passwordProblem(typed.password, { username: typed.username.trim(), email: typed.email.trim() });
  const passwordValues = { min: String(PASSWORD_MIN_LENGTH), max: String(PASSWORD_MAX_LENGTH) };
  if (!parsed.success || policy) {
    const result = parsed.success ? formResult({ values }) : formError(parsed.error, values);
    if (policy) result.errors.password ??= policy;
    result.messageValues = { ...result.messageValues, ...passwordValues };
    return { ok: false, result };
  }
  const { workspace, timezone, language, username, name, email, password } = parsed.data;
  return {
    ok: true,
    workspace: { name: workspace, timeZone: timezone, language, admin: { username, name, email, passwordHash: await hashPassword(password) } },
  };
}

export interface NewWorkspace {
  name: string;
  timeZone: string;
  language: Language;
  admin: {
    username: string;
    name: string;
    email: string;
    /** A hash made before the transaction (scrypt is not a database call); null: no usable password yet. */
    passwordHash: string | null;
  };
}

export type HowCreated = { via: "setup"; setupToken: string } | { via: "signup" } | { via: "cli" };

/** The install has a user already: one workspace per install. */
export class WorkspaceExists extends Error {}
/** The setup link is unknown, expired or used. */
export class SetupTokenInvalid extends Error {}

/** A settings row written once, by the transaction that creates the workspace. */
const CREATED_MARKER = "workspace_created_at";

/**
 * Creates the workspace of an empty install in ONE transaction: its first admin, its settings
 * (a trial when signed up), random public tokens with a first survey, the audit entries, and uses
 * the setup token; an admin without a password gets a set-password link (`invite`). Throws
 * WorkspaceExists or SetupTokenInvalid and then nothing is written.
 */
export async function createWorkspace(input: NewWorkspace, how: HowCreated, opts: { ip?: string; now?: number } = {}) {
  const handle = getDb();
  const { schema } = handle;
  const now = opts.now ?? Date.now();
  const trial = how.via === "signup";
  const tokens = Object.fromEntries(PUBLIC_KINDS.map((kind) => [kind, newPublicToken()])) as WorkspaceTokens;
  const settings: Partial<Record<SettingKey, string>> = {
    admin_name: input.name,
    admin_username: input.admin.username,
    timezone: input.timeZone,
    language: input.language,
    account_type: trial ? "0" : "1",
    // the demo's department ids (2: Support) are not there in a new workspace
    new_ticket_department: "",
    livechat_department: "",
    ...(trial ? { plan: "0", account_expires_at: String(now + TRIAL_DAYS * 24 * 60 * 60 * 1000) } : {}),
  };
  const create = handle.transaction(async (tx) => {
    // first: a row only one transaction can add. On PostgreSQL a second creator waits here for the
    // first to commit and then fails (reading "no users" would not stop it); SQLite runs one at a time
    await tx.insert(schema.settings).values({ key: CREATED_MARKER, value: String(now) });
    if (!(await installIsEmpty(tx))) throw new WorkspaceExists();
    if (how.via === "setup" && !(await consumeOneTimeToken("setup", how.setupToken, tx))) throw new SetupTokenInvalid();
    const [created] = await tx
      .insert(schema.users)
      .values({
        username: input.admin.username,
        name: input.admin.name,
        type: "admin",
        email: input.admin.email,
        passwordHash: input.admin.passwordHash ?? "",
        language: input.language,
        createdAt: now,
      })
      .returning();
    for (const [key, value] of Object.entries(settings))
      await tx.insert(schema.settings).values({ key, value }).onConflictDoUpdate({ target: schema.settings.key, set: { value } });
    await tx.insert(schema.publicTokens).values(PUBLIC_KINDS.map((kind) => ({ kind, token: tokens[kind], createdAt: now })));
    await tx.insert(schema.surveys).values({
      token: tokens.survey,
      title: "Customer satisfaction",
      fields: JSON.stringify(DEMO_SURVEY_FIELDS),
      createdAt: now,
      updatedAt: now,
    });
    const actor = { id: created.id, name: created.name };
    await audit(
      { action: "workspace.created", actor, target: { type: "workspace", id: 1 }, detail: { via: how.via, trial, name: input.name }, ip: opts.ip },
      tx,
    );
    await audit(
      {
        action: "user.created",
        actor,
        target: { type: "user", id: created.id },
        detail: { username: created.username, type: "admin", via: how.via },
        ip: opts.ip,
      },
      tx,
    );
    return { user: created, invite: input.admin.passwordHash ? undefined : await issueInviteToken(created.id, created.email, tx) };
  });
  let made: Awaited<typeof create>;
  try {
    made = await create;
  } catch (error) {
    if (!(error instanceof WorkspaceExists) && !(await installIsEmpty())) throw new WorkspaceExists();
    throw error;
  }
  const { user, invite } = made;
  settled.add(handle);
  return { user, tokens, invite };
}

export class UserTaken extends Error {
  constructor(readonly field: "username" | "email") {
    super(field === "username" ? "This username is already taken." : "An account with this email already exists.");
  }
}
export class FirstUserMustBeAdmin extends Error {}

/**
 * `npm run user:create`: a user with no usable password and a one-time link (7 days) to set one.
 * On an empty install the user must be an admin and the workspace is created with them.
 */
export async function createUserFromCli(
  input: { username: string; name: string; email: string; admin: boolean; workspace?: string },
  now = Date.now(),
): Promise<{ user: UserRow; tokens?: WorkspaceTokens; invite: string }> {
  const handle = getDb();
  const { schema } = handle;
  const person = { username: input.username, name: input.name, email: input.email, passwordHash: null };
  if (await installIsEmpty()) {
    if (!input.admin) throw new FirstUserMustBeAdmin("The first user of an empty install must be an admin: add --admin.");
    try {
      const workspace = { name: input.workspace || input.name, timeZone: SETTING_DEFAULTS.timezone, language: SETTING_DEFAULTS.language, admin: person };
      const { user, tokens, invite } = await createWorkspace(workspace, { via: "cli" }, { now });
      return { user, tokens, invite: invite! };
    } catch (error) {
      // set up meanwhile (the page, another command): add the user to it as to any workspace
      if (!(error instanceof WorkspaceExists)) throw error;
    }
  }
  return handle.transaction(async (tx) => {
    if (await usernameTaken(input.username, {}, tx)) throw new UserTaken("username");
    if (await emailTaken(input.email, {}, tx)) throw new UserTaken("email");
    const [created] = await tx
      .insert(schema.users)
      .values({ username: input.username, name: input.name, type: input.admin ? "admin" : "agent", email: input.email, passwordHash: "", createdAt: now })
      .returning();
    await audit(
      { action: "user.created", target: { type: "user", id: created.id }, detail: { username: created.username, type: created.type, via: "cli" } },
      tx,
    );
    return { user: created, invite: await issueInviteToken(created.id, created.email, tx) };
  });
}

export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const issueInviteToken = (userId: number, email: string, tx: Tx) => issueOneTimeToken("invite", { userId, email, ttlMs: INVITE_TTL_MS }, tx);

/** Where the app is reached, for links printed on the console: BASE_URL, else this machine. */
export const baseUrl = (port: number | string = process.env.PORT || 3000) => (process.env.BASE_URL || `http://localhost:${port}`).replace(/\/+$/, "");
export const setupUrl = (token: string, port?: number) => `${baseUrl(port)}/setup?token=${token}`;
/** The address of a set-password link (the page /invite/:token). */
export const inviteUrl = (token: string) => `${baseUrl()}/invite/${token}`;

/** The page's loader data shared by /setup and /signup: the defaults of the workspace form. */
export function workspaceFormDefaults(language: string, token?: string) {
  return { timezone: SETTING_DEFAULTS.timezone, language, timeZones: timeZones(), passwordMin: PASSWORD_MIN_LENGTH, ...(token ? { token } : {}) };
}

/** After creating the workspace its admin is signed in (a new session, as the login form does) and lands home. */
export async function signInCreatedAdmin(request: Request, user: Pick<UserRow, "id" | "name">, ip: string) {
  const { token } = await completeSignIn(user, { ip, userAgent: request.headers.get("User-Agent") ?? "", method: "setup" });
  return redirect("/", { headers: { "Set-Cookie": await sessionCookie().serialize(token) } });
}
