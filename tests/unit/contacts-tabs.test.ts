// Custom contact tabs and the order and names of custom fields, on both dialects: admins add a tab
// (name, start_index, data_per_page; wrong numbers refused with what was typed kept) and remove
// it; /contacts?tab=&index= and GET /api/contacts/custom show the tab's slice of the contacts in
// the order they were added, data_per_page a page, with its total, and answer bad or past-the-end
// pages with a clear message; agents see tabs but cannot manage them, and hide_contacts keeps
// them out. Renaming a field keeps every value; moving one changes the order the contact page
// shows, kept in the database. The profile card of a customer: the contact behind the conversation
// (the contacts plugin's customerProfile), its Activity, Tickets and Live Chat tabs and
// GET /api/user/profile/{offset} with its pages, only conversations the viewer may read.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, ne } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { contactTabs } from "@plugins/contacts/tabs.server";
import { customFields, customValues, inputName, saveCustomValues } from "@plugins/contacts/custom-fields.server";
import { action as tabsAction, loader as tabsLoader } from "@plugins/contacts/routes/tabs";
import { action as fieldsAction } from "@plugins/contacts/routes/fields";
import { loader as contactLoader } from "@plugins/contacts/routes/contact";
import { loader as listLoader } from "@plugins/contacts/routes/contacts";
import { loader as customApi } from "@plugins/contacts/routes/api.contacts.custom";
import { receive } from "~/conversation/receive.server";
import { linkPending } from "@plugins/contacts/link.server";
import { profileCard } from "~/accounts/profile.server";
import { loader as profileApi } from "~/accounts/routes/api.profile";
import { plugins } from "~/plugins/registry.server";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-contacts-tabs-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const context = { cspNonce: "", clientIp: "203.0.113.7" };

