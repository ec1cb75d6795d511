// Channel settings (/settings/channels): an admin's accounts keep their secrets sealed and never
// show them back, refusals say what is wrong and keep the rest of the input, each change is
// audited, and agents are kept out.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { desc, eq, gt } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { listAccounts, loadAccount } from "@plugins/channels/accounts.server";
import { testImap } from "@plugins/email/imap.server";
import { accountSchema, deliveryTrouble, onAccountsChanged, saveAccountForm, testAccount } from "@plugins/channels/settings.server";
import { action as listAction, loader as listLoader } from "@plugins/channels/routes/settings.channels";
import { action as accountAction, loader as accountLoader } from "@plugins/channels/routes/settings.channel";

const context = { cspNonce: "", clientIp: "203.0.113.9" };
const PASSWORD = "s3cret-Pa55word!";

const form = (fields: Record<string, string>) => {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  return body;
};
const request = (path: string, cookie: string, fields?: Record<string, string>) => {
  if (!fields) return new Request(`http://localhost${path}`, { headers: { Cookie: cookie } });
  return new Request(`http://localhost${path}`, {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
  });
};
const settle = async (run: () => Promise<unknown>) => {
  try {
    return (await run()) as Response;
  } catch (thrown) {
    return thrown as Response;
  }
};

