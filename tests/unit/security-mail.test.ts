// A person hears by mail when their sign-in details change: password changed, two-factor on and
// off, two-factor reset by an admin. Accounts without an email get nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { authenticator } from "otplib";
import { createTestDb, type TestDb } from "./harness";
import { hashPassword } from "~/accounts/password.server";
import { newTotpSecret, turnOffTwoFactor, turnOnTwoFactor } from "~/accounts/auth.server";
import { changePassword } from "~/accounts/profile.server";
import { createSession, findSession } from "~/accounts/sessions.server";
import { resetTfa } from "~/accounts/users-admin.server";

const PASSWORD = "a quiet harbour at dawn";
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb("sqlite");
});
afterAll(() => t.cleanup());

async function makeUser(username: string, email: string) {
  const { db, schema } = t.handle;
  const [user] = await db
    .insert(schema.users)
    .values({ username, name: `${username} Person`, type: "agent", email, language: "ms", passwordHash: await hashPassword(PASSWORD), createdAt: Date.now() })
    .returning();
  return user;
}
const mailsTo = (address: string) => t.handle.db.select().from(t.handle.schema.mailOutbox).where(eq(t.handle.schema.mailOutbox.to, address));

describe("mail when sign-in details change", () => {
  it("tells the person of a password change and of two-factor on, off and reset, in their language", async () => {
    const user = await makeUser("mira", "mira@example.com");
    const { token } = await createSession(user.id);
    const auth = (await findSession(token))!;
    expect(await changePassword(auth, { current: PASSWORD, password: "another quiet harbour", confirm: "another quiet harbour" }, "203.0.113.5")).toMatchObject(
      { ok: true },
    );
    const secret = newTotpSecret();
    const fresh = async () => (await t.handle.db.select().from(t.handle.schema.users).where(eq(t.handle.schema.users.id, user.id)))[0];
    const input = { password: "another quiet harbour", keepIdHash: auth.session.idHash, ip: "203.0.113.5" };
    expect(await turnOnTwoFactor(await fresh(), { ...input, secret, code: authenticator.generate(secret) })).toMatchObject({ ok: true });
    expect(await turnOffTwoFactor(await fresh(), input)).toMatchObject({ ok: true });
    expect(
      await turnOnTwoFactor(await fresh(), { ...input, secret, code: authenticator.clone({ epoch: Date.now() + 30_000 }).generate(secret) }),
    ).toMatchObject({ ok: true });
    expect(await resetTfa({ id: 1, name: "Boss" }, user.id, "198.51.100.1")).toBe(true);

    const mails = await mailsTo("mira@example.com");
    expect(mails.map((m) => m.text.split("\n")[2])).toEqual([
      expect.stringMatching(/^Kata laluan anda telah diubah pada .* dari alamat 203\.0\.113\.5\.$/),
      expect.stringMatching(/^Log masuk dua faktor telah dihidupkan/),
      expect.stringMatching(/^Log masuk dua faktor telah dimatikan/),
      expect.stringMatching(/^Log masuk dua faktor telah dihidupkan/),
      expect.stringMatching(/^Seorang pentadbir telah menetapkan semula .* dari alamat 198\.51\.100\.1\.$/),
    ]);
    expect(mails.every((m) => m.subject === "Butiran log masuk anda telah diubah")).toBe(true);
  });

  it("tells the old address when the email changes", async () => {
    const { updateProfile } = await import("~/accounts/profile.server");
    const user = await makeUser("omar", "omar@example.com");
    expect(await updateProfile(user, { name: user.name, email: "taken-over@evil.example", current: PASSWORD }, "203.0.113.9")).toBeNull();
    const [mail] = await mailsTo("omar@example.com");
    expect(mail.text).toContain("taken-over@evil.example");
    expect(mail.text).toContain("203.0.113.9");
    expect(await mailsTo("taken-over@evil.example")).toEqual([]);
  });

  it("sends nothing to an account without an email", async () => {
    const user = await makeUser("nomail", "");
    const { token } = await createSession(user.id);
    expect(
      await changePassword((await findSession(token))!, { current: PASSWORD, password: "another quiet harbour", confirm: "another quiet harbour" }),
    ).toMatchObject({
      ok: true,
    });
    expect(await mailsTo("")).toEqual([]);
  });
});