describe.each(DIALECTS)("Contact tabs and field order (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  let adminCookie: string;
  let agentCookie: string;
  let agentToken: string;
  /** the uids of the contacts made here, in the order they were added */
  const made: string[] = [];

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    agentToken = (await createSession(agent.id)).token;
    agentCookie = await sessionCookie().serialize(agentToken);
    const { db, schema } = t.handle;
    // the seed may bring contacts of its own: the tabs count from whatever is there
    const now = Date.now();
    for (let i = 0; i < 23; i++) {
      const uid = `tabs${dialect}${String(i).padStart(3, "0")}`;
      await db.insert(schema.contacts).values({ uid, name: `Person ${i}`, nameKey: `person ${i}`, createdAt: now - i * 1000, updatedAt: now });
      made.push(uid);
    }
  }, 60_000);
  afterAll(async () => t?.cleanup());

  const settle = async (run: () => Promise<unknown>) => {
    try {
      return (await run()) as Response;
    } catch (thrown) {
      return thrown as Response;
    }
  };
  const get = (url: string, cookie: string) => new Request(`http://localhost${url}`, { headers: { Cookie: cookie } });
  const post = (url: string, cookie: string, fields: Record<string, string>) =>
    new Request(`http://localhost${url}`, { method: "POST", headers: { Cookie: cookie }, body: new URLSearchParams(fields) });
  const allBefore = async () => {
    const { db, schema } = t.handle;
    const rows = await db.select({ id: schema.contacts.id, uid: schema.contacts.uid }).from(schema.contacts).orderBy(schema.contacts.id);
    return rows.map((r) => r.uid);
  };

  it("admins add tabs; a wrong name or number is refused with the field named and everything typed kept; agents are sent back", async () => {
    const add = (cookie: string, fields: Record<string, string>) =>
      settle(() => tabsAction({ request: post("/contacts/tabs", cookie, fields), params: {}, context }));
    expect((await add(agentCookie, { name: "Mine", start_index: "0", data_per_page: "5" })).headers.get("Location")).toBe("/contacts");
    const typed = { name: "  ", start_index: "-3", data_per_page: "500" };
    const refused = await add(adminCookie, typed);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      intent: "addTab",
      values: typed,
      errors: {
        name: "plugin_contacts.tabs.error.nameRequired",
        start_index: "plugin_contacts.tabs.error.startIndex",
        data_per_page: "plugin_contacts.tabs.error.dataPerPage",
      },
      messageValues: { start: "10000000", perPage: "100" },
    });
    expect((await add(adminCookie, { name: "Batch", start_index: "1.5", data_per_page: "0" })).status).toBe(400);
    expect(await contactTabs()).toEqual([]);
    expect((await add(adminCookie, { name: "Second batch", start_index: "10", data_per_page: "5" })).headers.get("Location")).toBe("/contacts/tabs?added=1");
    expect((await add(adminCookie, { name: "Everyone", start_index: "0", data_per_page: "100" })).headers.get("Location")).toBe("/contacts/tabs?added=1");
    expect((await contactTabs()).map((tab) => [tab.name, tab.startIndex, tab.dataPerPage])).toEqual([
      ["Second batch", 10, 5],
      ["Everyone", 0, 100],
    ]);
    const page = await (await settle(() => tabsLoader({ request: get("/contacts/tabs", adminCookie), params: {}, context: { ...context } }))).json();
    expect(page.tabs).toHaveLength(2);
    expect((await settle(() => tabsLoader({ request: get("/contacts/tabs", agentCookie), params: {}, context: { ...context } }))).status).toBe(302);
  });

  it("a tab shows its slice in the order contacts were added, data_per_page a page, on the page and in GET /api/contacts/custom", async () => {
    const [batch] = await contactTabs();
    const all = await allBefore();
    const slice = all.slice(10);
    const total = slice.length;
    const pages = Math.ceil(total / 5);

    const page = async (query: string, cookie = agentCookie) =>
      settle(() => listLoader({ request: get(`/contacts?${query}`, cookie), params: {}, context: { ...context } }));
    const first = await page(`tab=${batch.id}`);
    expect(first.status).toBe(200);
    const shown = await first.json();
    expect(shown).toMatchObject({ view: "tab", page: { total, index: 0, pages, first: 0 } });
    expect(shown.tabs.map((tab: { name: string }) => tab.name)).toEqual(["Second batch", "Everyone"]);
    expect(shown.page.contacts.map((c: { uid: string }) => c.uid)).toEqual(slice.slice(0, 5));
    const second = await (await page(`tab=${batch.id}&index=1`)).json();
    expect(second.page.contacts.map((c: { uid: string }) => c.uid)).toEqual(slice.slice(5, 10));
    // the last page holds what is left
    const last = await (await page(`tab=${batch.id}&index=${pages - 1}`)).json();
    expect(last.page.contacts.map((c: { uid: string }) => c.uid)).toEqual(slice.slice((pages - 1) * 5));

    // bad input: a clear message, and the page still renders with the tabs
    const notNumber = await page(`tab=${batch.id}&index=two`);
    expect(notNumber.status).toBe(400);
    expect(await notNumber.json()).toMatchObject({ error: { key: "plugin_contacts.tabs.error.index", values: { index: "two" } } });
    const pastEnd = await page(`tab=${batch.id}&index=${pages}`);
    expect(pastEnd.status).toBe(404);
    expect(await pastEnd.json()).toMatchObject({ error: { key: "plugin_contacts.tabs.error.pastEnd", values: { count: pages } }, page: { pages } });
    const unknown = await page("tab=999999");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      error: { key: "plugin_contacts.tabs.error.notFound" },
      tabs: [{ name: "Second batch" }, { name: "Everyone" }],
    });

    const api = (query: string, token = agentToken) =>
      settle(() => customApi({ request: new Request(`http://localhost/api/contacts/custom?_token=${token}&${query}`), params: {}, context: { ...context } }));
    const answer = await api(`id=${batch.id}&index=1`);
    expect(answer.status).toBe(200);
    const body = await answer.json();
    expect(body).toMatchObject({ result: "success", total, index: 1, pages, tab: { id: batch.id, name: "Second batch", start_index: 10, data_per_page: 5 } });
    expect(body.data.map((c: { uid: string }) => c.uid)).toEqual(slice.slice(5, 10));
    expect(Object.keys(body.data[0]).sort()).toEqual(["created_at", "email", "id", "name", "phone", "salutation", "uid"]);
    // index defaults to the first page
    expect((await (await api(`id=${batch.id}`)).json()).data.map((c: { uid: string }) => c.uid)).toEqual(slice.slice(0, 5));
    expect(await (await api(`id=${batch.id}&index=-1`)).json()).toEqual({ result: "failed", description: "The index must be a whole number from 0." });
    expect((await api(`id=${batch.id}&index=-1`)).status).toBe(400);
    expect((await api("index=0")).status).toBe(400);
    expect((await api("id=abc")).status).toBe(400);
    const gone = await api("id=999999");
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ result: "failed", description: "No such contact tab." });
    const past = await api(`id=${batch.id}&index=${pages}`);
    expect(past.status).toBe(404);
    expect(await past.json()).toMatchObject({ result: "failed", total, pages });
    expect((await api(`id=${batch.id}`, "not-a-token")).status).toBe(403);

    // a merged-away contact leaves the tab (and the total)
    const { db, schema } = t.handle;
    const [into] = await db.select({ id: schema.contacts.id }).from(schema.contacts).where(eq(schema.contacts.uid, slice[0]));
    await db.update(schema.contacts).set({ mergedInto: into.id, mergedAt: Date.now() }).where(eq(schema.contacts.uid, slice[1]));
    const after = await (await api(`id=${batch.id}`)).json();
    expect(after.total).toBe(total - 1);
    expect(after.data.map((c: { uid: string }) => c.uid)).toEqual([slice[0], ...slice.slice(2, 6)]);
    await db.update(schema.contacts).set({ mergedInto: null, mergedAt: null }).where(eq(schema.contacts.uid, slice[1]));

    // hide_contacts keeps an agent out of both
    await db
      .update(schema.users)
      .set({ permissions: JSON.stringify(["hide_contacts"]) })
      .where(eq(schema.users.id, agent.id));
    try {
      expect((await page(`tab=${batch.id}`)).status).toBe(302);
      expect((await api(`id=${batch.id}`)).status).toBe(403);
    } finally {
      await db.update(schema.users).set({ permissions: "[]" }).where(eq(schema.users.id, agent.id));
    }
  });

  it("a tab that starts past the last contact is empty with one page; removing a tab keeps its contacts", async () => {
    const add = await settle(() =>
      tabsAction({ request: post("/contacts/tabs", adminCookie, { name: "Later", start_index: "100000", data_per_page: "20" }), params: {}, context }),
    );
    expect(add.status).toBe(302);
    const later = (await contactTabs()).find((tab) => tab.name === "Later")!;
    const body = await (
      await settle(() =>
        customApi({ request: new Request(`http://localhost/api/contacts/custom?_token=${agentToken}&id=${later.id}`), params: {}, context: { ...context } }),
      )
    ).json();
    expect(body).toMatchObject({ result: "success", total: 0, data: [], index: 0, pages: 1 });
    const before = (await allBefore()).length;
    const removed = await settle(() =>
      tabsAction({ request: post("/contacts/tabs", adminCookie, { intent: "remove", tab: String(later.id) }), params: {}, context }),
    );
    expect(removed.headers.get("Location")).toBe("/contacts/tabs?removed=1");
    expect((await contactTabs()).map((tab) => tab.name)).not.toContain("Later");
    expect((await allBefore()).length).toBe(before);
    const again = await settle(() =>
      tabsAction({ request: post("/contacts/tabs", adminCookie, { intent: "remove", tab: String(later.id) }), params: {}, context }),
    );
    expect(again.status).toBe(404);
    // each change is in the audit log
    const log = t.handle.schema.auditLog;
    const entries = await t.handle.db.select().from(log).where(eq(log.targetType, "contact_tab")).orderBy(log.id);
    expect(entries.map((e) => e.action)).toEqual(["contact.tab_added", "contact.tab_added", "contact.tab_added", "contact.tab_removed"]);
  });

  it("renaming a field keeps every contact's value; moving fields changes the order the contact page shows, kept in the database", async () => {
    const fieldsPost = (fields: Record<string, string>, cookie = adminCookie) =>
      settle(() => fieldsAction({ request: post("/contacts/fields", cookie, fields), params: {}, context }));
    for (const label of ["Tier", "Region", "Since"]) await fieldsPost({ label, kind: "text", options: "", required: "" });
    const [tier, region, since] = await customFields();
    const [uid] = made;
    const { db, schema } = t.handle;
    const [contact] = await db.select({ id: schema.contacts.id }).from(schema.contacts).where(eq(schema.contacts.uid, uid));
    expect((await saveCustomValues(contact.id, { [inputName(tier.id)]: "Gold", [inputName(region.id)]: "North", [inputName(since.id)]: "2019" })).ok).toBe(
      true,
    );

    // a rename keeps the values; an empty or long label is refused with what was typed kept
    expect((await fieldsPost({ intent: "rename", field: String(tier.id), label: " Loyalty tier " })).headers.get("Location")).toBe(
      "/contacts/fields?renamed=1",
    );
    const empty = await fieldsPost({ intent: "rename", field: String(region.id), label: "   " });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({
      intent: "rename",
      errors: { label: "plugin_contacts.customFields.error.labelRequired" },
      values: { field: String(region.id), label: "   " },
    });
    expect((await fieldsPost({ intent: "rename", field: String(region.id), label: "x".repeat(81) })).status).toBe(400);
    expect((await fieldsPost({ intent: "rename", field: "999999", label: "Ghost" })).status).toBe(404);
    expect((await fieldsPost({ intent: "rename", field: String(region.id), label: "Hijacked" }, agentCookie)).headers.get("Location")).toBe("/contacts");
    expect((await customFields()).map((f) => f.label)).toEqual(["Loyalty tier", "Region", "Since"]);
    expect(await customValues(contact.id)).toEqual({ [tier.id]: "Gold", [region.id]: "North", [since.id]: "2019" });

    // moves: the last one up twice is first; the first one down once; at an end nothing moves
    expect((await fieldsPost({ intent: "up", field: String(since.id) })).headers.get("Location")).toBe(`/contacts/fields?moved=${since.id}`);
    await fieldsPost({ intent: "up", field: String(since.id) });
    await fieldsPost({ intent: "up", field: String(since.id) });
    expect((await customFields()).map((f) => f.label)).toEqual(["Since", "Loyalty tier", "Region"]);
    await fieldsPost({ intent: "down", field: String(tier.id) });
    expect((await fieldsPost({ intent: "down", field: "999999" })).status).toBe(404);
    // retired fields keep their place among all
    await fieldsPost({ intent: "retire", field: String(region.id) });
    expect((await customFields({ all: true })).map((f) => f.label)).toEqual(["Since", "Region", "Loyalty tier"]);
    expect((await customFields()).map((f) => f.label)).toEqual(["Since", "Loyalty tier"]);
    await fieldsPost({ intent: "restore", field: String(region.id) });
    const positions = await db
      .select({ id: schema.contactFields.id, position: schema.contactFields.position })
      .from(schema.contactFields)
      .orderBy(schema.contactFields.position);
    expect(positions.map((p) => p.id)).toEqual([since.id, region.id, tier.id]);

    // the contact page shows them in that order, with the values
    const shown = await (
      await settle(() => contactLoader({ request: get(`/contacts/${uid}`, agentCookie), params: { "*": uid }, context: { ...context } }))
    ).json();
    expect(shown.fields.map((f: { label: string }) => f.label)).toEqual(["Since", "Region", "Loyalty tier"]);
    expect(shown.fieldValues).toEqual({ [tier.id]: "Gold", [region.id]: "North", [since.id]: "2019" });

    const log = t.handle.schema.auditLog;
    const entries = await db.select().from(log).where(eq(log.targetType, "contact_field")).orderBy(log.id);
    expect(entries.filter((e) => e.action === "contact.field_renamed").map((e) => JSON.parse(e.detail))).toEqual([{ name: "Loyalty tier", from: "Tier" }]);
    expect(entries.filter((e) => e.action === "contact.field_moved")).toHaveLength(3);
  });

  it("a customer's profile card: the linked contact across channels, Activity 5 a page, Tickets and Live Chat 10, only what the viewer may read", async () => {
    const agentRow = agent;
    const writes = async (who: { channel: string; email?: string; phone?: string; kind?: string; departmentId?: number | null }, at: number) => {
      const written = await receive({
        ticket: {
          channel: who.channel,
          title: `Card ${at}`,
          contactName: "Rina Card",
          contactEmail: who.email ?? "",
          contactPhone: who.phone ?? "",
          customerId: "",
          departmentId: who.departmentId === undefined ? agentRow.departmentId : who.departmentId,
          receiverEmail: "",
          channelAccountId: null,
        },
        message: { body: `Hello ${at}`, type: "text", senderName: "Rina Card" },
        files: [],
      });
      return written.ticket;
    };
    // one mail gives both the email and the phone; later an SMS by phone alone, in another form
    const mail = await writes({ channel: "EMAIL", email: `rina.${dialect}@example.com`, phone: "+60 12-777 0001" }, 1);
    for (let i = 2; i <= 7; i++) await writes({ channel: "EMAIL", email: `rina.${dialect}@example.com` }, i);
    const sms = await writes({ channel: "SMS", phone: "012-777 0001" }, 8);
    await linkPending();
    const { db, schema } = t.handle;
    const scope = {
      viewer: { type: "agent" as const, permissions: [], clientId: 0, plan: 3, variant: "default" as const },
      enabled: plugins().map((p) => p.id),
      trial: false,
    };
    const card = (query: string) => profileCard(agentRow, new URLSearchParams(query), "Asia/Kuala_Lumpur", scope);
    const activity = (await card(`ticket=${sms.ticketNumber}`))!;
    const [linked] = await db
      .select({ contactId: schema.contactTickets.contactId })
      .from(schema.contactTickets)
      .where(eq(schema.contactTickets.ticketId, sms.id));
    const [contact] = await db.select({ uid: schema.contacts.uid }).from(schema.contacts).where(eq(schema.contacts.id, linked.contactId));
    expect(activity).toMatchObject({
      tabs: ["activity", "ticket", "livechat"],
      tab: "activity",
      shown: 5,
      step: 5,
      more: true,
      person: { kind: "contact", name: "Rina Card", uid: contact.uid, email: `rina.${dialect}@example.com`, phone: "+60127770001" },
    });
    // the SMS found by its phone, with the mails found by their email: one customer
    expect(activity.items).toHaveLength(5);
    const all = (await card(`ticket=${sms.ticketNumber}&shown=10`))!;
    expect(all).toMatchObject({ shown: 10, more: false });
    expect(all.items.map((i) => i.ticketNumber)).toEqual(expect.arrayContaining([mail.ticketNumber, sms.ticketNumber]));
    expect(all.items).toHaveLength(8);
    const tickets = (await card(`ticket=${mail.ticketNumber}&tab=ticket`))!;
    expect(tickets).toMatchObject({ tab: "ticket", step: 10, shown: 10, more: false });
    expect(tickets.items).toHaveLength(8);
    const chats = (await card(`ticket=${mail.ticketNumber}&tab=livechat`))!;
    expect(chats).toMatchObject({ tab: "livechat", items: [], more: false, person: { uid: contact.uid } });

    // the JSON twin: by a phone in any form, paged by offset; type picks a tab
    const api = (path: string, token = agentToken) =>
      settle(() =>
        profileApi({
          request: new Request(`http://localhost${path}${path.includes("?") ? "&" : "?"}_token=${token}`),
          params: { offset: path.split("/")[4]?.split("?")[0] },
          context: { ...context },
        }),
      );
    const first = await (await api("/api/user/profile/0?mode=quick&phone=0127770001")).json();
    expect(first).toMatchObject({
      result: "success",
      mode: "quick",
      type: "activity",
      more: true,
      data: { type: "contact", uid: contact.uid, name: "Rina Card" },
    });
    expect(first.activity).toHaveLength(5);
    expect(Object.keys(first.activity[0]).sort()).toEqual(["channel", "closed", "id", "ticket_number", "title", "ts", "type"]);
    const rest = await (await api("/api/user/profile/5?phone=%2B60127770001")).json();
    expect(rest).toMatchObject({ more: false });
    expect(rest.activity).toHaveLength(3);
    expect([...first.activity, ...rest.activity].map((a: { id: number }) => a.id)).not.toContain(undefined);
    const byKind = await (await api(`/api/user/profile/0?type=ticket&id=${sms.id}`)).json();
    expect(byKind).toMatchObject({ type: "ticket", more: false });
    expect(byKind.activity).toHaveLength(8);
    expect((await api("/api/user/profile/0?type=sms&phone=0127770001")).status).toBe(400);
    expect((await api("/api/user/profile/-1?phone=0127770001")).status).toBe(400);
    expect((await api("/api/user/profile/0")).status).toBe(400);

    // an agent of another department reads none of them: nothing is revealed
    const [otherDept] = await db
      .select({ id: schema.departments.id })
      .from(schema.departments)
      .where(ne(schema.departments.id, agentRow.departmentId ?? -1))
      .limit(1);
    const stranger = await db
      .insert(schema.users)
      .values({
        username: `stranger${dialect}`,
        name: "Stranger",
        email: `stranger.${dialect}@example.com`,
        passwordHash: "x",
        type: "agent",
        departmentId: otherDept.id,
        createdAt: Date.now(),
      })
      .returning({ id: schema.users.id });
    const strangerToken = (await createSession(stranger[0].id)).token;
    expect((await api("/api/user/profile/0?phone=0127770001", strangerToken)).status).toBe(404);
  });
});
