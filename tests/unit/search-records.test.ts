// The global search's records (app/search-hits.server.ts through the tickets plugin's recordHits)
// on both dialects: contacts (by free text and by contact:), cases (title or number) and products
// (name or SKU) are found and linked as the spec says (/contacts/{uid}, /case/{n}, /product/{id});
// people the menu rules keep out (hide_contacts, hide_case) get no such hits; agents do not find
// inactive products; merged-away contacts are not found.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername, permissionsOf, type UserRow } from "~/accounts/users.server";
import type { Viewer } from "~/permissions";
import { parseSearch, recordHits } from "@plugins/tickets/search.server";
import { createCase } from "@plugins/case/case.server";
import { linkTicket as linkContact } from "@plugins/contacts/link.server";
import { saveProduct, setActive } from "@plugins/product/products.server";
import { insertTicket } from "~/conversation/model.server";

const ALL = ["tickets", "case", "contacts", "product"];

describe.each(DIALECTS)("search finds records (%s)", (dialect) => {
  let t: TestDb;
  let agent: UserRow;
  let admin: UserRow;
  let caseNumber = 0;
  let productId = 0;
  const viewer = (u: UserRow, extra: string[] = []): Viewer => ({
    type: u.type === "admin" ? "admin" : "agent",
    permissions: [...permissionsOf(u), ...extra],
    clientId: 1,
    plan: 4,
    variant: "default",
  });
  const find = (q: string, u: UserRow = agent, extra: string[] = [], enabled = ALL) => recordHits(parseSearch(q), u, viewer(u, extra), enabled);
  const section = async (q: string, plugin: string, u: UserRow = agent) => (await find(q, u)).find((s) => s.plugin === plugin);

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    agent = (await findUserByUsername("agent"))!;
    admin = (await findUserByUsername("admin"))!;
    const ticket = await t.handle.transaction((tx) =>
      insertTicket(
        tx,
        {
          title: "Warranty",
          channel: "EMAIL",
          departmentId: agent.departmentId,
          contactName: "Zulkifli Rahman",
          contactEmail: "zul@example.com",
          contactPhone: "",
        },
        "Warranty",
        Date.now(),
      ),
    );
    await linkContact(
      { id: ticket.id, channel: "EMAIL", contactName: "Zulkifli Rahman", contactEmail: "zul@example.com", contactPhone: "", customerId: "" },
      t.handle,
    );
    const actor = { id: agent.id, type: agent.type, departmentId: agent.departmentId, name: agent.name, username: agent.username };
    const created = await createCase(actor, { title: "Compressor noise in tower Q", case_type: "", status: "", owner: "", due_date: "" });
    if (!created.ok) throw new Error(JSON.stringify(created.result));
    caseNumber = created.number;
    const product = await saveProduct(
      { values: { name: "Quietline Compressor", sku: "QC-900", category: "Aircon", price: "900", currency: "MYR", description: "" }, image: { bytes: null } },
      { actor: admin },
    );
    if (!product.ok) throw new Error(JSON.stringify(product.result));
    productId = product.id;
  }, 60_000);
  afterAll(async () => t?.cleanup());

  it("a contact by its name's or email's beginning, or a contact: token, linked to /contacts/{uid}", async () => {
    for (const q of ["zulkifli", "zul@example", "ZUL@EXAMPLE.COM", "contact:Zulkifli", 'contact:"zulkifli rahman" warranty']) {
      const s = await section(q, "contacts");
      expect(s, q).toMatchObject({ title: "plugin_contacts.searchHits.title" });
      expect(s!.hits, q).toEqual([
        { title: { text: "Zulkifli Rahman" }, detail: { text: "zul@example.com" }, href: expect.stringMatching(/^\/contacts\/[A-Za-z0-9_-]+$/) },
      ]);
    }
    expect(await section("nobody-like-this", "contacts")).toBeUndefined();
  });

  it("a case by words of its title or by its number, linked to /case/{number}", async () => {
    for (const q of ["compressor noise", String(caseNumber), `#${caseNumber}`]) {
      const s = await section(q, "case");
      expect(s?.hits, q).toEqual([
        {
          title: { key: "plugin_case.searchHits.hit", values: { number: String(caseNumber), title: "Compressor noise in tower Q" } },
          detail: { key: "plugin_case.status.open" },
          href: `/case/${caseNumber}`,
        },
      ]);
    }
  });

  it("a product by name or SKU, linked to /product/{id}; an inactive one only for admins", async () => {
    for (const q of ["quietline", "qc-9"])
      expect((await section(q, "product"))?.hits, q).toEqual([
        { title: { text: "Quietline Compressor" }, detail: { text: "QC-900" }, href: `/product/${productId}` },
      ]);
    // "compressor" finds the case and the product, each in its own section
    expect((await find("compressor")).map((s) => s.plugin)).toEqual(["case", "product"]);
    await setActive(productId, false, { actor: admin });
    expect(await section("quietline", "product")).toBeUndefined();
    expect((await section("quietline", "product", admin))?.hits).toHaveLength(1);
    await setActive(productId, true, { actor: admin });
  });

  it("nothing where the menu rules keep the person out, the edition leaves the plugin out, or the query has no text", async () => {
    expect((await find("compressor", agent, ["hide_case"])).map((s) => s.plugin)).toEqual(["product"]);
    expect(await find("zulkifli", agent, ["hide_contacts"])).toEqual([]);
    expect(await find("zulkifli", agent, [], ["tickets", "case", "product"])).toEqual([]);
    expect(await find("label:urgent from:agent")).toEqual([]);
    // a trial workspace has none of these plugins
    expect(await recordHits(parseSearch("zulkifli"), agent, viewer(agent), ALL, true)).toEqual([]);
  });
});
