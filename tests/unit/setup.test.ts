// The first run (app/accounts/setup.server.ts): the demo is seeded only outside production unless
// asked for; an empty install's workspace and first admin are made in one transaction that uses
// the setup link once; sign-up makes a trial; the form refuses bad input with its reason.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";

// the last write of the transaction fails on demand, to prove the rest is rolled back with it
const failAudit = vi.hoisted(() => ({ on: "" }));
vi.mock("~/accounts/audit.server", async (original) => {
  const real = await original<typeof import("~/accounts/audit.server")>();
  return {
    ...real,
    audit: (event: Parameters<typeof real.audit>[0], tx?: Parameters<typeof real.audit>[1]) => {
      if (event.action === failAudit.on) throw new Error("audit failed");
      return real.audit(event, tx);
    },
  };
});

const setup = await import("~/accounts/setup.server");
const { seedIfEmpty, shouldSeedDemo } = await import("~/seed/seed");
const { verifyPassword } = await import("~/accounts/password.server");
const { isValidToken } = await import("~/accounts/public-tokens.server");
const { getWorkspace, SETTING_DEFAULTS } = await import("~/models/settings.server");
const { seatState } = await import("~/accounts/seats.server");

describe("seeding the demo", () => {
  it("happens for the local demo and the tests, in production only with SEED_DEMO=1", () => {
    expect(shouldSeedDemo({})).toBe(true);
    expect(shouldSeedDemo({ NODE_ENV: "development" })).toBe(true);
    expect(shouldSeedDemo({ NODE_ENV: "test" })).toBe(true);
    expect(shouldSeedDemo({ NODE_ENV: "production" })).toBe(false);
    expect(shouldSeedDemo({ NODE_ENV: "production", SEED_DEMO: "0" })).toBe(false);
    expect(shouldSeedDemo({ NODE_ENV: "production", SEED_DEMO: "1" })).toBe(true);
  });

  describe("at server start", () => {
    let db: TestDb;
    const saved = { ...process.env };
    beforeEach(async () => {
      db = await createTestDb("sqlite");
    });
    afterEach(async () => {
      process.env = { ...saved };
      await db.cleanup();
    });
    it("leaves a production database empty", async () => {
      process.env.NODE_ENV = "production";
      delete process.env.SEED_DEMO;
      expect(await seedIfEmpty(db.handle)).toBe(false);
      expect(await setup.installIsEmpty()).toBe(true);
      expect(await isValidToken("livechat", "demo")).toBe(false);
    });
    it("refuses the demo password in production even when asked to seed", async () => {
      process.env.NODE_ENV = "production";
      process.env.SEED_DEMO = "1";
      delete process.env.SEED_PASSWORD;
      await expect(seedIfEmpty(db.handle)).rejects.toThrow(/SEED_PASSWORD/);
      expect(await setup.installIsEmpty()).toBe(true);
    });
  });
});

const ADMIN = { username: "Founder", name: "Fay Founder", email: "fay@example.com" };
const workspace = (passwordHash: string | null = "scrypt$x") => ({
  name: "Acme Support",
  timeZone: "Europe/Berlin",
  language: "ja" as const,
  admin: { ...ADMIN, passwordHash },
});

