// User management by admins on both dialects: the rules of the forms, unique names, the last admin,
// seats, disabling (sessions end), invites (single use), and the 403 of an agent.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { authenticate } from "~/accounts/auth.server";
import { createSession, findSession } from "~/accounts/sessions.server";
import { setSetting } from "~/models/settings.server";
import { addParticipant, staffList } from "~/conversation/model.server";
import {
  createUser,
  createUserSchema,
  disableUser,
  enableUser,
  inviteUserSchema,
  listUsers,
  Refused,
  resetTfa,
  updateUser,
  updateUserSchema,
  userDetail,
} from "~/accounts/users-admin.server";
import { acceptInvite, inviteUser, openInvite, resendInvite } from "~/accounts/invites.server";
import { seatLimitOf } from "~/accounts/seats.server";
import { action as usersAction, loader as usersLoader } from "~/accounts/routes/settings.users";
import { action as userAction } from "~/accounts/routes/settings.user";

const PASSWORD = "Velvet-Kettle-Orbit-42";
const ip = "203.0.113.9";
const admin = { id: 1, name: "Demo Admin" };
const ctx = { origin: "http://localhost", product: "OmniDesk", ip };
const adminReader = { ...admin, username: "admin", type: "admin" as const, departmentId: null };

const form = (fields: Record<string, string>) => ({
  username: "",
  name: "",
  email: "",
  type: "agent",
  department: "",
  password: PASSWORD,
  ...fields,
});
const newUser = (fields: Record<string, string>) => createUser(admin, createUserSchema.parse(form(fields)), ip);
const invite = (fields: Record<string, string>) => inviteUser(admin, inviteUserSchema.parse(form(fields)), ctx);
const tokenOf = (link: string) => link.split("/invite/")[1];
const edit = (id: number, fields: Record<string, string>) =>
  updateUserSchema.parse({ name: "Someone", email: "", type: "agent", department: "", rank: "9999999", permissions: "", ...fields });

/** The key of the refusal `run` ends in. */
async function refusal(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    if (error instanceof Refused) return error.key;
    throw error;
  }
  return "accepted";
}

/** The first error key of a schema's refusal per field. */
function schemaErrors(result: { success: boolean; error?: { issues: { path: (string | number)[]; message: string }[] } }) {
  return Object.fromEntries((result.error?.issues ?? []).map((i) => [String(i.path[0]), i.message]));
}

