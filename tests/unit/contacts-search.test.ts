// The contacts list's search through its index (plugins/contacts/search.server.ts), on both
// dialects: a word inside a name, an email or a phone, in any case; a phone in its local form or
// by its digits; 1-2 characters and Chinese, Japanese and Korean; merged contacts never; the index
// kept by the database's triggers when a name changes, an identity is added, moved by a merge or
// removed; and a common term (read by walking the newest contacts) giving the same pages, in the
// same order, as a rare one (read from the index's hits).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { listContacts } from "@plugins/contacts/contacts.server";
import { searchVariants } from "@plugins/contacts/search.server";

const T0 = Date.UTC(2025, 5, 1);

describe("search variants", () => {
  it("looks for a phone number as one exactly (E.164) or by its digits, and never across lines", () => {
    expect(searchVariants(" Rahman ")).toEqual({ contains: ["Rahman"] });
    expect(searchVariants("012-345 6789")).toEqual({ contains: ["012-345 6789"], phone: "+60123456789" });
    expect(searchVariants("0345-6789")).toEqual({ contains: ["0345-6789", "3456789"] });
    expect(searchVariants("3456789")).toEqual({ contains: ["3456789"] });
    expect(searchVariants("a\nb")).toEqual({ contains: ["a b"] });
    expect(searchVariants("  ")).toEqual({ contains: [] });
  });
});

