// Contacts, on both dialects: every conversation is linked to one contact by its email (any case),
// its phone (in any of the forms channels and people write it) or its channel id, by the plugin's
// job, once however often and on however many nodes it runs; the ID number rules of each type;
// the contact page's identity form (a wrong number refused with everything kept) and its activity
// list (only conversations the viewer may read, 5 a page); GET /api/contacts/list.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, count, eq } from "drizzle-orm";
import { openDatabase, type DbHandle } from "@db/client";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { receive } from "~/conversation/receive.server";
import { createJobWorker } from "~/jobs/queue.server";
import { birthDate, checkIdNumber } from "@plugins/contacts/identity";
import { normalisePhone } from "@plugins/contacts/identities";
import { defineLinkJob, firstUnlinked, linkPending, linkTicket, queueLinking } from "@plugins/contacts/link.server";
import { contactActivity, contactByUid } from "@plugins/contacts/contacts.server";
import { action as contactAction, loader as contactLoader } from "@plugins/contacts/routes/contact";
import { action as fieldsAction } from "@plugins/contacts/routes/fields";
import { customFields, customValues, inputName, saveCustomValues } from "@plugins/contacts/custom-fields.server";
import { mergeContacts, undoMerge } from "@plugins/contacts/merge.server";
import { loader as listLoader } from "@plugins/contacts/routes/contacts";
import { loader as apiLoader } from "@plugins/contacts/routes/api.contacts.list";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-contacts-data-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

// a load context per request: GET loaders of one request share their context by it
const context = { cspNonce: "", clientIp: "203.0.113.7" };
const NOW = new Date("2025-06-01T00:00:00Z");

