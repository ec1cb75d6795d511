// The audit log on both dialects: entries cannot be changed or removed (database triggers), and the
// admins' page reads them newest first, 50 a page, filtered by action, actor and days.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { audit, auditFilterSchema, listAudit, zonedDayStart, type AuditFilter } from "~/accounts/audit.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { createSession } from "~/accounts/sessions.server";
import { sessionCookie } from "~/cookies.server";
import { loader } from "~/accounts/routes/settings.audit";
import { AUDIT_ACTIONS, AUDIT_TARGETS } from "~/accounts/audit-actions";

const KL = "Asia/Kuala_Lumpur"; // UTC+8
const filter = (input: Partial<Record<string, string>> = {}): AuditFilter =>
  auditFilterSchema.parse({ action: "", actor: "", from: "", to: "", before: "", after: "", ...input });

describe.each(DIALECTS)("audit log on %s", (dialect) => {
  let t: TestDb;
  let admin: UserRow, agent: UserRow;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    [admin, agent] = await Promise.all(["admin", "agent"].map(async (u) => (await findUserByUsername(u))!));
  });
  afterAll(async () => t?.cleanup());

  it("refuses to change or remove an entry, through the models and in plain SQL", async () => {
    const { db, schema, raw } = t.handle;
    const a = schema.auditLog;
    await audit({ action: "user.disabled", actor: admin, target: { type: "user", id: agent.id }, detail: { reason: "left" }, ip: "10.0.0.1" });
    const [entry] = await db.select().from(a).where(eq(a.action, "user.disabled"));
    // the database's own refusal (drizzle wraps it: the trigger's message is the cause's)
    const refusal = (query: PromiseLike<unknown>) =>
      Promise.resolve(query).then(
        () => "done",
        (error: Error & { cause?: Error }) => `${error.message} ${error.cause?.message ?? ""}`,
      );
    expect(await refusal(db.update(a).set({ action: "user.enabled" }).where(eq(a.id, entry.id)))).toMatch(/append-only/);
    expect(await refusal(db.delete(a).where(eq(a.id, entry.id)))).toMatch(/append-only/);
    expect(await refusal(raw(sql`UPDATE audit_log SET detail = '{}'`))).toMatch(/append-only/);
    expect(await refusal(raw(sql`DELETE FROM audit_log`))).toMatch(/append-only/);
    const [after] = await db.select().from(a).where(eq(a.id, entry.id));
    expect(after).toEqual(entry);
    expect(JSON.parse(after.detail)).toEqual({ reason: "left" });
  });

  it("writes nothing when the change it records rolls back", async () => {
    const { db, schema } = t.handle;
    await expect(
      t.handle.transaction(async (tx) => {
        await audit({ action: "settings.changed", actor: admin, detail: { key: "rolled-back" } }, tx);
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    const rows = await db
      .select()
      .from(schema.auditLog)
      .where(sql`${schema.auditLog.detail} like '%rolled-back%'`);
    expect(rows).toHaveLength(0);
  });

  it("reads newest first, 50 a page, and pages both ways by id", async () => {
    for (let i = 0; i < 120; i++) await audit({ action: "plugin.toggled", actor: admin, target: { type: "plugin", id: `p${i}` }, detail: { n: i } });
    const page1 = await listAudit(filter({ action: "plugin.toggled" }), KL);
    expect(page1.entries).toHaveLength(50);
    expect(page1.entries.map((e) => e.targetId).slice(0, 3)).toEqual(["p119", "p118", "p117"]);
    expect(page1.newer).toBeNull();
    const page2 = await listAudit(filter({ action: "plugin.toggled", before: String(page1.older) }), KL);
    expect(page2.entries[0].targetId).toBe("p69");
    const page3 = await listAudit(filter({ action: "plugin.toggled", before: String(page2.older) }), KL);
    expect(page3.entries.map((e) => e.targetId)).toEqual(Array.from({ length: 20 }, (_, i) => `p${19 - i}`));
    expect(page3.older).toBeNull();
    // back: the page before page 3 is page 2 again
    const back = await listAudit(filter({ action: "plugin.toggled", after: String(page3.newer) }), KL);
    expect(back.entries.map((e) => e.id)).toEqual(page2.entries.map((e) => e.id));
    expect(back.newer).toBe(page2.newer);
    expect(back.older).toBe(page2.older);
  });

  it("filters by an action or its family, by the actor's username, and by whole days in the workspace time zone", async () => {
    const { db, schema } = t.handle;
    const at = (iso: string) => Date.parse(iso);
    const row = (action: string, when: string, actor: UserRow | null, actorName = actor?.name ?? "") => ({
      at: at(when),
      action,
      actorId: actor?.id ?? null,
      actorName,
      detail: JSON.stringify({ when }),
    });
    await db.insert(schema.auditLog).values([
      // 1 Mar 2025 00:30 in Kuala Lumpur is still 28 Feb in UTC
      row("signin.ok", "2025-02-28T16:30:00Z", agent),
      row("signin.failed", "2025-03-01T15:59:00Z", null, ""),
      row("signin.ok", "2025-03-01T16:00:00Z", admin), // 2 Mar, 00:00 local
      row("signins.odd", "2025-03-01T10:00:00Z", agent),
      row("user.updated", "2025-03-01T10:00:00Z", admin),
    ]);
    const actions = async (f: Partial<Record<string, string>>) => (await listAudit(filter(f), KL)).entries.map((e) => `${e.action}@${e.detail[0][1]}`);
    expect(await actions({ action: "signin", from: "2025-03-01", to: "2025-03-01" })).toEqual([
      "signin.failed@2025-03-01T15:59:00Z",
      "signin.ok@2025-02-28T16:30:00Z",
    ]);
    expect(await actions({ action: "signin.ok", from: "2025-03-01", to: "2025-03-02" })).toEqual([
      "signin.ok@2025-03-01T16:00:00Z",
      "signin.ok@2025-02-28T16:30:00Z",
    ]);
    expect(await actions({ action: "SIGNIN.", from: "2025-03-02" })).toEqual(["signin.ok@2025-03-01T16:00:00Z"]);
    expect(await actions({ actor: "Agent", from: "2025-03-01", to: "2025-03-01" })).toEqual([
      "signins.odd@2025-03-01T10:00:00Z",
      "signin.ok@2025-02-28T16:30:00Z",
    ]);
    expect(await actions({ actor: "nobody-here", from: "2025-03-01" })).toEqual([]);
    // the same day in UTC is another window
    expect((await listAudit(filter({ action: "signin", from: "2025-03-01", to: "2025-03-01" }), "UTC")).entries.map((e) => e.action)).toEqual([
      "signin.ok",
      "signin.failed",
    ]);
  });

  it("labels the known actions, keeps others as written, and names a user target", async () => {
    await audit({ action: "user.created", actor: admin, target: { type: "user", id: agent.id }, detail: { html: "<b>x</b>", nested: { a: 1 } } });
    await audit({ action: "custom.thing", actor: null, target: { type: "gadget", id: "7" } });
    const { entries } = await listAudit(filter({}), KL, 2);
    expect(entries[0]).toMatchObject({ action: "custom.thing", known: false, targetType: "gadget", targetId: "7", targetName: null, actorName: "" });
    expect(entries[1]).toMatchObject({ action: "user.created", known: true, targetName: "agent", actorUsername: "admin" });
    expect(entries[1].detail).toEqual([
      ["html", "<b>x</b>"],
      ["nested", '{"a":1}'],
    ]);
  });
});

describe("the page's labels", () => {
  it("name every known action and target kind (the other languages follow English: locales.test.ts)", () => {
    const en = JSON.parse(fs.readFileSync(path.resolve("public/locales/en/audit.json"), "utf8")).audit;
    const at = (root: Record<string, unknown>, dotted: string) =>
      dotted.split(".").reduce<unknown>((node, k) => (node as Record<string, unknown> | undefined)?.[k], root);
    for (const action of AUDIT_ACTIONS) expect(typeof at(en.action, action), action).toBe("string");
    for (const target of AUDIT_TARGETS) expect(typeof en.target[target], target).toBe("string");
  });

  it("cover every action the code writes, so no entry shows as raw text", () => {
    const written = new Set<string>();
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
          for (const m of fs.readFileSync(file, "utf8").matchAll(/action: "([a-z_]+\.[a-z_]+)"/g)) written.add(m[1]);
      }
    };
    ["app", "plugins"].forEach((dir) => walk(path.resolve(dir)));
    expect(written.size).toBeGreaterThan(20);
    expect([...written].filter((a) => !(AUDIT_ACTIONS as readonly string[]).includes(a))).toEqual([]);
  });
});

