// Own account (issue 15 item 3): profile, avatar, password change, password reset, custom
// statuses and the account JSON twins, on both dialects.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ACCOUNT_LIMIT } from "~/accounts/throttle.server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, desc, eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { hashPassword, verifyPassword } from "~/accounts/password.server";
import { createSession, findSession, hashToken } from "~/accounts/sessions.server";
import { findUserById } from "~/accounts/users.server";
import {
  AVATAR_MAX_BYTES,
  AvatarBodyTooLarge,
  avatarFile,
  avatarProblem,
  changePassword,
  imageTypeOf,
  profileCard,
  readAvatarForm,
  setAvatar,
  updateProfile,
} from "~/accounts/profile.server";
import { requestPasswordReset, resetLinkUser, resetPassword, RESETS_PER_ACCOUNT, RESETS_PER_NETWORK } from "~/accounts/password-reset.server";
import { addCustomStatus, changeStatus, listCustomStatuses, removeCustomStatus } from "~/accounts/custom-statuses.server";
import { loader as statusLoader, action as statusAction } from "~/accounts/routes/api.status";
import { loader as profileLoader } from "~/accounts/routes/api.profile";
import { loader as userListLoader } from "~/accounts/routes/api.ticket-user-list";
import { action as settingsAction } from "~/accounts/routes/api.settings-update";
import { loader as avatarLoader } from "~/accounts/routes/avatar";
import { getSettings } from "~/models/settings.server";

const GOOD = "violet tundra harbour 42";
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
const GIF = new TextEncoder().encode("GIF89a\x01\x00\x01\x00");
const WEBP = new Uint8Array([...new TextEncoder().encode("RIFF"), 0x24, 0, 0, 0, ...new TextEncoder().encode("WEBPVP8 ")]);
const context = { clientIp: "203.0.113.50", cspNonce: "" };