describe("ID numbers per type", () => {
  it("takes a MyKad with a real birth date and place code, written with or without dashes, and keeps it as YYMMDD-PB-####", () => {
    expect(checkIdNumber("mykad", "900101-14-5678", NOW)).toEqual({ ok: true, number: "900101-14-5678" });
    expect(checkIdNumber("mykad", "900101145678", NOW)).toEqual({ ok: true, number: "900101-14-5678" });
    expect(checkIdNumber("pr_mykad", "000229 71 1234", NOW)).toEqual({ ok: true, number: "000229-71-1234" });
    expect(checkIdNumber("mykid", "150315-10-0001", NOW)).toEqual({ ok: true, number: "150315-10-0001" });
    // a baby's record carries the mother's MyKad, under the same rules
    expect(checkIdNumber("baby_of", "850720-08-5432", NOW)).toEqual({ ok: true, number: "850720-08-5432" });
  });

  it("refuses a MyKid whose holder is 12 or older, naming the age (the card is a child's until then)", () => {
    expect(checkIdNumber("mykid", "130602-10-0001", NOW)).toEqual({ ok: true, number: "130602-10-0001" });
    expect(checkIdNumber("mykid", "130601-10-0001", NOW)).toEqual({ ok: false, error: "plugin_contacts.idError.mykidAge", values: { age: "12" } });
    expect(checkIdNumber("mykid", "850720-08-5432", NOW)).toEqual({ ok: false, error: "plugin_contacts.idError.mykidAge", values: { age: "39" } });
  });

  it("refuses a MyKad of the wrong length, with no real birth date, or with a place code no state or country has", () => {
    expect(checkIdNumber("mykad", "900101-14-567", NOW)).toMatchObject({ ok: false, error: "plugin_contacts.idError.mykadFormat" });
    expect(checkIdNumber("mykad", "9001011456789", NOW)).toMatchObject({ ok: false, error: "plugin_contacts.idError.mykadFormat" });
    expect(checkIdNumber("mykad", "90010A-14-5678", NOW)).toMatchObject({ ok: false, error: "plugin_contacts.idError.mykadFormat" });
    expect(checkIdNumber("mykad", "901301-14-5678", NOW)).toEqual({ ok: false, error: "plugin_contacts.idError.mykadDate", values: { date: "901301" } });
    expect(checkIdNumber("mykad", "010229-14-5678", NOW)).toMatchObject({ ok: false, error: "plugin_contacts.idError.mykadDate" });
    expect(checkIdNumber("mykad", "900431-14-5678", NOW)).toMatchObject({ ok: false, error: "plugin_contacts.idError.mykadDate" });
    for (const code of ["00", "17", "20", "69", "70", "73", "80", "81", "94", "97"])
      expect(checkIdNumber("mykad", `900101-${code}-5678`, NOW)).toEqual({ ok: false, error: "plugin_contacts.idError.mykadPlace", values: { code } });
    expect(checkIdNumber("baby_of", "901301-14-5678", NOW)).toMatchObject({ ok: false, error: "plugin_contacts.idError.mykadDate" });
    expect(checkIdNumber("mykad", "", NOW)).toMatchObject({ ok: false, error: "plugin_contacts.idError.required" });
  });

  it("reads the century from the date: not in the future", () => {
    expect(birthDate("250531", NOW)?.getUTCFullYear()).toBe(2025);
    expect(birthDate("250602", NOW)?.getUTCFullYear()).toBe(1925);
    expect(birthDate("960229", NOW)?.getUTCFullYear()).toBe(1996);
  });

  it("checks passports, army and police IDs, and keeps no number for None or Refuses to provide", () => {
    expect(checkIdNumber("passport", "a1234567", NOW)).toEqual({ ok: true, number: "A1234567" });
    expect(checkIdNumber("passport", "A12", NOW)).toMatchObject({ ok: false, error: "plugin_contacts.idError.passport" });
    expect(checkIdNumber("passport", "A12345678X", NOW)).toMatchObject({ ok: false, error: "plugin_contacts.idError.passport" });
    expect(checkIdNumber("army", "T1234567", NOW)).toEqual({ ok: true, number: "T1234567" });
    expect(checkIdNumber("police", "RF 12345", NOW)).toEqual({ ok: true, number: "RF12345" });
    expect(checkIdNumber("police", "12AB34", NOW)).toMatchObject({ ok: false, error: "plugin_contacts.idError.service" });
    expect(checkIdNumber("", "900101-14-5678", NOW)).toEqual({ ok: true, number: "" });
    expect(checkIdNumber("refused", "anything", NOW)).toEqual({ ok: true, number: "" });
    expect(checkIdNumber("driving", "123", NOW)).toMatchObject({ ok: false, error: "plugin_contacts.idError.type" });
  });

  it("reads one phone number in the forms people and channels write it", () => {
    for (const form of ["+60 12-345 6789", "0060123456789", "012-345 6789", "60123456789", "(012) 3456789"]) expect(normalisePhone(form)).toBe("+60123456789");
    expect(normalisePhone("+44 20 7946 0958")).toBe("+442079460958");
    expect(normalisePhone("12")).toBe("");
  });
});