describe("the filters' days", () => {
  it("start at local midnight, across a change to daylight saving time", () => {
    expect(zonedDayStart("2025-03-01", KL)).toBe(Date.parse("2025-02-28T16:00:00Z"));
    // New York: 9 Mar 2025 starts at 05:00 UTC (EST), 10 Mar at 04:00 UTC (EDT)
    expect(zonedDayStart("2025-03-09", "America/New_York")).toBe(Date.parse("2025-03-09T05:00:00Z"));
    expect(zonedDayStart("2025-03-10", "America/New_York")).toBe(Date.parse("2025-03-10T04:00:00Z"));
  });
  it("refuse malformed dates, a range that ends before it starts and odd actions", () => {
    const refused = (input: Record<string, string>) => {
      const parsed = auditFilterSchema.safeParse({ action: "", actor: "", from: "", to: "", before: "", after: "", ...input });
      return parsed.success ? {} : Object.fromEntries(parsed.error.issues.map((i) => [i.path[0], i.message]));
    };
    expect(refused({ from: "2025-02-30" })).toEqual({ from: "audit.errors.badDate" });
    expect(refused({ from: "2025-03-02", to: "2025-03-01" })).toEqual({ to: "audit.errors.rangeOrder" });
    expect(refused({ action: "signin' or 1=1" })).toEqual({ action: "audit.errors.badAction" });
    expect(refused({ before: "-1" })).toEqual({ before: "audit.errors.badPage" });
  });
});