describe.each(DIALECTS)("creating the workspace on %s", (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await createTestDb(dialect);
    failAudit.on = "";
  });
  afterEach(() => db.cleanup());

  const counts = async () => {
    const { db: q, schema } = db.handle;
    const [users, settings, tokens, surveys, audit] = await Promise.all([
      q.select().from(schema.users),
      q.select().from(schema.settings),
      q.select().from(schema.publicTokens),
      q.select().from(schema.surveys),
      q.select().from(schema.auditLog),
    ]);
    return { users: users.length, settings: settings.length, tokens: tokens.length, surveys: surveys.length, audit: audit.length };
  };
  const nothing = { users: 0, settings: 0, tokens: 0, surveys: 0, audit: 0 };

  it("makes the admin, the settings, random public tokens and audit entries, and uses the link once", async () => {
    const token = (await setup.issueSetupToken())!;
    expect(token).toMatch(/^[\w-]{40,}$/);
    expect(await setup.setupTokenValid(token)).toBe(true);
    const { user, tokens } = await setup.createWorkspace(workspace(), { via: "setup", setupToken: token }, { ip: "10.0.0.1" });
    expect(user).toMatchObject({ username: "Founder", type: "admin", email: "fay@example.com", language: "ja", passwordHash: "scrypt$x" });
    const ws = await getWorkspace();
    expect(ws).toMatchObject({ adminName: "Acme Support", adminUsername: "Founder", timeZone: "Europe/Berlin", accountType: 1, expiresAt: null });
    for (const kind of ["livechat", "new_ticket", "survey"] as const) {
      expect(tokens[kind]).toMatch(/^[\w-]{32}$/);
      expect(await isValidToken(kind, tokens[kind])).toBe(true);
      expect(await isValidToken(kind, "demo")).toBe(false);
    }
    expect(new Set(Object.values(tokens)).size).toBe(3);
    const { db: q, schema } = db.handle;
    const [survey] = await q.select().from(schema.surveys);
    expect(survey.token).toBe(tokens.survey);
    const entries = await q.select().from(schema.auditLog);
    expect(entries.map((e) => e.action).sort()).toEqual(["user.created", "workspace.created"]);
    expect(entries.every((e) => e.actorId === user.id && e.ip === "10.0.0.1")).toBe(true);

    expect(await setup.setupTokenValid(token)).toBe(false);
    expect(await setup.installIsEmpty()).toBe(false);
    expect(await setup.issueSetupToken()).toBeUndefined();
  });

  it("a workspace per install: a second one is refused and changes nothing", async () => {
    const first = (await setup.issueSetupToken())!;
    const second = (await setup.issueSetupToken())!;
    await setup.createWorkspace(workspace(), { via: "setup", setupToken: first });
    const before = await counts();
    await expect(
      setup.createWorkspace({ ...workspace(), admin: { ...workspace().admin, username: "other" } }, { via: "setup", setupToken: second }),
    ).rejects.toBeInstanceOf(setup.WorkspaceExists);
    await expect(setup.createWorkspace(workspace(), { via: "signup" })).rejects.toBeInstanceOf(setup.WorkspaceExists);
    expect(await counts()).toEqual(before);
  });

  it("of two at once, one wins", async () => {
    const results = await Promise.allSettled([
      setup.createWorkspace(workspace(), { via: "signup" }),
      setup.createWorkspace({ ...workspace(), admin: { ...workspace().admin, username: "racer" } }, { via: "signup" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect((await counts()).users).toBe(1);
  });

  it("a used, unknown or expired link creates nothing", async () => {
    const token = (await setup.issueSetupToken())!;
    await expect(setup.createWorkspace(workspace(), { via: "setup", setupToken: "not-a-token" })).rejects.toBeInstanceOf(setup.SetupTokenInvalid);
    expect(await counts()).toMatchObject(nothing);
    await db.handle.db
      .update(db.handle.schema.oneTimeTokens)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(db.handle.schema.oneTimeTokens.purpose, "setup"));
    expect(await setup.setupTokenValid(token)).toBe(false);
    await expect(setup.createWorkspace(workspace(), { via: "setup", setupToken: token })).rejects.toBeInstanceOf(setup.SetupTokenInvalid);
    expect(await counts()).toMatchObject(nothing);
  });

  it("one transaction: a failure at the last write leaves nothing, and the link still works", async () => {
    const token = (await setup.issueSetupToken())!;
    failAudit.on = "user.created";
    await expect(setup.createWorkspace(workspace(), { via: "setup", setupToken: token })).rejects.toThrow("audit failed");
    expect(await counts()).toEqual(nothing);
    expect(await setup.installIsEmpty()).toBe(true);
    expect(await setup.setupTokenValid(token)).toBe(true);
    failAudit.on = "";
    await setup.createWorkspace(workspace(), { via: "setup", setupToken: token });
    expect((await counts()).users).toBe(1);
  });

  it("sign-up makes a trial workspace: account type 0, plan 0, 14 days, trial seats", async () => {
    const now = Date.UTC(2026, 0, 1);
    await setup.createWorkspace(workspace(), { via: "signup" }, { now });
    const ws = await getWorkspace();
    expect(ws).toMatchObject({ accountType: 0, plan: 0, expiresAt: now + 14 * 24 * 60 * 60 * 1000 });
    // a trial has the trial seats (seats.server.ts), however many a paid plan had
    expect((await seatState()).limit).toBe(Number(SETTING_DEFAULTS.trial_seats));
  });

  it("an admin made without a password gets a set-password link instead of a usable password", async () => {
    const { user, invite } = await setup.createWorkspace(workspace(null), { via: "cli" });
    expect(invite).toMatch(/^[\w-]{40,}$/);
    expect(await verifyPassword("", user.passwordHash)).toBe(false);
    const [row] = await db.handle.db.select().from(db.handle.schema.oneTimeTokens).where(eq(db.handle.schema.oneTimeTokens.purpose, "invite"));
    expect(row).toMatchObject({ userId: user.id, email: "fay@example.com", usedAt: null });
    // the link the command prints works: the invite page opens and sets the password
    const { openInvite, acceptInvite } = await import("~/accounts/invites.server");
    expect(await openInvite(invite)).toMatchObject({ id: user.id });
    await acceptInvite(invite!, "a long and quiet harbour");
    const [after] = await db.handle.db.select().from(db.handle.schema.users).where(eq(db.handle.schema.users.id, user.id));
    expect(await verifyPassword("a long and quiet harbour", after.passwordHash)).toBe(true);
  });
});

describe("the setup form", () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb("sqlite");
  });
  afterAll(() => db.cleanup());

  const post = (fields: Record<string, string>) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    return setup.readWorkspaceForm(form);
  };
  const good = {
    workspace: "Acme",
    timezone: "Asia/Tokyo",
    language: "en",
    username: "fay",
    name: "Fay",
    email: "Fay@Example.com",
    password: "correct horse battery staple",
  };

  it("reads a good form into the workspace, the password hashed", async () => {
    const read = await post(good);
    if (!read.ok) throw new Error(JSON.stringify(read.result));
    expect(read.workspace).toMatchObject({ name: "Acme", timeZone: "Asia/Tokyo", language: "en", admin: { username: "fay", email: "fay@example.com" } });
    expect(await verifyPassword(good.password, read.workspace.admin.passwordHash!)).toBe(true);
  });

  it("refuses each bad field with its reason, keeps the rest, never sends the password back", async () => {
    const read = await post({ ...good, workspace: " ", timezone: "Mars/Olympus", username: "fay smith", email: "nope", password: "short" });
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.result.errors).toEqual({
      workspace: "setup.form.workspaceRequired",
      timezone: "setup.form.timezoneInvalid",
      username: "setup.rules.usernameChars",
      email: "setup.rules.emailInvalid",
      password: "password.tooShort",
    });
    expect(read.result.values).toMatchObject({ username: "fay smith", email: "nope", name: "Fay" });
    expect(read.result.values).not.toHaveProperty("password");
    expect(read.result.messageValues).toMatchObject({ min: "12", max: "128", usernameMin: "3", usernameMax: "32" });
  });

  it("names the password's problem: common, or containing the username", async () => {
    const common = await post({ ...good, password: "password1234" });
    expect(!common.ok && common.result.errors).toEqual({ password: "password.common" });
    const named = await post({ ...good, username: "fayfounder", password: "fayfounder-secret-2026" });
    expect(!named.ok && named.result.errors).toEqual({ password: "password.containsName" });
    const long = await post({ ...good, username: "x".repeat(500) });
    expect(!long.ok && long.result.errors).toEqual({ username: "setup.rules.usernameLength" });
  });
});