describe.each(DIALECTS)("Contacts (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  let adminCookie: string;
  let agentCookie: string;
  let agentToken: string;
  let seq = 0;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    agentToken = (await createSession(agent.id)).token;
    agentCookie = await sessionCookie().serialize(agentToken);
    defineLinkJob();
  }, 60_000);
  afterAll(async () => t?.cleanup());

  /** A customer's message through the conversation's own door, as a channel would bring it. */
  const writesIn = async (who: { channel?: string; name?: string; email?: string; phone?: string; customerId?: string; departmentId?: number | null }) => {
    const written = await receive({
      ticket: {
        channel: who.channel ?? "EMAIL",
        title: `Question ${++seq}`,
        contactName: who.name ?? "",
        contactEmail: who.email ?? "",
        contactPhone: who.phone ?? "",
        customerId: who.customerId ?? "",
        departmentId: who.departmentId === undefined ? agent.departmentId : who.departmentId,
        receiverEmail: "",
        channelAccountId: null,
      },
      message: { body: `Hello ${seq}`, type: "text", senderName: who.name ?? "" },
      files: [],
    });
    return written.ticket;
  };
  const contactOf = async (ticketId: number) => {
    const { db, schema } = t.handle;
    const [row] = await db.select().from(schema.contactTickets).where(eq(schema.contactTickets.ticketId, ticketId));
    return row?.contactId;
  };
  const identities = async (contactId: number) => {
    const { db, schema } = t.handle;
    const ci = schema.contactIdentities;
    return (await db.select({ kind: ci.kind, value: ci.value }).from(ci).where(eq(ci.contactId, contactId)).orderBy(asc(ci.kind), asc(ci.value))).map(
      (i) => `${i.kind} ${i.value}`,
    );
  };
  const contactCount = async () => Number((await t.handle.db.select({ n: count() }).from(t.handle.schema.contacts))[0].n);

  it("links conversations with one email, in any case, to one contact named from the first", async () => {
    const first = await writesIn({ name: "Aisha Rahman", email: "Aisha.Rahman@Example.com" });
    const second = await writesIn({ name: "", email: " aisha.rahman@example.com" });
    await linkPending();
    const contactId = await contactOf(first.id);
    expect(contactId).toBeDefined();
    expect(await contactOf(second.id)).toBe(contactId);
    expect(await identities(contactId!)).toEqual(["email aisha.rahman@example.com"]);
    const [contact] = await t.handle.db.select().from(t.handle.schema.contacts).where(eq(t.handle.schema.contacts.id, contactId!));
    expect(contact.name).toBe("Aisha Rahman");
    expect(contact.uid).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it("links one phone number in its different forms across channels, and learns a contact's phone from a mail that gives both", async () => {
    const sms = await writesIn({ channel: "SMS", name: "+60123450001", phone: "+60 12-345 0001", customerId: "+60123450001" });
    const whatsapp = await writesIn({ channel: "WHATSAPP", name: "Ben", phone: "60123450001", customerId: "60123450001" });
    const mail = await writesIn({ name: "Ben Lim", email: "ben@example.com", phone: "012-345 0001" });
    await linkPending();
    const contactId = await contactOf(sms.id);
    expect(await contactOf(whatsapp.id)).toBe(contactId);
    expect(await contactOf(mail.id)).toBe(contactId);
    expect(await identities(contactId!)).toEqual(["channel SMS:+60123450001", "channel WHATSAPP:60123450001", "email ben@example.com", "phone +60123450001"]);
  });

  it("a live chat or web form finds the contact its typed email names but adds nothing to it: nobody attaches their phone to another person's contact", async () => {
    const real = await writesIn({ name: "Nurul Huda", email: "nurul@example.com", phone: "012-777 0001" });
    await linkPending();
    const contactId = (await contactOf(real.id))!;
    for (const channel of ["LIVECHAT", "MANUAL"]) {
      const typed = await writesIn({ channel, name: "Not Nurul", email: "NURUL@example.com", phone: `019-666 000${channel.length}` });
      await linkPending();
      expect(await contactOf(typed.id)).toBe(contactId);
    }
    expect(await identities(contactId)).toEqual(["email nurul@example.com", "phone +60127770001"]);
    // a phone typed into a form is kept when it makes a new contact (nobody else claimed it)
    const fresh = await writesIn({ channel: "LIVECHAT", name: "Walk-in", phone: "019-555 0009" });
    await linkPending();
    expect(await identities((await contactOf(fresh.id))!)).toEqual(["phone +60195550009"]);
  });

  it("links by channel id when that is all a channel gives; the same id on another channel is someone else", async () => {
    const a = await writesIn({ channel: "TELEGRAM", name: "Chen", customerId: "70001" });
    const b = await writesIn({ channel: "TELEGRAM", name: "Chen W.", customerId: "70001" });
    const other = await writesIn({ channel: "LINE_DM", name: "Dara", customerId: "70001" });
    await linkPending();
    expect(await contactOf(b.id)).toBe(await contactOf(a.id));
    expect(await contactOf(other.id)).not.toBe(await contactOf(a.id));
    expect(await identities((await contactOf(other.id))!)).toEqual(["channel LINE_DM:70001"]);
  });

  it("leaves workspace chats alone and changes nothing when run again", async () => {
    const { db, schema } = t.handle;
    const chat = await writesIn({ channel: "chat", name: "Alya Agent" });
    const before = await contactCount();
    expect(await linkPending()).toMatchObject({ linked: 0 });
    expect(await contactOf(chat.id)).toBeUndefined();
    expect(await contactCount()).toBe(before);
    expect(await firstUnlinked(0)).toMatchObject({ first: undefined });
    const links = Number((await db.select({ n: count() }).from(schema.contactTickets))[0].n);
    await linkPending();
    expect(Number((await db.select({ n: count() }).from(schema.contactTickets))[0].n)).toBe(links);
  });

  it("makes one contact per person when two nodes link the same conversations at once", async () => {
    // two connections to one database, as two nodes have (SQLite: one node, its transactions in turn)
    const other: DbHandle = dialect === "pg" ? openDatabase(t.url) : t.handle;
    try {
      const before = await contactCount();
      const tickets = [];
      for (let round = 0; round < 3; round++)
        for (let person = 0; person < 8; person++)
          tickets.push(
            await writesIn(
              round === 1
                ? { channel: "WHATSAPP", name: `Twin ${person}`, phone: `+6019888000${person}`, customerId: `6019888000${person}` }
                : { name: `Twin ${person}`, email: `twin${person}@example.com`, phone: `019-888 000${person}` },
            ),
          );
      // each person's first and last conversations linked by the two nodes at the same moment
      for (let person = 0; person < 8; person++) await Promise.all([linkTicket(tickets[person], t.handle), linkTicket(tickets[16 + person], other)]);
      // then both walk the rest at once
      await Promise.all([linkPending({ handle: t.handle }), linkPending({ handle: other })]);
      expect(await contactCount()).toBe(before + 8);
      const contactIds = new Set(await Promise.all(tickets.map((ticket) => contactOf(ticket.id))));
      expect(contactIds.size).toBe(8);
      expect([...contactIds].every((id) => typeof id === "number")).toBe(true);
    } finally {
      if (other !== t.handle) await other.close();
    }
  });

  it("links new conversations through the job the plugin queues", async () => {
    const ticket = await writesIn({ name: "Queued Quinn", email: "quinn@example.com" });
    const { first } = await firstUnlinked(0);
    expect(first).toBe(ticket.id);
    await queueLinking(first!);
    await queueLinking(first!); // a second node seeing the same work queues nothing more
    const worker = createJobWorker({ log: () => undefined });
    expect(await worker.runOnce()).toBe(1);
    expect(await contactOf(ticket.id)).toBeDefined();
    expect(await firstUnlinked(0)).toMatchObject({ first: undefined });
  });

  const get = (url: string, cookie: string) => new Request(`http://localhost${url}`, { headers: { Cookie: cookie } });
  const settle = async (run: () => Promise<unknown>) => {
    try {
      return (await run()) as Response;
    } catch (thrown) {
      return thrown as Response;
    }
  };

  it("shows a contact only the conversations the viewer may read, newest first, 5 a page", async () => {
    const email = "many@example.com";
    const own = [];
    for (let i = 0; i < 6; i++) own.push(await writesIn({ name: "Many Mei", email }));
    // another department's conversation: the agent (Support) may not read it, the admin may
    const elsewhere = await writesIn({ name: "Many Mei", email, departmentId: 1 });
    await linkPending();
    const contactId = (await contactOf(own[0].id))!;
    expect(await contactOf(elsewhere.id)).toBe(contactId);

    const agentPage1 = await contactActivity(agent, contactId, 1);
    expect(agentPage1.items.map((i) => i.ticketNumber)).toEqual(
      own
        .slice(1)
        .reverse()
        .map((x) => x.ticketNumber),
    );
    expect(agentPage1.more).toBe(true);
    const agentPage2 = await contactActivity(agent, contactId, 2);
    expect(agentPage2).toMatchObject({ items: [{ ticketNumber: own[0].ticketNumber, path: `/ticket/${own[0].ticketNumber}` }], more: false });
    const adminPage1 = await contactActivity(admin, contactId, 1);
    expect(adminPage1.items[0].ticketNumber).toBe(elsewhere.ticketNumber);
    // the oldest conversation gets a new message: it leads the timeline
    const { db, schema } = t.handle;
    await db
      .update(schema.tickets)
      .set({ updatedAt: Date.now() + 60_000 })
      .where(eq(schema.tickets.id, own[0].id));
    expect((await contactActivity(agent, contactId, 1)).items[0].ticketNumber).toBe(own[0].ticketNumber);
    expect((await contactActivity(admin, contactId, 1)).items[0].ticketNumber).toBe(own[0].ticketNumber);

    // the page says the same
    const contact = (await t.handle.db.select().from(t.handle.schema.contacts).where(eq(t.handle.schema.contacts.id, contactId)))[0];
    const page = await settle(() =>
      contactLoader({ request: get(`/contacts/${contact.uid}`, agentCookie), params: { "*": contact.uid }, context: { ...context } }),
    );
    const data = await page.json();
    expect(data.activity.items.map((i: { ticketNumber: number }) => i.ticketNumber)).not.toContain(elsewhere.ticketNumber);
    expect(data.contact.emails).toEqual([email]);
    // the profile card's link by email lands on the contact
    const byEmail = await settle(() =>
      contactLoader({ request: get(`/contacts/MANY@example.com`, agentCookie), params: { "*": "MANY@example.com" }, context: { ...context } }),
    );
    expect(byEmail.status).toBe(302);
    expect(byEmail.headers.get("Location")).toBe(`/contacts/${contact.uid}`);
    const unknown = await settle(() =>
      contactLoader({ request: get(`/contacts/nobody@example.com`, agentCookie), params: { "*": "nobody@example.com" }, context: { ...context } }),
    );
    expect(unknown.status).toBe(404);
  });

  it("saves an ID number that fits its type and refuses one that does not, keeping what was typed", async () => {
    const ticket = await writesIn({ name: "Ida", email: "ida@example.com" });
    await linkPending();
    const [row] = await t.handle.db
      .select()
      .from(t.handle.schema.contacts)
      .where(eq(t.handle.schema.contacts.id, (await contactOf(ticket.id))!));
    const post = (fields: Record<string, string>) =>
      settle(() =>
        contactAction({
          request: new Request(`http://localhost/contacts/${row.uid}`, { method: "POST", headers: { Cookie: agentCookie }, body: new URLSearchParams(fields) }),
          params: { "*": row.uid },
          context,
        }),
      );
    const fields = { salutation: "Puan", name: "Ida Hassan", idType: "mykad", idNumber: "901301-14-5678", notes: "Prefers mail" };
    const refused = await post(fields);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      intent: "identity",
      errors: { idNumber: "plugin_contacts.idError.mykadDate" },
      messageValues: { date: "901301" },
      values: fields,
    });
    expect((await contactByUid(row.uid))!.name).toBe("Ida");

    const saved = await post({ ...fields, idNumber: "900101145678" });
    expect(saved.status).toBe(302);
    expect(saved.headers.get("Location")).toBe(`/contacts/${row.uid}?saved=1`);
    expect(await contactByUid(row.uid)).toMatchObject({
      salutation: "Puan",
      name: "Ida Hassan",
      idType: "mykad",
      idNumber: "900101-14-5678",
      notes: "Prefers mail",
    });

    // refusing to provide keeps no number
    await post({ ...fields, idType: "refused", idNumber: "900101145678" });
    expect(await contactByUid(row.uid)).toMatchObject({ idType: "refused", idNumber: "" });
  });

  it("custom fields: admins add text, number, date and select fields; a contact's values are checked per kind, refused with the typed values kept", async () => {
    const fieldsPost = (cookie: string, fields: Record<string, string>) =>
      settle(() =>
        fieldsAction({
          request: new Request("http://localhost/contacts/fields", { method: "POST", headers: { Cookie: cookie }, body: new URLSearchParams(fields) }),
          params: {},
          context,
        }),
      );
    // agents are sent back to the list; a select without choices is refused
    expect((await fieldsPost(agentCookie, { label: "Tier", kind: "text", options: "", required: "" })).headers.get("Location")).toBe("/contacts");
    const noChoices = await fieldsPost(adminCookie, { label: "Tier", kind: "select", options: " \n ", required: "" });
    expect(noChoices.status).toBe(400);
    expect(await noChoices.json()).toMatchObject({
      errors: { options: "plugin_contacts.customFields.error.optionsRequired" },
      values: { label: "Tier", kind: "select" },
    });
    for (const f of [
      { label: "Loyalty no.", kind: "text", options: "", required: "1" },
      { label: "Units owned", kind: "number", options: "", required: "" },
      { label: "Warranty ends", kind: "date", options: "", required: "" },
      { label: "Tier", kind: "select", options: "Gold\nSilver\nGold\nBronze", required: "" },
    ])
      expect((await fieldsPost(adminCookie, f)).headers.get("Location")).toBe("/contacts/fields?added=1");
    const fields = await customFields();
    expect(fields.map((f) => [f.label, f.kind, f.options, f.required])).toEqual([
      ["Loyalty no.", "text", [], true],
      ["Units owned", "number", [], false],
      ["Warranty ends", "date", [], false],
      ["Tier", "select", ["Gold", "Silver", "Bronze"], false],
    ]);
    const [loyalty, units, warranty, tier] = fields.map((f) => inputName(f.id));

    const ticket = await writesIn({ name: "Farid", email: "farid@example.com" });
    await linkPending();
    const [row] = await t.handle.db
      .select()
      .from(t.handle.schema.contacts)
      .where(eq(t.handle.schema.contacts.id, (await contactOf(ticket.id))!));
    const post = (values: Record<string, string>) =>
      settle(() =>
        contactAction({
          request: new Request(`http://localhost/contacts/${row.uid}`, {
            method: "POST",
            headers: { Cookie: agentCookie },
            body: new URLSearchParams({ intent: "customFields", ...values }),
          }),
          params: { "*": row.uid },
          context,
        }),
      );
    const typed = { [loyalty]: "", [units]: "three", [warranty]: "2027-02-30", [tier]: "Platinum" };
    const refused = await post(typed);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      intent: "customFields",
      message: "plugin_contacts.error.check",
      errors: {
        [loyalty]: "plugin_contacts.customFields.error.required",
        [units]: "plugin_contacts.customFields.error.number",
        [warranty]: "plugin_contacts.customFields.error.date",
        [tier]: "plugin_contacts.customFields.error.select",
      },
      values: typed,
    });
    expect(await customValues(row.id)).toEqual({});

    const saved = await post({ [loyalty]: " L-778 ", [units]: "1,204.5", [warranty]: "2027-02-28", [tier]: "Silver" });
    expect(saved.headers.get("Location")).toBe(`/contacts/${row.uid}?fieldsSaved=1#contact-custom`);
    const page = await settle(() => contactLoader({ request: get(`/contacts/${row.uid}`, agentCookie), params: { "*": row.uid }, context: { ...context } }));
    const shown = await page.json();
    expect(shown.fields.map((f: { label: string }) => f.label)).toEqual(["Loyalty no.", "Units owned", "Warranty ends", "Tier"]);
    expect(Object.values(shown.fieldValues)).toEqual(["L-778", "1204.5", "2027-02-28", "Silver"]);

    // a retired field is neither shown nor required, and its value comes back with it
    const retire = await fieldsPost(adminCookie, { intent: "retire", field: String(fields[0].id) });
    expect(retire.headers.get("Location")).toBe("/contacts/fields");
    expect((await post({ [units]: "", [warranty]: "", [tier]: "" })).status).toBe(302);
    expect(await customValues(row.id)).toEqual({ [fields[0].id]: "L-778" });
    await fieldsPost(adminCookie, { intent: "restore", field: String(fields[0].id) });
    expect((await customFields()).map((f) => f.label)).toContain("Loyalty no.");
    // each change of the fields is in the audit log, by the admin who made it
    const log = t.handle.schema.auditLog;
    const entries = await t.handle.db.select().from(log).where(eq(log.targetType, "contact_field")).orderBy(log.id);
    expect(entries.map((e) => [e.action, e.actorName, e.targetId, JSON.parse(e.detail).name])).toEqual([
      ...fields.map((f) => ["contact.field_added", "admin", String(f.id), f.label]),
      ["contact.field_retired", "admin", String(fields[0].id), "Loyalty no."],
      ["contact.field_restored", "admin", String(fields[0].id), "Loyalty no."],
    ]);

    // a merge copies the other contact's values of fields this one has none of (its own win); the undo takes exactly those back
    const other = await writesIn({ name: "Farid R", email: "farid.r@example.com" });
    await linkPending();
    const [otherRow] = await t.handle.db
      .select()
      .from(t.handle.schema.contacts)
      .where(eq(t.handle.schema.contacts.id, (await contactOf(other.id))!));
    expect((await saveCustomValues(otherRow.id, { [loyalty]: "L-999", [units]: "7" })).ok).toBe(true);
    const merged = await mergeContacts(row.uid, otherRow.uid, admin);
    expect(merged.ok).toBe(true);
    expect(await customValues(row.id)).toEqual({ [fields[0].id]: "L-778", [fields[1].id]: "7" });
    expect((await undoMerge((merged as { mergeId: number }).mergeId, admin)).ok).toBe(true);
    expect(await customValues(row.id)).toEqual({ [fields[0].id]: "L-778" });
    expect(await customValues(otherRow.id)).toEqual({ [fields[0].id]: "L-999", [fields[1].id]: "7" });
  });

  it("finds contacts by name, email or phone on /contacts and GET /api/contacts/list; an agent with hide_contacts is kept out", async () => {
    const list = async (q: string) => {
      const data = await (
        await settle(() => listLoader({ request: get(`/contacts?q=${encodeURIComponent(q)}`, adminCookie), params: {}, context: { ...context } }))
      ).json();
      return data.contacts.map((c: { name: string }) => c.name);
    };
    expect(await list("aisha")).toEqual(["Aisha Rahman"]);
    expect(await list("BEN@example")).toEqual(["+60123450001"]);
    expect(await list("012 345 0001")).toEqual(["+60123450001"]);
    expect(await list("3450001")).toEqual(["+60123450001"]);
    expect(await list("nobody-like-this")).toEqual([]);

    const api = await settle(() =>
      apiLoader({
        request: new Request(`http://localhost/api/contacts/list?_token=${agentToken}&keyword=twin&pagination=3&page=2`),
        params: {},
        context: { ...context },
      }),
    );
    expect(api.status).toBe(200);
    const body = await api.json();
    expect(body).toMatchObject({ result: "success", page: 2, more: true });
    expect(body.data.map((c: { name: string }) => c.name)).toEqual(["Twin 4", "Twin 3", "Twin 2"]);
    const noToken = await settle(() => apiLoader({ request: new Request(`http://localhost/api/contacts/list`), params: {}, context: { ...context } }));
    expect(noToken.status).toBe(403);

    await t.handle.db
      .update(t.handle.schema.users)
      .set({ permissions: JSON.stringify(["hide_contacts"]) })
      .where(eq(t.handle.schema.users.id, agent.id));
    try {
      const page = await settle(() => listLoader({ request: get("/contacts", agentCookie), params: {}, context: { ...context } }));
      expect(page.status).toBe(302);
      const denied = await settle(() =>
        apiLoader({ request: new Request(`http://localhost/api/contacts/list?_token=${agentToken}`), params: {}, context: { ...context } }),
      );
      expect(denied.status).toBe(403);
    } finally {
      await t.handle.db.update(t.handle.schema.users).set({ permissions: "[]" }).where(eq(t.handle.schema.users.id, agent.id));
    }
  });
});