describe.each(DIALECTS)("channel settings on %s", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let adminCookie: string;
  let agentCookie: string;
  let by: { actor: { id: number; name: string }; ip: string };
  let departmentId: number;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 2 });
    admin = (await findUserByUsername("admin"))!;
    const agent = (await findUserByUsername("agent"))!;
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    agentCookie = await sessionCookie().serialize((await createSession(agent.id)).token);
    by = { actor: { id: admin.id, name: admin.username }, ip: "203.0.113.9" };
    [{ id: departmentId }] = await t.handle.db.select({ id: t.handle.schema.departments.id }).from(t.handle.schema.departments).limit(1);
  }, 60_000);
  afterAll(async () => t?.cleanup());

  const email = (address: string, extra: Record<string, string> = {}) =>
    form({ kind: "EMAIL", name: "Support", address, department: String(departmentId), "config.smtpHost": "smtp.example.com", ...extra });

  it("seals the secrets it saves: the column does not hold the password, the adapter's account does", async () => {
    const saved = await saveAccountForm(email("Help@Example.com", { "config.smtpPassword": PASSWORD, "config.smtpPort": "587" }), by);
    expect(saved.ok).toBe(true);
    if (!saved.ok) return;
    const [row] = await t.handle.db.select().from(t.handle.schema.channelAccounts).where(eq(t.handle.schema.channelAccounts.id, saved.id));
    expect(row.secrets).not.toContain(PASSWORD);
    expect(row.config).not.toContain(PASSWORD);
    expect(row.address).toBe("help@example.com");
    const account = await loadAccount(saved.id);
    expect(account?.secrets.smtpPassword).toBe(PASSWORD);
    expect(account?.config).toMatchObject({ smtpHost: "smtp.example.com", smtpPort: "587" });
    expect(account?.departmentId).toBe(departmentId);
  });

  it("a ticked TLS box is TLS for the mailbox's IMAP server (its port 993 when none is given)", async () => {
    const saved = await saveAccountForm(
      email("tls@example.com", { "config.imapHost": "127.0.0.1", "config.imapSecure": "on", "config.imapPassword": PASSWORD }),
      by,
    );
    if (!saved.ok) throw new Error("not saved");
    const account = (await loadAccount(saved.id))!;
    // nothing listens on 127.0.0.1:993 here: the Test button's answer names the port it tried
    expect(await testImap(account)).toEqual({ ok: false, error: "IMAP server 127.0.0.1:993 refused the connection" });
  });

  it("keeps a stored secret when the field is left empty, and replaces it when one is typed", async () => {
    const created = await saveAccountForm(email("keep@example.com", { "config.smtpPassword": PASSWORD }), by);
    if (!created.ok) throw new Error("not saved");
    const edited = await saveAccountForm(email("keep@example.com", { name: "Renamed", "config.smtpPassword": "" }), by, created.id);
    expect(edited.ok).toBe(true);
    let account = await loadAccount(created.id);
    expect(account?.name).toBe("Renamed");
    expect(account?.secrets.smtpPassword).toBe(PASSWORD);
    await saveAccountForm(email("keep@example.com", { "config.smtpPassword": "another-one" }), by, created.id);
    account = await loadAccount(created.id);
    expect(account?.secrets.smtpPassword).toBe("another-one");
  });

  it("never hands a secret to a page: summaries and both pages' data name which are set, not their values", async () => {
    const saved = await saveAccountForm(email("shown@example.com", { "config.smtpPassword": PASSWORD, "config.imapPassword": "imap-" + PASSWORD }), by);
    if (!saved.ok) throw new Error("not saved");
    const summaries = await listAccounts();
    expect(JSON.stringify(summaries)).not.toContain(PASSWORD);
    expect(summaries.find((s) => s.id === saved.id)?.secretsSet.sort()).toEqual(["imapPassword", "smtpPassword"]);
    const list = await listLoader({ request: request("/settings/channels", adminCookie), params: {}, context });
    expect(await list.text()).not.toContain(PASSWORD);
    const one = await accountLoader({ request: request(`/settings/channels/${saved.id}`, adminCookie), params: { id: String(saved.id) }, context });
    const text = await one.text();
    expect(text).toContain("shown@example.com");
    expect(text).not.toContain(PASSWORD);
  });

  it("refuses a second account of the same kind and address, whatever its case", async () => {
    await saveAccountForm(email("twice@example.com"), by);
    const again = await saveAccountForm(email("TWICE@example.com", { name: "Other" }), by);
    expect(again).toMatchObject({ ok: false, status: 409, result: { errors: { address: "plugin_channels.errors.addressTaken" } } });
    // ... and changing another account to it
    const other = await saveAccountForm(email("other@example.com"), by);
    if (!other.ok) throw new Error("not saved");
    const moved = await saveAccountForm(email("twice@example.com"), by, other.id);
    expect(moved).toMatchObject({ ok: false, result: { errors: { address: "plugin_channels.errors.addressTaken" } } });
  });

  it("says what is wrong with each field and keeps the rest of the input, never the secrets", async () => {
    const refused = await saveAccountForm(
      form({
        kind: "EMAIL",
        name: "  ",
        address: "not-an-address",
        department: "99999",
        "config.smtpPort": "five",
        "config.smtpPassword": PASSWORD,
        "config.smtpHost": "mx.example.com",
      }),
      by,
    );
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.result.errors).toEqual({
      name: "plugin_channels.errors.nameRequired",
      address: "account.badEmail",
      department: "plugin_channels.errors.department",
      "config.smtpPort": "plugin_channels.errors.number",
    });
    expect(refused.result.values).toMatchObject({ address: "not-an-address", "config.smtpHost": "mx.example.com", "config.smtpPort": "five" });
    expect(JSON.stringify(refused.result)).not.toContain(PASSWORD);
    expect(await saveAccountForm(form({ kind: "NOPE", name: "x", address: "x@example.com" }), by)).toMatchObject({
      ok: false,
      result: { errors: { kind: "plugin_channels.errors.kind" } },
    });
  });

  it("audits each change by name and kind, without secrets, and tells the watchers", async () => {
    const { db, schema } = t.handle;
    const [last] = await db.select({ id: schema.auditLog.id }).from(schema.auditLog).orderBy(desc(schema.auditLog.id)).limit(1);
    const told: number[] = [];
    const stop = onAccountsChanged((id) => void told.push(id));
    const cookie = adminCookie;
    const added = await listAction({
      request: request("/settings/channels", cookie, {
        intent: "add",
        kind: "EMAIL",
        name: "Sales",
        address: "sales@example.com",
        "config.smtpPassword": PASSWORD,
      }),
      params: {},
      context,
    });
    expect(added.status).toBe(302);
    const id = Number(added.headers.get("Location")!.match(/\/settings\/channels\/(\d+)/)![1]);
    const post = (fields: Record<string, string>) =>
      settle(() => accountAction({ request: request(`/settings/channels/${id}`, cookie, fields), params: { id: String(id) }, context }));
    expect((await post({ intent: "save", name: "Sales team", address: "sales@example.com" })).status).toBe(302);
    expect((await post({ intent: "disable" })).status).toBe(302);
    expect((await loadAccount(id))?.enabled).toBe(false);
    expect((await post({ intent: "enable" })).status).toBe(302);
    expect((await post({ intent: "test" })).headers.get("Location")).toBe(`/settings/channels/${id}?tested=1#state`);
    expect((await post({ intent: "delete" })).headers.get("Location")).toBe("/settings/channels?deleted=1");
    expect(await loadAccount(id)).toBeNull();
    stop();

    const rows = await db
      .select()
      .from(schema.auditLog)
      .where(gt(schema.auditLog.id, last?.id ?? 0))
      .orderBy(schema.auditLog.id);
    expect(rows.map((r) => r.action)).toEqual(["channel.create", "channel.update", "channel.disable", "channel.enable", "channel.test", "channel.delete"]);
    for (const r of rows) {
      expect(r).toMatchObject({ actorId: admin.id, targetType: "channel_account", targetId: String(id), ip: context.clientIp });
      expect(JSON.parse(r.detail)).toMatchObject({ kind: "EMAIL" });
      expect(r.detail).not.toContain(PASSWORD);
    }
    expect(JSON.parse(rows[0].detail)).toMatchObject({ name: "Sales", secretsChanged: ["smtpPassword"] });
    expect(told).toEqual([id, id, id, id, id]);
  });

  it("stores what the Test button's adapter answered, shown on the page", async () => {
    const saved = await saveAccountForm(email("tested@example.com"), by);
    if (!saved.ok) throw new Error("not saved");
    const outcome = await testAccount(saved.id, by);
    const [summary] = (await listAccounts()).filter((s) => s.id === saved.id);
    expect(summary.checkedAt).toBeGreaterThan(0);
    expect(summary.state).toBe(outcome?.ok ? "ok" : "failing");
    expect(summary.lastError).toBe(outcome?.ok ? null : outcome?.error);
    // a change to the settings makes it untested again
    await saveAccountForm(email("tested@example.com", { name: "Changed" }), by, saved.id);
    expect((await listAccounts()).find((s) => s.id === saved.id)?.state).toBe("untested");
  });

  it("counts replies waiting for a mail server and failed ones for the admin's notice", async () => {
    const { db, schema } = t.handle;
    const before = await deliveryTrouble();
    const [message] = await db.select({ id: schema.messages.id }).from(schema.messages).limit(2);
    await db.update(schema.messages).set({ deliveryState: "waiting", deliveryError: "not-configured" }).where(eq(schema.messages.id, message.id));
    expect((await deliveryTrouble()).waiting).toBe(before.waiting + 1);
    const page = await (await listLoader({ request: request("/settings/channels", adminCookie), params: {}, context })).json();
    expect(page.trouble.waiting).toBe(before.waiting + 1);
  });

  it("lists refused incoming messages, newest first, with their reason", async () => {
    const { db, schema } = t.handle;
    const at = Date.now();
    await db.insert(schema.inboundEvents).values([
      { provider: "email", eventKey: `q-${dialect}-1`, source: "smtp", state: "quarantined", error: "Claims to be from an agent", receivedAt: at - 2000 },
      { provider: "email", eventKey: `q-${dialect}-2`, source: "imap", state: "processed", receivedAt: at - 1000 },
      { provider: "email", eventKey: `q-${dialect}-3`, source: "imap", state: "failed", error: "Malformed", receivedAt: at },
    ]);
    const page = await (await listLoader({ request: request("/settings/channels", adminCookie), params: {}, context })).json();
    expect(page.refused.map((e) => [e.source, e.reason])).toEqual([
      ["imap", "Malformed"],
      ["smtp", "Claims to be from an agent"],
    ]);
  });

  it("keeps agents out of both pages and their posts", async () => {
    const list = await settle(() => listLoader({ request: request("/settings/channels", agentCookie), params: {}, context }));
    expect(list.status).toBe(403);
    const post = await settle(() =>
      listAction({
        request: request("/settings/channels", agentCookie, { intent: "add", kind: "EMAIL", name: "x", address: "agent@example.com" }),
        params: {},
        context,
      }),
    );
    expect(post.status).toBe(403);
    expect((await listAccounts()).some((a) => a.address === "agent@example.com")).toBe(false);
    const one = await settle(() => accountLoader({ request: request("/settings/channels/1", agentCookie), params: { id: "1" }, context }));
    expect(one.status).toBe(403);
  });
});