describe("GET /settings/audit", () => {
  let t: TestDb;
  const get = async (username: string, query = "") => {
    const user = (await findUserByUsername(username))!;
    const cookie = await sessionCookie().serialize((await createSession(user.id)).token);
    const request = new Request(`http://localhost/settings/audit${query}`, { headers: { Cookie: cookie } });
    try {
      return await loader({ request, params: {}, context: { cspNonce: "", clientIp: "127.0.0.1" } });
    } catch (thrown) {
      return thrown as Response;
    }
  };
  beforeAll(async () => {
    t = await createTestDb("sqlite");
    await seedDemo(t.handle, { tickets: 0 });
    await audit({ action: "export.csv", actor: { id: 1, name: "Demo Admin" }, detail: { dashboard: "omnichannel" } });
  });
  afterAll(async () => t?.cleanup());

  it("is for admins only", async () => {
    expect((await get("agent")).status).toBe(403);
    const page = await get("admin");
    expect(page.status).toBe(200);
    const data = await page.json();
    expect(data.entries.map((e: { action: string }) => e.action)).toContain("export.csv");
  });

  it("answers a bad filter with the field's error and no entries", async () => {
    const page = await get("admin", "?from=yesterday");
    expect(page.status).toBe(400);
    expect(await page.json()).toMatchObject({ refused: { errors: { from: "audit.errors.badDate" } }, entries: [] });
  });
});
