// Contacts beyond the customer's own page, on both dialects: 'View Profile' of a team member, a
// bot or a live chat visitor lands on a profile page (only conversations the viewer may read);
// merging two contacts moves their identities and conversations in one go and an undo within a
// day puts exactly that back, refusing a merge into itself or into a merged contact; duplicates
// by name or by phone under another country code; the CSV import's dry run (each bad row with its
// reason, Windows-1252 and a BOM read right), its import (10,000 rows; run again adds nothing)
// and the export read back.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, count, eq, inArray } from "drizzle-orm";
import { parse } from "csv-parse/sync";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { receive } from "~/conversation/receive.server";
import { fileStorage } from "~/storage.server";
import { linkPending } from "@plugins/contacts/link.server";
import { contactByUid, listContacts } from "@plugins/contacts/contacts.server";
import { mergeContacts, undoMerge, UNDO_MS } from "@plugins/contacts/merge.server";
import { duplicatesOf } from "@plugins/contacts/duplicates.server";
import { applyImport, BATCH_ROWS, dryRun } from "@plugins/contacts/csv.server";
import { action as contactAction, loader as contactLoader } from "@plugins/contacts/routes/contact";
import { action as mergeAction, loader as mergeLoader } from "@plugins/contacts/routes/merge";
import { action as importAction } from "@plugins/contacts/routes/import";
import { loader as exportLoader } from "@plugins/contacts/routes/export";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-contacts-records-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const context = { cspNonce: "", clientIp: "203.0.113.7" };
const HEADER = "name,salutation,email,phone,id_type,id_number\n";

/** Windows-1252 bytes of a text (the characters these tests use). */
const cp1252 = (text: string) => Buffer.from(text, "latin1");