describe.each(DIALECTS)("user management on %s", (dialect) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 5 });
  });
  afterAll(async () => t?.cleanup());
  afterEach(async () => {
    await setSetting("seats", "0");
    await setSetting("account_type", "1");
    delete process.env.SMTP_URL;
  });

  const auditOf = async (action: string, targetId: number) => {
    const { db, schema } = t.handle;
    const a = schema.auditLog;
    return db
      .select()
      .from(a)
      .where(and(eq(a.action, action), eq(a.targetId, String(targetId))));
  };

  describe("the form rules", () => {
    it("refuses a username with spaces or of 500 characters, with the reason", () => {
      expect(schemaErrors(createUserSchema.safeParse(form({ username: "has space", name: "N" })))).toMatchObject({ username: "setup.rules.usernameChars" });
      expect(schemaErrors(createUserSchema.safeParse(form({ username: "x".repeat(500), name: "N" })))).toMatchObject({
        username: "setup.rules.usernameLength",
      });
      expect(createUserSchema.safeParse(form({ username: "  nadia.k  ", name: "N" })).data?.username).toBe("nadia.k");
    });

    it("applies the password policy and asks invites for an email", () => {
      expect(schemaErrors(createUserSchema.safeParse(form({ username: "shorty", name: "N", password: "short" })))).toMatchObject({
        password: "password.tooShort",
      });
      expect(schemaErrors(createUserSchema.safeParse(form({ username: "commoner", name: "N", password: "password1234" })))).toMatchObject({
        password: "password.common",
      });
      expect(schemaErrors(inviteUserSchema.safeParse(form({ username: "nomail", name: "N" })))).toMatchObject({ email: "setup.rules.emailRequired" });
      expect(schemaErrors(updateUserSchema.safeParse({ name: "N", email: "", type: "agent", department: "", rank: "1.5", permissions: "" }))).toMatchObject({
        rank: "users.rules.rankInvalid",
      });
    });
  });

  describe("create", () => {
    it("creates a user who can sign in, with an audit entry", async () => {
      const id = await newUser({ username: "Nadia", name: "Nadia K", email: "Nadia@Example.com", department: "2" });
      const detail = await userDetail(id);
      expect(detail).toMatchObject({ username: "Nadia", email: "nadia@example.com", departmentId: 2, status: "active", type: "agent" });
      expect((await authenticate({ username: "Nadia", password: PASSWORD, type: "agent", ip })).ok).toBe(true);
      expect(await auditOf("user.created", id)).toHaveLength(1);
      expect((await listUsers("nadia@")).map((u) => u.username)).toEqual(["Nadia"]);
    });

    it("refuses duplicate usernames (in any case) and emails, and writes nothing", async () => {
      const before = (await listUsers()).length;
      expect(await refusal(() => newUser({ username: "NADIA", name: "Other" }))).toBe("users.rules.usernameTaken");
      expect(await refusal(() => newUser({ username: "nadia2", name: "Other", email: "NADIA@example.com" }))).toBe("users.rules.emailTaken");
      expect(await refusal(() => invite({ username: "nadia3", name: "Other", email: "nadia@example.com" }))).toBe("users.rules.emailTaken");
      expect(await refusal(() => newUser({ username: "nadia4", name: "Other", department: "999" }))).toBe("users.rules.departmentUnknown");
      expect((await listUsers()).length).toBe(before);
    });
  });

  describe("the last admin", () => {
    it("cannot be demoted or disabled; an invited admin does not count", async () => {
      await invite({ username: "pending-boss", name: "Pending Boss", email: "pending-boss@example.com", type: "admin" });
      expect(await refusal(() => updateUser(admin, 1, edit(1, { name: "Demo Admin", type: "agent" }), ip))).toBe("users.lastAdmin");
      expect(await refusal(() => disableUser({ id: 999, name: "Someone" }, 1, ip))).toBe("users.lastAdmin");
      expect(await refusal(() => disableUser(admin, 1, ip))).toBe("users.cannotDisableSelf");
      expect((await userDetail(1))?.type).toBe("admin");
      expect((await userDetail(1))?.disabledAt).toBeNull();
    });

    it("can be demoted once another admin can sign in", async () => {
      const boss = await newUser({ username: "boss2", name: "Second Boss", type: "admin" });
      expect(await updateUser(admin, 1, edit(1, { name: "Demo Admin", type: "agent" }), ip)).toEqual(["type"]);
      // now boss2 is the last one
      expect(await refusal(() => disableUser(admin, boss, ip))).toBe("users.lastAdmin");
      expect(await updateUser({ id: boss, name: "Second Boss" }, 1, edit(1, { name: "Demo Admin", type: "admin" }), ip)).toEqual(["type"]);
    });
  });

  describe("seats", () => {
    it("follows the payment plugin's quantity, trial seats on a trial, no limit when nothing was bought", () => {
      expect(seatLimitOf({ account_type: "1", seats: "0", trial_seats: "3" })).toBeNull();
      expect(seatLimitOf({ account_type: "1", seats: "7", trial_seats: "3" })).toBe(7);
      expect(seatLimitOf({ account_type: "0", seats: "7", trial_seats: "3" })).toBe(3);
    });

    it("refuses to add or re-enable a user beyond the seats", async () => {
      const used = (await listUsers()).filter((u) => u.status !== "disabled").length;
      const spare = await newUser({ username: "spare", name: "Spare" });
      await disableUser(admin, spare, ip);
      await setSetting("seats", String(used));
      expect(await refusal(() => newUser({ username: "one-too-many", name: "Too Many" }))).toBe("users.seats.full");
      expect(await refusal(() => invite({ username: "one-too-many", name: "Too Many", email: "many@example.com" }))).toBe("users.seats.full");
      expect(await refusal(() => enableUser(admin, spare, ip))).toBe("users.seats.full");
      await setSetting("account_type", "0");
      expect(await refusal(() => newUser({ username: "one-too-many", name: "Too Many" }))).toBe("users.seats.trialFull");
      await setSetting("account_type", "1");
      await setSetting("seats", String(used + 1));
      expect(await enableUser(admin, spare, ip)).toBe(true);
      expect(await auditOf("user.enabled", spare)).toHaveLength(1);
      expect((await listUsers()).find((u) => u.username === "one-too-many")).toBeUndefined();
    });
  });

  describe("edit and disable", () => {
    it("records the changed fields and applies permissions", async () => {
      const id = await newUser({ username: "editme", name: "Edit Me" });
      const changed = await updateUser(
        admin,
        id,
        edit(id, { name: "Edited", rank: "5", department: "1", permissions: "view_report\nhide_chat\nnot_a_flag" }),
        ip,
      );
      expect(changed.sort()).toEqual(["departmentId", "name", "permissions", "rank"]);
      expect((await userDetail(id))?.permissions).toEqual(["view_report", "hide_chat"]);
      const [entry] = await auditOf("user.updated", id);
      expect(JSON.parse(entry.detail).changes.rank).toEqual({ from: 9999999, to: 5 });
      expect(await updateUser(admin, id, edit(id, { name: "Edited", rank: "5", department: "1", permissions: "hide_chat\nview_report" }), ip)).toEqual([]);
    });

    it("ends every session at once and takes the user out of the pickers; their tickets stay", async () => {
      const id = await newUser({ username: "leaver", name: "Leaver" });
      const { token } = await createSession(id);
      const { db, schema } = t.handle;
      const [ticket] = await db.select().from(schema.tickets).limit(1);
      expect(await addParticipant(adminReader, ticket, "leaver", true)).toBe(true);
      expect(await findSession(token)).toBeDefined();
      expect(await disableUser(admin, id, ip)).toBe(true);
      expect(await findSession(token)).toBeUndefined();
      expect(await db.select().from(schema.sessions).where(eq(schema.sessions.userId, id))).toHaveLength(0);
      expect((await staffList()).map((s) => s.username)).not.toContain("leaver");
      expect(await addParticipant(adminReader, ticket, "leaver", false)).toBe(false);
      expect(await db.select().from(schema.participants).where(eq(schema.participants.userId, id))).toHaveLength(1);
      expect((await authenticate({ username: "leaver", password: PASSWORD, type: "agent", ip })).ok).toBe(false);
      expect(await auditOf("user.disabled", id)).toHaveLength(1);
      expect((await userDetail(id))?.status).toBe("disabled");
    });

    it("resets two-factor sign-in", async () => {
      const id = await newUser({ username: "lost-phone", name: "Lost Phone" });
      const { db, schema } = t.handle;
      await db.update(schema.users).set({ totpEnabled: true, totpSecret: "JBSWY3DPEHPK3PXP" }).where(eq(schema.users.id, id));
      expect(await resetTfa(admin, id, ip)).toBe(true);
      expect(await userDetail(id)).toMatchObject({ tfa: false });
      expect(await auditOf("user.tfa_reset", id)).toHaveLength(1);
    });
  });

  describe("invites", () => {
    it("works once: sets the password, then the link is refused", async () => {
      const sent = await invite({ username: "invitee", name: "In Vitee", email: "invitee@example.com" });
      expect(sent.mailed).toBe(false);
      expect((await userDetail(sent.userId))?.status).toBe("invited");
      // no usable password while invited
      expect((await authenticate({ username: "invitee", password: "", type: "agent", ip })).ok).toBe(false);
      const token = tokenOf(sent.link);
      expect(await openInvite(token)).toMatchObject({ username: "invitee" });
      const results = await Promise.allSettled([acceptInvite(token, PASSWORD, ip), acceptInvite(token, PASSWORD, ip)]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(await refusal(() => acceptInvite(token, PASSWORD, ip))).toBe("users.invite.expired");
      expect(await openInvite(token)).toBeUndefined();
      expect((await authenticate({ username: "invitee", password: PASSWORD, type: "agent", ip })).ok).toBe(true);
      expect(await auditOf("user.invited", sent.userId)).toHaveLength(1);
      expect(await auditOf("invite.accepted", sent.userId)).toHaveLength(1);
      expect(await refusal(() => resendInvite(admin, sent.userId, ctx))).toBe("users.invite.accepted");
    });

    it("does not work for a disabled account; a new link replaces the old one", async () => {
      const sent = await invite({ username: "invitee2", name: "In Vitee Two", email: "invitee2@example.com" });
      await disableUser(admin, sent.userId, ip);
      expect(await openInvite(tokenOf(sent.link))).toBeUndefined();
      expect(await refusal(() => acceptInvite(tokenOf(sent.link), PASSWORD, ip))).toBe("users.invite.expired");
      expect(await refusal(() => resendInvite(admin, sent.userId, ctx))).toBe("users.invite.disabled");
      await enableUser(admin, sent.userId, ip);
      const again = await resendInvite(admin, sent.userId, ctx);
      expect(await openInvite(tokenOf(sent.link))).toBeUndefined();
      expect(await openInvite(tokenOf(again.link))).toMatchObject({ username: "invitee2" });
      expect(await auditOf("invite.resent", sent.userId)).toHaveLength(1);
    });

    it("queues the link by mail when a mail server is configured", async () => {
      process.env.SMTP_URL = "smtp://mail.invalid:25";
      const sent = await invite({ username: "mailed", name: "Mailed Person", email: "mailed@example.com" });
      expect(sent.mailed).toBe(true);
      const { db, schema } = t.handle;
      const mails = await db.select().from(schema.mailOutbox).where(eq(schema.mailOutbox.to, "mailed@example.com"));
      expect(mails).toHaveLength(1);
      expect(mails[0].text).toContain(sent.link);
      expect(mails[0].subject).toContain("OmniDesk");
    });
  });

  describe("the pages", () => {
    const post = (path: string, cookie: string, fields: Record<string, string>) =>
      new Request(`http://localhost${path}`, { method: "POST", headers: { Cookie: cookie, Host: "localhost" }, body: new URLSearchParams(fields) });
    const status = async (run: () => Promise<unknown>) => {
      try {
        const res = (await run()) as Response;
        return res.status;
      } catch (thrown) {
        return (thrown as Response).status;
      }
    };

    it("answer 403 to an agent, and nothing changes", async () => {
      const agent = await sessionCookie().serialize((await createSession(2)).token);
      const before = await listUsers();
      const fields = { intent: "create", ...form({ username: "sneaky", name: "Sneaky", type: "admin" }) };
      const context = { clientIp: ip, cspNonce: "" };
      expect(await status(() => usersAction({ request: post("/settings/users", agent, fields), params: {}, context }))).toBe(403);
      expect(
        await status(() => usersLoader({ request: new Request("http://localhost/settings/users", { headers: { Cookie: agent } }), params: {}, context })),
      ).toBe(403);
      expect(await status(() => userAction({ request: post("/settings/users/1", agent, { intent: "disable" }), params: { id: "1" }, context }))).toBe(403);
      expect(
        await status(() =>
          userAction({ request: post("/settings/users/2", agent, { intent: "save", name: "x", type: "admin", rank: "1" }), params: { id: "2" }, context }),
        ),
      ).toBe(403);
      expect(await listUsers()).toEqual(before);
    });

    it("keep the admin's input when refused", async () => {
      const cookie = await sessionCookie().serialize((await createSession(1)).token);
      const res = (await usersAction({
        request: post("/settings/users", cookie, { intent: "create", ...form({ username: "agent", name: "Dup Agent", email: "dup@example.com" }) }),
        params: {},
        context: { clientIp: ip, cspNonce: "" },
      })) as Response;
      expect(res.status).toBe(409);
      const body = await res.json();
      expect(body).toMatchObject({
        intent: "create",
        errors: { username: "users.rules.usernameTaken" },
        values: { name: "Dup Agent", email: "dup@example.com", password: "" },
      });
    });
  });
});