describe.each(DIALECTS)("Contacts search (%s)", (dialect) => {
  let t: TestDb;
  let next = 0;

  beforeAll(async () => {
    t = await createTestDb(dialect);
  }, 60_000);
  afterAll(async () => t?.cleanup());

  /** Contacts with their emails and phones, created in order (later ones newer). */
  const add = async (people: { name: string; emails?: string[]; phones?: string[] }[]) => {
    const { db, schema } = t.handle;
    const made = await db
      .insert(schema.contacts)
      .values(people.map((p) => ({ uid: `s${dialect}${++next}`, name: p.name, nameKey: p.name.toLowerCase(), createdAt: T0 + next * 1000, updatedAt: T0 })))
      .returning({ id: schema.contacts.id, uid: schema.contacts.uid });
    const identities = people.flatMap((p, i) => [
      ...(p.emails ?? []).map((value) => ({ contactId: made[i]!.id, kind: "email", value })),
      ...(p.phones ?? []).map((value) => ({ contactId: made[i]!.id, kind: "phone", value })),
    ]);
    if (identities.length) await db.insert(schema.contactIdentities).values(identities);
    return made;
  };
  const names = async (q: string, page = 1, size = 20) => (await listContacts({ q, page, size })).contacts.map((c) => c.name);

  it("finds a word inside a name, an email or a phone, in any case, newest first", async () => {
    await add([
      { name: "Zulkifli Rahman", emails: ["zul@kampung.example"], phones: ["+60123456789"] },
      { name: "Aisha Rahmanova", emails: ["AISHA.work@office.example".toLowerCase(), "aisha@home.example"] },
      { name: "Ben Lee", phones: ["+60198765432"] },
    ]);
    expect(await names("Rahman")).toEqual(["Aisha Rahmanova", "Zulkifli Rahman"]);
    expect(await names("RAHMAN")).toEqual(["Aisha Rahmanova", "Zulkifli Rahman"]);
    expect(await names("kifli rah")).toEqual(["Zulkifli Rahman"]);
    // any of a contact's emails, not only the first
    expect(await names("home.exam")).toEqual(["Aisha Rahmanova"]);
    expect(await names("Work@Office")).toEqual(["Aisha Rahmanova"]);
    // a phone as people write it, by its digits, or as stored
    expect(await names("012-345 6789")).toEqual(["Zulkifli Rahman"]);
    expect(await names("8765432")).toEqual(["Ben Lee"]);
    expect(await names("+60198765432")).toEqual(["Ben Lee"]);
    // % and _ are plain characters, and no search spans a name and an email
    expect(await names("rahman%")).toEqual([]);
    expect(await names("rahman zul")).toEqual([]);
    expect(await names("Qwxzvy")).toEqual([]);
  });

  it("finds 1-2 characters and Chinese, Japanese and Korean names, short or long", async () => {
    await add([{ name: "王芳" }, { name: "佐藤花子" }, { name: "김민준" }, { name: "Xq Vu", emails: ["q@x.example"] }]);
    expect(await names("王芳")).toEqual(["王芳"]);
    expect(await names("芳")).toEqual(["王芳"]);
    expect(await names("藤花子")).toEqual(["佐藤花子"]);
    expect(await names("민준")).toEqual(["김민준"]);
    expect(await names("xq")).toEqual(["Xq Vu"]);
    expect(await names("Vu")).toEqual(["Xq Vu"]);
    expect(await names("ZZ")).toEqual([]);
  });

  it("follows the contacts as they change: a new name, a new email, a merge, a removal", async () => {
    const { db, schema } = t.handle;
    const c = schema.contacts;
    const ci = schema.contactIdentities;
    const [from, into] = await add([{ name: "Old Name", emails: ["moving@person.example"] }, { name: "Keeper Person" }]);
    await db.update(c).set({ name: "Fresh Name" }).where(eq(c.id, from!.id));
    expect(await names("Old Name")).toEqual([]);
    expect(await names("fresh name")).toEqual(["Fresh Name"]);
    await db.insert(ci).values({ contactId: into!.id, kind: "email", value: "keeper@later.example" });
    expect(await names("later.exa")).toEqual(["Keeper Person"]);
    // a merge moves the identities and marks the merged contact: only the one kept is listed
    await db.update(ci).set({ contactId: into!.id }).where(eq(ci.contactId, from!.id));
    await db.update(c).set({ mergedInto: into!.id, mergedAt: T0 }).where(eq(c.id, from!.id));
    expect(await names("moving@person")).toEqual(["Keeper Person"]);
    expect(await names("fresh name")).toEqual([]);
    await db.delete(ci).where(eq(ci.value, "keeper@later.example"));
    expect(await names("later.exa")).toEqual([]);
    expect(await names("moving@person")).toEqual(["Keeper Person"]);
    await db.delete(c).where(eq(c.id, into!.id));
    expect(await names("moving@person")).toEqual([]);
  });

  it("gives a common term's pages (walked newest first) in the order and with the contacts a rare term's hits would", async () => {
    // more than either dialect's bound for a common term: SQLite counts 5,000 hits, PostgreSQL a share of the newest 4,000
    const people = Array.from({ length: 5_200 }, (_, i) => ({
      name: i % 500 === 0 ? `Seldom Farid Jo ${i}` : `Crowd Member ${i}`,
      emails: [`member${i}@crowd.example`],
    }));
    for (let i = 0; i < people.length; i += 500) await add(people.slice(i, i + 500));
    const newestFirst = people.map((p) => p.name).reverse();
    // common: walked; the first page and a later one, each exactly the newest matches in order
    expect(await names("crowd", 1, 20)).toEqual(newestFirst.slice(0, 20));
    expect(await names("crowd", 7, 50)).toEqual(newestFirst.slice(300, 350));
    // rare: read from the hits, sorted
    const seldom = newestFirst.filter((n) => n.startsWith("Seldom"));
    expect(seldom).toHaveLength(11);
    expect(await names("seldom farid", 1, 20)).toEqual(seldom);
    expect(await names("seldom farid", 2, 5)).toEqual(seldom.slice(5, 10));
    // rare 1-2 characters ("j" and "fa" are only in the Seldom names): read from the short-terms index
    expect(await names("J", 1, 20)).toEqual(seldom);
    expect(await names("fa", 2, 5)).toEqual(seldom.slice(5, 10));
    expect((await listContacts({ q: "seldom", page: 3, size: 5 })).more).toBe(false);
    expect((await listContacts({ q: "crowd", page: 1, size: 5 })).more).toBe(true);
  }, 60_000);
});