describe("an account form built from its adapter's fields", () => {
  const adapter = {
    fields: [
      { name: "token", label: "x", type: "password" as const, secret: true, required: true },
      { name: "host", label: "x", type: "text" as const, required: true },
      { name: "endpoint", label: "x", type: "url" as const },
      { name: "tls", label: "x", type: "checkbox" as const },
    ],
    validate: (config: Record<string, string>): Record<string, string> => (config.host === "localhost" ? { host: "plugin_x.errors.noLocal" } : {}),
  };
  const base = { name: "Bot", address: "+60123456789", department: "" };
  const errors = (values: Record<string, string>, secretsSet: string[] = []) => {
    const parsed = accountSchema("TELEGRAM", adapter, [], secretsSet).safeParse({ ...base, ...values });
    return parsed.success ? {} : Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message]));
  };

  it("asks for a required secret on creation only, when none is stored yet", () => {
    expect(errors({ "config.token": "", "config.host": "h" })).toEqual({ "config.token": "plugin_channels.errors.required" });
    expect(errors({ "config.token": "", "config.host": "h" }, ["token"])).toEqual({});
  });

  it("checks required fields, addresses of web links, and what the adapter refuses", () => {
    expect(errors({ "config.token": "t", "config.host": "", "config.endpoint": "ftp://x" })).toEqual({
      "config.host": "plugin_channels.errors.required",
      "config.endpoint": "plugin_channels.errors.url",
    });
    expect(errors({ "config.token": "t", "config.host": "localhost" })).toEqual({ "config.host": "plugin_x.errors.noLocal" });
  });

  it("does not take a non-email kind's address for an email address", () => {
    expect(errors({ "config.token": "t", "config.host": "h" })).toEqual({});
    expect(
      accountSchema("EMAIL", { fields: [] }, [])
        .safeParse(base)
        .error?.issues.map((i) => i.message),
    ).toEqual(["account.badEmail"]);
  });

  it("reads a ticked checkbox as 1 and an unticked one as empty", () => {
    const parsed = accountSchema("TELEGRAM", adapter, []).safeParse({ ...base, "config.token": "t", "config.host": "h", "config.tls": "1" });
    expect(parsed.data?.["config.tls"]).toBe("1");
    const off = accountSchema("TELEGRAM", adapter, []).safeParse({ ...base, "config.token": "t", "config.host": "h", "config.tls": "" });
    expect(off.data?.["config.tls"]).toBe("");
  });
});