describe.each(DIALECTS)("Contacts records (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  let agent2: UserRow;
  const cookies: Record<string, string> = {};
  let seq = 0;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    [admin, agent, agent2] = await Promise.all(["admin", "agent", "agent2"].map(async (u) => (await findUserByUsername(u))!));
    for (const u of [admin, agent, agent2]) cookies[u.username] = await sessionCookie().serialize((await createSession(u.id)).token);
  }, 60_000);
  afterAll(async () => t?.cleanup());

  const writesIn = async (who: { channel?: string; name?: string; email?: string; phone?: string; customerId?: string; departmentId?: number | null }) =>
    (
      await receive({
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
      })
    ).ticket;
  const settle = async (run: () => Promise<unknown>) => {
    try {
      return (await run()) as Response;
    } catch (thrown) {
      return thrown as Response;
    }
  };
  const get = (url: string, who: UserRow) => new Request(`http://localhost${url}`, { headers: { Cookie: cookies[who.username] } });
  const post = (url: string, who: UserRow, body: URLSearchParams | FormData) =>
    new Request(`http://localhost${url}`, { method: "POST", headers: { Cookie: cookies[who.username] }, body });
  const page = (uid: string, who: UserRow) =>
    settle(() => contactLoader({ request: get(`/contacts/${uid}`, who), params: { "*": uid }, context: { ...context } }));
  const contactOf = async (ticketId: number) => {
    const { db, schema } = t.handle;
    const [row] = await db
      .select({ uid: schema.contacts.uid, id: schema.contacts.id })
      .from(schema.contactTickets)
      .innerJoin(schema.contacts, eq(schema.contacts.id, schema.contactTickets.contactId))
      .where(eq(schema.contactTickets.ticketId, ticketId));
    return row;
  };
  /** A contact's identities and conversations, as a merge and its undo must leave them. */
  const holdings = async (contactId: number) => {
    const { db, schema } = t.handle;
    const ci = schema.contactIdentities;
    const identities = (await db.select().from(ci).where(eq(ci.contactId, contactId)).orderBy(asc(ci.kind), asc(ci.value))).map((i) => `${i.kind} ${i.value}`);
    const tickets = (
      await db.select().from(schema.contactTickets).where(eq(schema.contactTickets.contactId, contactId)).orderBy(asc(schema.contactTickets.ticketId))
    ).map((r) => r.ticketId);
    return { identities, tickets };
  };
  const contactCount = async () => Number((await t.handle.db.select({ n: count() }).from(t.handle.schema.contacts))[0].n);

  it("shows a team member's profile with only the conversations the viewer may read; a bot's; a live chat visitor's", async () => {
    const { db, schema } = t.handle;
    const support = await writesIn({ name: "Sam", email: "sam@example.com", departmentId: 2 });
    const sales = await writesIn({ name: "Sal", email: "sal@example.com", departmentId: 1 });
    await db.insert(schema.participants).values([
      { ticketId: support.id, userId: agent.id, addedAt: Date.now() },
      { ticketId: sales.id, userId: agent.id, addedAt: Date.now() },
    ]);
    await db.update(schema.users).set({ secondStatus: "AWAY" }).where(eq(schema.users.id, agent.id));

    const byAdmin = await (await page("agent", admin)).json();
    expect(byAdmin).toMatchObject({
      view: "staff",
      staff: { kind: "user", username: "agent", name: "Alya Agent", type: "agent", department: "Support", status: "AWAY", photo: "" },
    });
    expect(byAdmin.staff.conversations.ticket.items.map((i: { ticketNumber: number }) => i.ticketNumber)).toEqual([sales.ticketNumber, support.ticketNumber]);
    expect(byAdmin.staff.conversations.ticket.items[0].path).toBe(`/ticket/${sales.ticketNumber}`);
    // agent2 (Sales) reads the Sales conversation, not the Support one; nor the agent's email
    const byAgent2 = await (await page("agent", agent2)).json();
    expect(byAgent2.staff.conversations.ticket.items.map((i: { ticketNumber: number }) => i.ticketNumber)).toEqual([sales.ticketNumber]);
    expect(byAgent2.staff.email).toBeUndefined();

    expect(await (await page("bot", agent)).json()).toMatchObject({ view: "staff", staff: { kind: "bot", username: "bot" } });

    const chat = await writesIn({ channel: "LIVECHAT", name: "Vera Visitor", email: "vera@example.com", departmentId: 2 });
    expect(await (await page(`livechat-${chat.ticketNumber}`, agent)).json()).toMatchObject({
      view: "visitor",
      visitor: { name: "Vera Visitor", email: "vera@example.com", path: `/livechat/${chat.ticketNumber}` },
    });
    // a chat agent2 may not read tells nothing
    expect((await page(`livechat-${chat.ticketNumber}`, agent2)).status).toBe(404);
    expect((await page("no-such-user", agent)).status).toBe(404);
  });

  it("merges a contact with its identities and conversations, redirects its page, and an undo puts exactly that back", async () => {
    const a1 = await writesIn({ name: "Nur Aina", email: "aina@example.com" });
    const b1 = await writesIn({ channel: "WHATSAPP", name: "Aina", phone: "+60 12-777 0001", customerId: "60127770001" });
    const b2 = await writesIn({ name: "Aina", email: "aina.work@example.com" });
    await linkPending();
    const a = (await contactOf(a1.id))!;
    const b = (await contactOf(b1.id))!;
    expect((await contactOf(b2.id))!.id).not.toBe(b.id); // another email: a third contact
    const beforeA = await holdings(a.id);
    const beforeB = await holdings(b.id);

    // the preview says what moves
    const preview = await (
      await settle(() => mergeLoader({ request: get(`/contacts/${a.uid}/merge?with=${b.uid}`, agent), params: { uid: a.uid }, context: { ...context } }))
    ).json();
    expect(preview.preview).toMatchObject({
      ok: true,
      conversations: 1,
      identities: [
        { kind: "channel", value: "WHATSAPP:60127770001" },
        { kind: "phone", value: "+60127770001" },
      ],
    });
    const merged = await settle(() =>
      mergeAction({ request: post(`/contacts/${a.uid}/merge`, agent, new URLSearchParams({ from: b.uid })), params: { uid: a.uid }, context }),
    );
    expect(merged.status).toBe(302);
    expect(merged.headers.get("Location")).toBe(`/contacts/${a.uid}?merged=1#contact-merges`);
    expect(await holdings(b.id)).toEqual({ identities: [], tickets: [] });
    expect(await holdings(a.id)).toEqual({
      identities: [...beforeA.identities, ...beforeB.identities].sort(),
      tickets: [...beforeA.tickets, ...beforeB.tickets].sort((x, y) => x - y),
    });
    const moved = await page(b.uid, agent);
    expect(moved.status).toBe(302);
    expect(moved.headers.get("Location")).toBe(`/contacts/${a.uid}`);
    expect((await listContacts({ q: "aina" })).contacts.map((c) => c.uid)).not.toContain(b.uid);

    // a new conversation on the moved phone now belongs to A, and stays there after the undo
    const later = await writesIn({ channel: "SMS", name: "Aina", phone: "+60127770001", customerId: "+60127770001" });
    await linkPending();
    expect((await contactOf(later.id))!.id).toBe(a.id);

    const shown = await (await page(a.uid, agent)).json();
    expect(shown.merges).toHaveLength(1);
    const undone = await settle(() =>
      contactAction({
        request: post(`/contacts/${a.uid}`, agent, new URLSearchParams({ intent: "undo", merge: String(shown.merges[0].id) })),
        params: { "*": a.uid },
        context,
      }),
    );
    expect(undone.status).toBe(302);
    expect(undone.headers.get("Location")).toBe(`/contacts/${a.uid}?undone=1#contact-merges`);
    expect(await holdings(b.id)).toEqual(beforeB);
    const afterA = await holdings(a.id);
    expect(afterA.tickets).toEqual([...beforeA.tickets, later.id].sort((x, y) => x - y));
    expect(afterA.identities).toEqual([...beforeA.identities, "channel SMS:+60127770001"].sort());
    expect((await contactByUid(b.uid))!.mergedInto).toBeNull();
    expect((await page(b.uid, agent)).status).toBe(200);

    // undone once is undone
    const again = await settle(() =>
      contactAction({
        request: post(`/contacts/${a.uid}`, agent, new URLSearchParams({ intent: "undo", merge: String(shown.merges[0].id) })),
        params: { "*": a.uid },
        context,
      }),
    );
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ intent: "undo", message: "plugin_contacts.merge.undoRefused.undone" });
  });

  it("refuses a merge into itself, into a merged contact or of a merged one, and an undo after a day", async () => {
    const [x, y, z] = await Promise.all(["x", "y", "z"].map((n) => writesIn({ name: `Refusal ${n}`, email: `refusal.${n}@example.com` })));
    await linkPending();
    const [cx, cy, cz] = await Promise.all([x, y, z].map(async (ticket) => (await contactOf(ticket.id))!));
    const self = await settle(() =>
      mergeAction({ request: post(`/contacts/${cx.uid}/merge`, agent, new URLSearchParams({ from: cx.uid })), params: { uid: cx.uid }, context }),
    );
    expect(self.status).toBe(409);
    expect(await self.json()).toMatchObject({ message: "plugin_contacts.merge.refused.self" });

    const start = Date.now();
    const done = await mergeContacts(cx.uid, cy.uid, agent, start);
    expect(done.ok).toBe(true);
    // the audit log says who merged which into which
    const log = t.handle.schema.auditLog;
    const entries = await t.handle.db.select().from(log).where(eq(log.action, "contact.merged"));
    expect(entries.map((e) => [e.actorName, e.targetId, JSON.parse(e.detail).from])).toContainEqual([agent.username, cx.uid, cy.uid]);
    expect(await mergeContacts(cy.uid, cz.uid, agent)).toEqual({ ok: false, refusal: "intoMerged" });
    expect(await mergeContacts(cz.uid, cy.uid, agent)).toEqual({ ok: false, refusal: "fromMerged" });
    // the merge page of a merged contact goes to the one it joined; its preview refuses
    const preview = await (
      await settle(() => mergeLoader({ request: get(`/contacts/${cz.uid}/merge?with=${cy.uid}`, agent), params: { uid: cz.uid }, context: { ...context } }))
    ).json();
    expect(preview.preview).toEqual({ ok: false, refusal: "fromMerged" });
    expect(await holdings(cz.id)).toMatchObject({ identities: ["email refusal.z@example.com"] });

    if (!done.ok) throw new Error("merge failed");
    expect(await undoMerge(done.mergeId, agent, start + UNDO_MS + 1)).toEqual({ ok: false, refusal: "expired" });
    // once the contact went on into another, its first merge cannot be undone
    expect((await mergeContacts(cz.uid, cx.uid, agent, start)).ok).toBe(true);
    expect(await undoMerge(done.mergeId, agent, start + 1000)).toEqual({ ok: false, refusal: "mergedAgain" });
    expect(await holdings(cz.id)).toMatchObject({ identities: ["email refusal.x@example.com", "email refusal.y@example.com", "email refusal.z@example.com"] });
  });

  it("suggests duplicates by the same name (case and spaces aside) or the same phone under another country code", async () => {
    const { db, schema } = t.handle;
    const one = await writesIn({ name: "Siti  Nurhaliza", email: "siti1@example.com", phone: "+60 13-555 0101" });
    const two = await writesIn({ name: "siti nurhaliza", email: "siti2@example.com" });
    const three = await writesIn({ name: "S. Nurhaliza", email: "siti3@example.com" });
    const other = await writesIn({ name: "Someone Else", email: "else@example.com" });
    await linkPending();
    const [c1, c2, c3] = await Promise.all([one, two, three].map(async (ticket) => (await contactOf(ticket.id))!));
    // the same national number typed under Singapore's code
    await db.insert(schema.contactIdentities).values({ contactId: c3.id, kind: "phone", value: "+65135550101" });
    const contact = (await contactByUid(c1.uid))!;
    const found = await duplicatesOf(contact);
    expect(found).toEqual(
      expect.arrayContaining([
        { uid: c2.uid, name: "siti nurhaliza", reasons: ["name"] },
        { uid: c3.uid, name: "S. Nurhaliza", reasons: ["phone"], phone: "+65135550101" },
      ]),
    );
    expect(found).toHaveLength(2);
    expect(found.map((d) => d.uid)).not.toContain((await contactOf(other.id))!.uid);
    // the page lists them
    expect((await (await page(c2.uid, agent)).json()).duplicates.map((d: { uid: string }) => d.uid)).toContain(c1.uid);
  });

  const upload = async (bytes: Buffer, name: string, who = admin) => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(bytes)], { type: "text/csv" }), name);
    return settle(() => importAction({ request: post("/contacts/import", who, form), params: {}, context }));
  };

  it("dry-runs a CSV: each bad row with its reason, Windows-1252 names and a BOM read right, nothing written", async () => {
    await writesIn({ name: "Taken", email: "taken@example.com" });
    await linkPending();
    const before = await contactCount();
    const rows = [
      "José Müller,Encik,jose@example.com,012-345 1111,mykad,900101-14-5678", // 2 good (Windows-1252)
      "Bad Mail,,not-an-email,,,", // 3
      "Bad Phone,,,12,,", // 4
      "Bad Kad,,kad@example.com,,mykad,901301-14-5678", // 5
      "Twice,,JOSE@example.com,,,", // 6: the email of row 2
      "Taken Elsewhere,,taken@example.com,,,", // 7
      "Passport Ok,,pass@example.com,,Passport No.,a1234567", // 8 good (the label is read too)
      ",,,,,", // 9 an empty row is skipped
      "Nobody,,,,police,12AB", // 10
    ];
    const text = HEADER + rows.join("\r\n") + "\r\n";
    const response = await upload(cp1252(text), "people.csv");
    expect(response.status).toBe(200);
    const checked = await response.json();
    expect(checked).toMatchObject({ view: "checked", rows: 8, good: 2, bad: 6, skipped: 0 });
    expect(checked.errors.map((e: { row: number; field: string; error: string }) => [e.row, e.field, e.error])).toEqual([
      [3, "email", "plugin_contacts.csv.badEmail"],
      [4, "phone", "plugin_contacts.csv.badPhone"],
      [5, "id_number", "plugin_contacts.idError.mykadDate"],
      [6, "email", "plugin_contacts.csv.emailTwice"],
      [7, "email", "plugin_contacts.csv.emailTaken"],
      [10, "id_number", "plugin_contacts.idError.service"],
    ]);
    expect(checked.errors[3].values).toEqual({ row: "2" });
    expect(await contactCount()).toBe(before);

    // the same file in UTF-8 with a BOM reads the same; then imported, José keeps his accents
    const bom = await (await upload(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, "utf8")]), "people-utf8.csv")).json();
    expect(bom).toMatchObject({ rows: 8, good: 2, bad: 6 });
    const imported = await settle(() =>
      importAction({ request: post("/contacts/import", admin, new URLSearchParams({ import: String(bom.importId) })), params: {}, context }),
    );
    expect(imported.status).toBe(302);
    expect(await contactCount()).toBe(before + 2);
    const jose = (await listContacts({ q: "jose@example.com" })).contacts;
    expect(jose).toMatchObject([{ name: "José Müller", salutation: "Encik", phone: "+60123451111" }]);
    expect(await contactByUid(jose[0].uid)).toMatchObject({ idType: "mykad", idNumber: "900101-14-5678" });

    // a header without the columns, and agents, are refused
    const wrong = await upload(Buffer.from("full name,mail\nA,b@example.com\n"), "wrong.csv");
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ errors: { file: "plugin_contacts.csv.missingColumns" } });
    const byAgent = await upload(Buffer.from(text), "agent.csv", agent);
    expect(byAgent.status).toBe(302);
    expect(byAgent.headers.get("Location")).toBe("/contacts");
  });

  it("imports 10,000 rows in batches of 1,000; the same file again adds nothing; the export reads back the same", { timeout: 120_000 }, async () => {
    const n = 10_000;
    const lines = Array.from({ length: n }, (_, i) => `Bulk Person ${i},,bulk${i}@example.com,+6011${String(20000000 + i)},,`);
    const bytes = Buffer.from(HEADER + lines.join("\n"));
    const before = await contactCount();
    const key = await fileStorage().put(bytes);
    const checked = await dryRun(key, "bulk.csv", admin);
    expect(checked).toMatchObject({ rows: n, good: n, bad: 0, skipped: 0 });
    expect(await contactCount()).toBe(before);
    const done = await applyImport(checked.importId);
    expect(done).toMatchObject({ state: "done", imported: n, doneRows: n });
    expect(await contactCount()).toBe(before + n);
    expect(n / BATCH_ROWS).toBe(10);

    const again = await dryRun(await fileStorage().put(bytes), "bulk-again.csv", admin);
    expect(again).toMatchObject({ rows: n, good: 0, bad: 0, skipped: n });
    expect(await applyImport(again.importId)).toMatchObject({ state: "done", imported: 0 });
    expect(await contactCount()).toBe(before + n);

    // an import interrupted after its first batches resumes after them
    const more = Array.from({ length: 2_500 }, (_, i) => `Resumed ${i},,resumed${i}@example.com,,,`);
    const third = await dryRun(await fileStorage().put(Buffer.from(HEADER + more.join("\n"))), "resume.csv", admin);
    const { db, schema } = t.handle;
    await db.update(schema.contactImports).set({ state: "importing", doneRows: 2_000 }).where(eq(schema.contactImports.id, third.importId));
    expect(await applyImport(third.importId)).toMatchObject({ imported: 500 });
    expect(
      Number(
        (
          await db
            .select({ n: count() })
            .from(schema.contacts)
            .where(inArray(schema.contacts.name, ["Resumed 0", "Resumed 2000", "Resumed 2499"]))
        )[0].n,
      ),
    ).toBe(2);

    // the export, read back: the imported rows as they were given (phones as E.164)
    const response = await settle(() => exportLoader({ request: get("/contacts/export.csv", admin), params: {}, context: { ...context } }));
    expect(response.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    const body = Buffer.from(await response.arrayBuffer());
    expect([...body.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const exported = parse(body, { columns: true, bom: true }) as Record<string, string>[];
    const bulk = exported.filter((r) => r.name.startsWith("Bulk Person "));
    expect(bulk).toHaveLength(n);
    expect(bulk[42]).toEqual({ name: "Bulk Person 42", salutation: "", email: "bulk42@example.com", phone: "+601120000042", id_type: "", id_number: "" });
    // and imported again, every row it imported is known; the others' emails and phones are taken
    const roundTrip = await dryRun(await fileStorage().put(body), "export.csv", admin);
    expect(roundTrip.skipped).toBe(n + 500 + 2); // the bulk, the resumed import's rows, José and the passport row
    expect(roundTrip.good).toBe(exported.filter((r) => !r.email && !r.phone).length);
    const denied = await settle(() => exportLoader({ request: get("/contacts/export.csv", agent), params: {}, context: { ...context } }));
    expect(denied.status).toBe(302);
  });
});