// avatars go to the file storage under DATA_DIR: a throwaway one for this file
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-account-"));
const previousDataDir = process.env.DATA_DIR;
process.env.DATA_DIR = dataDir;
afterAll(() => {
  process.env.DATA_DIR = previousDataDir;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe.each(DIALECTS)("own account on %s", (dialect) => {
  let t: TestDb;
  let n = 0;

  async function makeUser(opts: { type?: "admin" | "agent"; email?: string; departmentId?: number | null; password?: string } = {}) {
    const { db, schema } = t.handle;
    const username = `user${++n}${dialect}`;
    const [row] = await db
      .insert(schema.users)
      .values({
        username,
        name: `User ${n}`,
        type: opts.type ?? "agent",
        email: opts.email ?? "",
        departmentId: opts.departmentId ?? null,
        passwordHash: await hashPassword(opts.password ?? GOOD),
        createdAt: Date.now(),
      })
      .returning();
    return row;
  }

  let ticketNumber = 500000;
  async function makeTicket(opts: { kind?: string; departmentId?: number | null; people?: number[]; status?: number; contactEmail?: string; at?: number }) {
    const { db, schema } = t.handle;
    const at = opts.at ?? Date.now();
    const kind = opts.kind ?? "ticket";
    const [row] = await db
      .insert(schema.tickets)
      .values({
        ticketNumber: ++ticketNumber,
        title: `Conversation ${ticketNumber}`,
        channel: kind === "livechat" ? "LIVECHAT" : "EMAIL",
        kind,
        status: opts.status ?? 0,
        departmentId: opts.departmentId ?? null,
        contactName: "Cora Customer",
        contactEmail: opts.contactEmail ?? "",
        createdAt: at,
        updatedAt: at,
      })
      .returning();
    for (const userId of opts.people ?? []) await db.insert(schema.participants).values({ ticketId: row.id, userId, kind, addedAt: at });
    return row;
  }

  async function session(userId: number) {
    const { token } = await createSession(userId);
    return { token, auth: (await findSession(token))! };
  }

  const auditOf = async (action: string) => {
    const { db, schema } = t.handle;
    return db.select().from(schema.auditLog).where(eq(schema.auditLog.action, action)).orderBy(desc(schema.auditLog.id));
  };
  const outbox = async () => {
    const { db, schema } = t.handle;
    return db.select().from(schema.mailOutbox).orderBy(schema.mailOutbox.id);
  };
  const get = (url: string, token?: string) => new Request(`http://localhost${url}${token ? `${url.includes("?") ? "&" : "?"}_token=${token}` : ""}`);
  const post = (url: string, body: Record<string, unknown>) =>
    new Request(`http://localhost${url}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const answer = async (response: unknown) => {
    const res = response as Response;
    return { status: res.status, body: await res.json() };
  };
  /** Route functions answer or throw a Response (403); either way, the Response. */
  const settle = (p: Promise<unknown>) => p.catch((thrown: unknown) => thrown);

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await t.handle.db.insert(t.handle.schema.departments).values([
      { id: 1, name: "Sales" },
      { id: 2, name: "Support" },
    ]);
  });
  afterAll(async () => t?.cleanup());

  describe("avatar", () => {
    it("knows images by their first bytes, not by name", () => {
      expect(imageTypeOf(PNG)).toBe("image/png");
      expect(imageTypeOf(JPEG)).toBe("image/jpeg");
      expect(imageTypeOf(GIF)).toBe("image/gif");
      expect(imageTypeOf(WEBP)).toBe("image/webp");
      expect(imageTypeOf(new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'/>"))).toBeNull();
      expect(imageTypeOf(new TextEncoder().encode("<html><script>alert(1)</script>"))).toBeNull();
    });

    it("refuses empty, oversized and non-image uploads with a reason", () => {
      expect(avatarProblem(new Uint8Array())).toBe("account.avatarMissing");
      const big = new Uint8Array(AVATAR_MAX_BYTES + 1);
      big.set(PNG);
      expect(avatarProblem(big)).toBe("account.avatarTooLarge");
      expect(avatarProblem(new TextEncoder().encode("GIF8 not quite"))).toBe("account.avatarType");
      const limit = new Uint8Array(AVATAR_MAX_BYTES);
      limit.set(PNG);
      expect(avatarProblem(limit)).toBeNull();
    });

    it("reads the form: the photo up to 2 MB, a larger one flagged, a huge body refused before reading", async () => {
      const form = (bytes: Uint8Array) => {
        const body = new FormData();
        body.set("intent", "avatar");
        body.set("photo", new File([Buffer.from(bytes)], "me.png", { type: "image/png" }));
        return new Request("http://localhost/profile", { method: "POST", body });
      };
      const ok = await readAvatarForm(form(PNG));
      expect(ok.fields.intent).toBe("avatar");
      expect(Array.from(ok.photo!)).toEqual(Array.from(PNG));
      const over = new Uint8Array(AVATAR_MAX_BYTES + 10);
      over.set(PNG);
      const large = await readAvatarForm(form(over));
      expect(large).toMatchObject({ tooLarge: true, photo: null });
      const declared = new Request("http://localhost/profile", {
        method: "POST",
        headers: { "Content-Type": "multipart/form-data; boundary=x", "Content-Length": String(50 * 1024 * 1024) },
        body: "--x--",
      });
      await expect(readAvatarForm(declared)).rejects.toBeInstanceOf(AvatarBodyTooLarge);
    });

    it("stores a photo, serves it as an image only while it is someone's photo, and never serves other stored files", async () => {
      const user = await makeUser();
      expect(await setAvatar(user, new TextEncoder().encode("not an image"))).toBe("account.avatarType");
      expect(await setAvatar(user, PNG)).toBeNull();
      const first = (await findUserById(user.id))!.photo!;
      expect(first).toMatch(/^\/avatar\/[a-f0-9]{32}$/);
      const key = first.split("/").pop()!;
      const res = (await avatarLoader({ request: get(first), params: { key }, context })) as Response;
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toBe("image/png");
      expect(res.headers.get("Content-Security-Policy")).toContain("sandbox");
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG);

      // a new photo replaces the old one, whose file is gone
      expect(await setAvatar((await findUserById(user.id))!, JPEG)).toBeNull();
      expect(await avatarFile(key)).toBeUndefined();
      // a file in storage that is nobody's photo (an attachment) is not served
      const { fileStorage } = await import("~/storage.server");
      const attachment = await fileStorage().put(PNG);
      expect(((await avatarLoader({ request: get(`/avatar/${attachment}`), params: { key: attachment }, context })) as Response).status).toBe(404);
    });
  });

  describe("name and email", () => {
    it("lower-cases the email, refuses one another user has, and audits the change", async () => {
      const a = await makeUser();
      const b = await makeUser();
      // the email is where reset links go: changing it needs the current password
      const newEmail = { name: "Ada Lovelace", email: `Ada.${dialect}@Example.COM` };
      expect(await updateProfile(a, newEmail, "10.0.0.1")).toEqual({ status: 400, errors: { current: "account.currentRequired" } });
      expect(await updateProfile(a, { ...newEmail, current: "not it" }, "10.0.0.1")).toEqual({ status: 400, errors: { current: "account.currentWrong" } });
      expect((await findUserById(a.id))!.email).toBe("");
      expect(await updateProfile(a, { ...newEmail, current: GOOD }, "10.0.0.1")).toBeNull();
      expect((await findUserById(a.id))!.email).toBe(`ada.${dialect}@example.com`);
      expect(await updateProfile(b, { name: b.name, email: `ADA.${dialect}@example.com`, current: GOOD })).toEqual({
        status: 409,
        errors: { email: "account.emailTaken" },
      });
      // a name alone needs no password
      expect(await updateProfile(b, { name: "Bea", email: "" })).toBeNull();
      expect((await findUserById(b.id))!.email).toBe("");
      const entry = (await auditOf("profile.updated")).find((e) => e.actorId === a.id)!;
      expect(entry).toMatchObject({ actorId: a.id, targetId: String(a.id), ip: "10.0.0.1" });
      expect(JSON.parse(entry.detail)).toMatchObject({ name: "Ada Lovelace", email: `ada.${dialect}@example.com` });
    });
  });

  describe("change password", () => {
    it("needs the current password, refuses a weak one with the reason, and on success ends every other session", async () => {
      const user = await makeUser({ email: `grace.${dialect}@example.com` });
      const mine = await session(user.id);
      const other = await session(user.id);
      const change = (current: string, password: string, confirm = password) => changePassword(mine.auth, { current, password, confirm }, "10.0.0.2");

      expect(await change("wrong password", "another good passphrase")).toMatchObject({ ok: false, errors: { current: "account.currentWrong" } });
      expect(await change(GOOD, "short")).toMatchObject({ ok: false, errors: { password: "password.tooShort" } });
      expect(await change(GOOD, "password123456")).toMatchObject({ ok: false, errors: { password: "password.common" } });
      expect(await change(GOOD, `${user.username} is my passphrase`)).toMatchObject({ ok: false, errors: { password: "password.containsName" } });
      expect(await change(GOOD, "another good passphrase", "different")).toMatchObject({ ok: false, errors: { confirm: "account.passwordMismatch" } });
      expect(await findSession(other.token)).toBeDefined();

      expect(await change(GOOD, "another good passphrase")).toMatchObject({ ok: true, endedSessions: 1 });
      expect(await findSession(other.token)).toBeUndefined();
      expect(await findSession(mine.token)).toBeDefined();
      expect(await verifyPassword("another good passphrase", (await findUserById(user.id))!.passwordHash)).toBe(true);
      expect((await auditOf("password.changed"))[0]).toMatchObject({ actorId: user.id, ip: "10.0.0.2" });
    });

    it("pauses after the sign-in limit of wrong current passwords, even when the next one is right", async () => {
      const user = await makeUser();
      const { auth } = await session(user.id);
      const attempts = Array.from({ length: ACCOUNT_LIMIT }, () =>
        changePassword(auth, { current: "guess", password: "another good passphrase", confirm: "another good passphrase" }),
      );
      // parallel guesses are counted before any is checked
      expect((await Promise.all(attempts)).every((r) => !r.ok && r.status === 400)).toBe(true);
      expect(await changePassword(auth, { current: GOOD, password: "another good passphrase", confirm: "another good passphrase" })).toMatchObject({
        ok: false,
        status: 429,
        message: "account.tooManyAttempts",
      });
    });
  });

  describe("password reset", () => {
    const base = "https://desk.example.com";
    const request = (login: string, ip: string) => requestPasswordReset({ login, ip, linkBase: base }, { minMs: 0 });
    const linkIn = (text: string) => text.match(/https:\/\/desk\.example\.com\/password_reset\/([\w-]+)/)?.[1];

    it("answers the same whether or not the account exists, and mails a link only to a real, enabled account with an email", async () => {
      const user = await makeUser({ email: `reset.${dialect}@example.com` });
      const noEmail = await makeUser();
      const disabled = await makeUser({ email: `off.${dialect}@example.com` });
      await t.handle.db.update(t.handle.schema.users).set({ disabledAt: Date.now() }).where(eq(t.handle.schema.users.id, disabled.id));
      const before = (await outbox()).length;
      const answers = await Promise.all([
        request(user.username, "198.51.100.1"),
        request("nobody-at-all", "198.51.100.1"),
        request(noEmail.username, "198.51.100.1"),
        request(disabled.email, "198.51.100.1"),
      ]);
      expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify({ limited: false })]));
      const mails = (await outbox()).slice(before);
      expect(mails).toHaveLength(1);
      expect(mails[0].to).toBe(user.email);
      expect(linkIn(mails[0].text)).toBeTruthy();
      // by email too, any case
      await request(user.email.toUpperCase(), "198.51.100.1");
      expect((await outbox()).slice(before)).toHaveLength(2);
    });

    it("takes the same minimum time whether or not the account exists", async () => {
      const user = await makeUser({ email: `timing.${dialect}@example.com` });
      const time = async (login: string) => {
        const started = performance.now();
        await requestPasswordReset({ login, ip: "198.51.100.9", linkBase: base }, { minMs: 250 });
        return performance.now() - started;
      };
      const [known, unknown] = [await time(user.username), await time("no-such-user")];
      expect(known).toBeGreaterThanOrEqual(245);
      expect(unknown).toBeGreaterThanOrEqual(245);
      expect(Math.abs(known - unknown)).toBeLessThan(150);
    });

    it("sets the password once with the link, ends every session, and audits it; reuse and expiry are refused", async () => {
      const user = await makeUser({ email: `once.${dialect}@example.com` });
      const signedIn = await session(user.id);
      await request(user.username, "198.51.100.2");
      const token = linkIn((await outbox()).at(-1)!.text)!;
      expect((await resetLinkUser(token))?.id).toBe(user.id);

      // a refused password leaves the link usable
      expect(await resetPassword(token, { password: "short", confirm: "short" })).toMatchObject({
        ok: false,
        expired: false,
        errors: { password: "password.tooShort" },
      });
      expect(await resetPassword(token, { password: "a fine new passphrase", confirm: "typo" })).toMatchObject({
        errors: { confirm: "account.passwordMismatch" },
      });
      const [first, second] = await Promise.all([
        resetPassword(token, { password: "a fine new passphrase", confirm: "a fine new passphrase" }, "198.51.100.2"),
        resetPassword(token, { password: "a second passphrase!", confirm: "a second passphrase!" }, "198.51.100.2"),
      ]);
      expect([first.ok, second.ok].filter(Boolean)).toHaveLength(1);
      const winner = first.ok ? "a fine new passphrase" : "a second passphrase!";
      expect(await verifyPassword(winner, (await findUserById(user.id))!.passwordHash)).toBe(true);
      expect(await findSession(signedIn.token)).toBeUndefined();
      expect(await resetPassword(token, { password: "yet another passphrase", confirm: "yet another passphrase" })).toEqual({ ok: false, expired: true });
      expect(await resetLinkUser(token)).toBeUndefined();
      expect((await auditOf("password.reset"))[0]).toMatchObject({ targetId: String(user.id) });

      // an expired link
      await request(user.username, "198.51.100.3");
      const late = linkIn((await outbox()).at(-1)!.text)!;
      const { db, schema } = t.handle;
      await db
        .update(schema.oneTimeTokens)
        .set({ expiresAt: Date.now() - 1 })
        .where(eq(schema.oneTimeTokens.hash, hashToken(late)));
      expect(await resetPassword(late, { password: "yet another passphrase", confirm: "yet another passphrase" })).toEqual({ ok: false, expired: true });
    });

    it("the other links of the account stop working once one is used", async () => {
      const user = await makeUser({ email: `two.${dialect}@example.com` });
      await request(user.username, "198.51.100.4");
      await request(user.username, "198.51.100.4");
      const [a, b] = (await outbox()).slice(-2).map((m) => linkIn(m.text)!);
      expect((await resetPassword(a, { password: "a fine new passphrase", confirm: "a fine new passphrase" })).ok).toBe(true);
      expect(await resetLinkUser(b)).toBeUndefined();
    });

    it("sends at most a few links an hour per account, and limits requests per network (an IPv6 /64 counts once)", async () => {
      const user = await makeUser({ email: `spam.${dialect}@example.com` });
      const before = (await outbox()).length;
      for (let i = 0; i < RESETS_PER_ACCOUNT + 2; i++) expect(await request(user.username, `192.0.2.${i + 10}`)).toEqual({ limited: false });
      expect((await outbox()).length - before).toBe(RESETS_PER_ACCOUNT);

      const net = dialect === "pg" ? "2001:db8:1:2" : "2001:db8:1:3";
      for (let i = 0; i < RESETS_PER_NETWORK; i++) expect((await request("nobody", `${net}::${i.toString(16)}`)).limited).toBe(false);
      expect((await request("nobody", `${net}:ffff::1`)).limited).toBe(true);
      expect((await request("nobody", "2001:db8:9:9::1")).limited).toBe(false);
    });
  });

  describe("custom statuses", () => {
    it("admins add and remove them (audited); built-in names and duplicates are refused", async () => {
      const admin = await makeUser({ type: "admin" });
      const added = await addCustomStatus(admin, { name: `Training ${dialect}`, needsReason: true }, "10.0.0.3");
      expect(added.ok).toBe(true);
      expect(await addCustomStatus(admin, { name: `training ${dialect.toUpperCase()}`, needsReason: false })).toEqual({
        ok: false,
        error: "account.statusExists",
      });
      expect(await addCustomStatus(admin, { name: "away", needsReason: false })).toEqual({ ok: false, error: "account.statusExists" });
      expect(await addCustomStatus(admin, { name: "Offline", needsReason: false })).toEqual({ ok: false, error: "account.statusExists" });
      const lunch = await addCustomStatus(admin, { name: `Lunch ${dialect}`, needsReason: false });
      expect((await listCustomStatuses()).map((s) => s.name)).toEqual(expect.arrayContaining([`Lunch ${dialect}`, `Training ${dialect}`]));
      expect((await auditOf("status.custom_added"))[0]).toMatchObject({ actorId: admin.id });
      if (!lunch.ok) throw new Error("not added");
      expect(await removeCustomStatus(admin, lunch.id)).toEqual({ ok: true, id: lunch.id });
      expect(await removeCustomStatus(admin, lunch.id)).toEqual({ ok: false, error: "account.statusNotFound" });
      expect(JSON.parse((await auditOf("status.custom_removed"))[0].detail)).toEqual({ name: `Lunch ${dialect}` });
    });

    it("users choose them as their second status, with a reason when the status asks for one", async () => {
      const admin = await makeUser({ type: "admin" });
      await addCustomStatus(admin, { name: `Site visit ${dialect}`, needsReason: true });
      await addCustomStatus(admin, { name: `Coffee ${dialect}`, needsReason: false });
      const agent = await makeUser();
      expect(await changeStatus(agent, `Site visit ${dialect}`, "  ")).toBe("status.reasonRequired");
      expect(await changeStatus(agent, `Site visit ${dialect}`, "Client A")).toBeNull();
      expect(await findUserById(agent.id)).toMatchObject({ status: "ONLINE", secondStatus: `Site visit ${dialect}`, statusReason: "Client A" });
      const now = (await findUserById(agent.id))!;
      expect(await changeStatus(now, `Site visit ${dialect}`, "again")).toBe("status.same");
      expect(await changeStatus(now, `Coffee ${dialect}`, "ignored")).toBeNull();
      expect(await findUserById(agent.id)).toMatchObject({ secondStatus: `Coffee ${dialect}`, statusReason: "" });
      expect(await changeStatus(now, "Made up", "")).toBe("status.invalid");
      // the built-in rules still hold
      expect(await changeStatus(now, "BUSY", "")).toBe("status.reasonRequired");
    });
  });

  describe("JSON twins", () => {
    it("status: refuses without a token; updates with the menu's rules; reads own status and the custom list", async () => {
      const admin = await makeUser({ type: "admin" });
      await addCustomStatus(admin, { name: `Webinar ${dialect}`, needsReason: false });
      const agent = await makeUser();
      const { token } = await session(agent.id);
      const denied = await answer(
        await settle(statusAction({ request: post("/api/online_status/update", { status: "AWAY", reason: "x" }), params: {}, context })),
      );
      expect(denied.status).toBe(403);
      const refused = await answer(await statusAction({ request: post("/api/online_status/update", { _token: token, status: "AWAY" }), params: {}, context }));
      expect(refused).toEqual({ status: 400, body: { result: "failed", description: "Please give a reason." } });
      const done = await answer(
        await statusAction({ request: post("/api/online_status/update", { _token: token, status: `Webinar ${dialect}` }), params: {}, context }),
      );
      expect(done.body).toMatchObject({ result: "success", status: "ONLINE", second_status: `Webinar ${dialect}` });
      const me = await answer(await statusLoader({ request: get("/api/status/me/get", token), params: {}, context }));
      expect(me.body).toMatchObject({ result: "success", second_status: `Webinar ${dialect}` });
      expect(me.body.status_time).toBeGreaterThan(0);
      const list = await answer(await statusLoader({ request: get("/api/customstatus/get", token), params: {}, context }));
      expect(list.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ name: `Webinar ${dialect}`, needs_reason: false })]));
    });

    it("profile info: the email only to the user and admins; profile2 takes the session token as `token`", async () => {
      const admin = await makeUser({ type: "admin" });
      const target = await makeUser({ email: `target.${dialect}@example.com` });
      const agent = await makeUser();
      const url = `/api/user/profile/data/info?username=${target.username}`;
      const byAgent = await answer(await profileLoader({ request: get(url, (await session(agent.id)).token), params: {}, context }));
      expect(byAgent.body).toEqual({ result: "success", data: { name: target.name, username: target.username, photo: "", type: "agent" } });
      const byAdmin = await answer(await profileLoader({ request: get(url, (await session(admin.id)).token), params: {}, context }));
      expect(byAdmin.body.data.email).toBe(target.email);
      const self = await answer(
        await profileLoader({
          request: get(`/api/user/profile2/info?username=${target.username}&token=${(await session(target.id)).token}`),
          params: {},
          context,
        }),
      );
      expect(self.body.data.email).toBe(target.email);
      expect((await answer(await settle(profileLoader({ request: get(`/api/user/profile2/info?username=x&token=bad`), params: {}, context })))).status).toBe(
        403,
      );
      const missing = await answer(
        await profileLoader({ request: get("/api/user/profile/data/info?username=ghost", (await session(agent.id)).token), params: {}, context }),
      );
      expect(missing.status).toBe(404);
      const bot = await answer(
        await profileLoader({ request: get("/api/user/profile/data/info?username=chatbot", (await session(agent.id)).token), params: {}, context }),
      );
      expect(bot.body.data.type).toBe("bot");
    });

    it("a customer's activity, 5 a page, shows only conversations the caller may read", async () => {
      const agent = await makeUser({ departmentId: 2 });
      const email = `customer.${dialect}@example.com`;
      const mine = [];
      for (let i = 0; i < 6; i++) mine.push(await makeTicket({ contactEmail: email, people: [agent.id], at: Date.now() - i * 1000 }));
      const hidden = await makeTicket({ contactEmail: email, departmentId: 1, at: Date.now() + 5000 });
      const { token } = await session(agent.id);
      const page0 = await answer(
        await profileLoader({ request: get(`/api/user/profile/0?mode=quick&email=${email}`, token), params: { offset: "0" }, context }),
      );
      expect(page0.body.activity).toHaveLength(5);
      expect(page0.body.more).toBe(true);
      expect(page0.body.activity.map((a: { id: number }) => a.id)).not.toContain(hidden.id);
      const page1 = await answer(await profileLoader({ request: get(`/api/user/profile/5?email=${email}`, token), params: { offset: "5" }, context }));
      expect(page1.body.activity.map((a: { id: number }) => a.id)).toEqual([mine[5].id]);
      // an agent who can read none of them learns nothing
      const stranger = await makeUser({ departmentId: 1 });
      const none = await answer(
        await profileLoader({ request: get(`/api/user/profile/0?email=${email}`, (await session(stranger.id)).token), params: { offset: "0" }, context }),
      );
      expect(none.body.activity.map((a: { id: number }) => a.id)).toEqual([hidden.id]);
      const outsider = await makeUser();
      const nothing = await answer(
        await profileLoader({ request: get(`/api/user/profile/0?email=${email}`, (await session(outsider.id)).token), params: { offset: "0" }, context }),
      );
      expect(nothing.status).toBe(404);
    });

    it("a user's ticket list: only what the caller may read, 10 a page, with experience from solved ones", async () => {
      const worker = await makeUser({ departmentId: 2 });
      const admin = await makeUser({ type: "admin" });
      const reader = await makeUser({ departmentId: 2 });
      const shared = [];
      for (let i = 0; i < 11; i++) shared.push(await makeTicket({ departmentId: 2, people: [worker.id], status: i < 3 ? 2 : 0, at: Date.now() - i * 1000 }));
      const secret = await makeTicket({ departmentId: 1, people: [worker.id], status: 3 });
      await makeTicket({ kind: "livechat", departmentId: 1, people: [worker.id] });
      const list = async (token: string, extra = "") =>
        answer(await userListLoader({ request: get(`/api/ticket/user/list?type=ticket&username=${worker.username}${extra}`, token), params: {}, context }));
      const byReader = await list((await session(reader.id)).token);
      expect(byReader.body.data).toHaveLength(10);
      expect(byReader.body.more).toBe(true);
      expect(byReader.body.data.map((d: { id: number }) => d.id)).not.toContain(secret.id);
      expect(byReader.body).toMatchObject({ exp: 3, expLevel: 1 });
      const second = await list((await session(reader.id)).token, "&offset=10");
      expect(second.body.data.map((d: { id: number }) => d.id)).toEqual([shared[10].id]);
      const byAdmin = await list((await session(admin.id)).token);
      expect(byAdmin.body.data.map((d: { id: number }) => d.id)).toContain(secret.id);
      expect(byAdmin.body.exp).toBe(4);
      const chats = await answer(
        await userListLoader({
          request: get(`/api/ticket/user/list?type=livechat&username=${worker.username}`, (await session(reader.id)).token),
          params: {},
          context,
        }),
      );
      expect(chats.body.data).toEqual([]);
      const bad = await answer(
        await settle(
          userListLoader({
            request: get(`/api/ticket/user/list?type=sms&username=${worker.username}`, (await session(reader.id)).token),
            params: {},
            context,
          }),
        ),
      );
      expect(bad.status).toBe(400);
    });

    it("the profile card: 10 a tab, Load More asks for 10 more, only readable conversations; customers and visitors by conversation", async () => {
      const worker = await makeUser({ departmentId: 2 });
      const reader = await makeUser({ departmentId: 2 });
      for (let i = 0; i < 12; i++) await makeTicket({ departmentId: 2, people: [worker.id], at: Date.now() - i * 1000 });
      await makeTicket({ departmentId: 1, people: [worker.id] });
      const card = (query: string) => profileCard(reader, new URLSearchParams(query), "Asia/Kuala_Lumpur");
      const first = (await card(`username=${worker.username}`))!;
      expect(first).toMatchObject({ tab: "ticket", shown: 10, more: true, person: { kind: "user", name: worker.name } });
      expect(first.items).toHaveLength(10);
      expect(first.person).not.toHaveProperty("email");
      expect(first.items[0].path).toMatch(/^\/ticket\/\d+$/);
      const more = (await card(`username=${worker.username}&shown=20`))!;
      expect(more).toMatchObject({ shown: 20, more: false });
      expect(more.items).toHaveLength(12);
      expect((await card(`username=${worker.username}&tab=livechat`))!).toMatchObject({ tab: "livechat", items: [], more: false });
      expect(await card("username=nobody")).toBeNull();
      expect((await card("username=translatebot"))!.person.kind).toBe("bot");

      const chat = await makeTicket({ kind: "livechat", departmentId: 2, contactEmail: `visitor.${dialect}@example.com` });
      expect((await card(`ticket=${chat.ticketNumber}`))!.person).toMatchObject({ kind: "visitor", name: "Cora Customer" });
      const mail = await makeTicket({ departmentId: 2, contactEmail: `mailer.${dialect}@example.com` });
      expect((await card(`ticket=${mail.ticketNumber}`))!).toMatchObject({
        tabs: ["activity", "ticket", "livechat"],
        tab: "activity",
        person: { kind: "contact", email: `mailer.${dialect}@example.com` },
      });
      const elsewhere = await makeTicket({ departmentId: 1, contactEmail: `mailer.${dialect}@example.com` });
      expect(await card(`ticket=${elsewhere.ticketNumber}`)).toBeNull();
    });

    it("settings: language is the caller's own; workspace keys are for admins (403, nothing changed); unknown ones are refused", async () => {
      const agent = await makeUser();
      const admin = await makeUser({ type: "admin" });
      const agentToken = (await session(agent.id)).token;
      const adminToken = (await session(admin.id)).token;
      const update2 = (body: Record<string, unknown>) =>
        settle(settingsAction({ request: post("/api/settings/update_2", body), params: {}, context })).then(answer);
      const update = (body: Record<string, unknown>) =>
        settle(settingsAction({ request: post("/api/settings/update", body), params: {}, context })).then(answer);

      expect((await update2({ _token: agentToken, function: "language", value: "ja" })).body).toMatchObject({
        result: "success",
        description: "Settings updated",
      });
      expect((await findUserById(agent.id))!.language).toBe("ja");
      expect((await update2({ _token: agentToken, function: "language", value: "xx" })).status).toBe(400);
      expect(await update2({ _token: agentToken, function: "popup_on_call", value: "1" })).toEqual({
        status: 403,
        body: { result: "failed", description: "Access denied" },
      });
      expect((await getSettings()).popup_on_call).toBe("0");
      expect((await update2({ _token: agentToken, function: "password", value: "x" })).status).toBe(400);
      expect((await update2({ function: "language", value: "en" })).status).toBe(403);

      expect((await update2({ _token: adminToken, function: "popup_on_call", value: "1" })).status).toBe(200);
      expect((await getSettings()).popup_on_call).toBe("1");
      expect((await update2({ _token: adminToken, function: "timezone", value: "Mars/Olympus" })).status).toBe(400);
      expect((await auditOf("settings.changed"))[0]).toMatchObject({ actorId: admin.id, targetId: "popup_on_call" });
      // the debug shortcuts for agents: an admin's switch, 0 or 1
      expect((await update2({ _token: agentToken, function: "debug_shortcuts", value: "1" })).status).toBe(403);
      expect((await update2({ _token: adminToken, function: "debug_shortcuts", value: "yes" })).status).toBe(400);
      expect((await getSettings()).debug_shortcuts).toBe("0");
      expect((await update2({ _token: adminToken, function: "debug_shortcuts", value: "1" })).status).toBe(200);
      expect((await getSettings()).debug_shortcuts).toBe("1");

      expect((await update({ _token: adminToken, action: "auto_close" })).body.description).toBe("Please give the number of days.");
      expect((await update({ _token: agentToken, action: "auto_close", day: 7 })).status).toBe(403);
      expect((await update({ _token: adminToken, action: "auto_close", day: 7 })).status).toBe(200);
      expect((await getSettings()).auto_close_days).toBe("7");
      expect((await update({ _token: adminToken, action: "nope", day: 7 })).status).toBe(400);
    });
  });

  it("keeps the reset links only as hashes", async () => {
    const { db, schema } = t.handle;
    const rows = await db
      .select()
      .from(schema.oneTimeTokens)
      .where(and(eq(schema.oneTimeTokens.purpose, "password_reset")));
    expect(rows.length).toBeGreaterThan(0);
    const mails = await outbox();
    for (const row of rows) for (const mail of mails) expect(mail.text).not.toContain(row.hash);
  });
});
