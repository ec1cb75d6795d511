// The conversation's plugin panels (app/conversation/panels.server.ts) on both dialects: the Case,
// Contact and Products panels say what those plugins know of a ticket, only to people their menu
// rules let in, and a plugin the edition does not enable says nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { insertTicket } from "~/conversation/model.server";
import { conversationPanels } from "~/conversation/panels.server";
import { permissionsOf } from "~/accounts/users.server";
import type { Viewer } from "~/permissions";
import { attachTicket, createCase } from "@plugins/case/case.server";
import { linkTicket as linkContact } from "@plugins/contacts/link.server";
import { linkTicket as linkProduct, saveProduct } from "@plugins/product/products.server";

const ALL = ["case", "contacts", "product"];

describe.each(DIALECTS)("conversation panels (%s)", (dialect) => {
  let t: TestDb;
  let agent: UserRow;
  let ticket: { id: number; ticketNumber: number; kind: string; channel: string; departmentId: number | null };

  const viewer = (u: UserRow, extra: string[] = []): Viewer => ({
    type: u.type === "admin" ? "admin" : "agent",
    permissions: [...permissionsOf(u), ...extra],
    clientId: 1,
    plan: 4,
    variant: "default",
  });
  const panels = (u: UserRow, enabled = ALL, extra: string[] = []) => conversationPanels({ ticket, reader: u, viewer: viewer(u, extra) }, enabled);

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    agent = (await findUserByUsername("agent"))!;
    const row = await t.handle.transaction((tx) =>
      insertTicket(
        tx,
        {
          title: "Aircon leaking",
          channel: "EMAIL",
          departmentId: agent.departmentId,
          contactName: "Siti Aminah",
          contactEmail: "siti@example.com",
          contactPhone: "",
        },
        "Aircon leaking",
        Date.now(),
      ),
    );
    ticket = { id: row.id, ticketNumber: row.ticketNumber, kind: "ticket", channel: "EMAIL", departmentId: agent.departmentId };
  }, 60_000);
  afterAll(async () => t?.cleanup());

  it("a fresh ticket: no case (with a way to open one), no contact yet, no product (with the catalogue)", async () => {
    const sections = await panels(agent);
    expect(sections.map((s) => s.plugin)).toEqual(["case", "contacts", "product"]);
    expect(sections[0]).toMatchObject({ items: [], empty: "plugin_case.panel.none", actions: [{ href: `/case/new?ticket=${ticket.ticketNumber}` }] });
    expect(sections[1]).toMatchObject({ items: [], empty: "plugin_contacts.panel.notYet" });
    expect(sections[2]).toMatchObject({ items: [], actions: [{ href: "/product" }] });
  });

  it("shows the ticket's case, contact and products once they exist, each linking to its page", async () => {
    const actor = { id: agent.id, type: agent.type, departmentId: agent.departmentId, name: agent.name, username: agent.username };
    const created = await createCase(actor, { title: "Leaks in block B", case_type: "", status: "", owner: "", due_date: "" });
    if (!created.ok) throw new Error(JSON.stringify(created.result));
    expect((await attachTicket(actor, created.number, String(ticket.ticketNumber))).ok).toBe(true);
    await linkContact(
      { id: ticket.id, channel: "EMAIL", contactName: "Siti Aminah", contactEmail: "siti@example.com", contactPhone: "", customerId: "" },
      t.handle,
    );
    const admin = (await findUserByUsername("admin"))!;
    const product = await saveProduct(
      {
        values: { name: "Inverter Aircon 1.5HP", sku: "AC-15-INV", category: "Aircon", price: "1899", currency: "MYR", description: "" },
        image: { bytes: null },
      },
      { actor: admin },
    );
    if (!product.ok) throw new Error(JSON.stringify(product.result));
    expect((await linkProduct(agent, product.id, ticket.ticketNumber)).ok).toBe(true);

    const [kase, contact, products] = await panels(agent);
    expect(kase.items).toEqual([
      {
        label: { key: "plugin_case.panel.item", values: { number: String(created.number), title: "Leaks in block B", status: "t:plugin_case.status.open" } },
        href: `/case/${created.number}`,
      },
    ]);
    expect(kase.actions).toEqual([]);
    expect(contact.items).toEqual([
      { label: { text: "Siti Aminah" }, href: expect.stringMatching(/^\/contacts\/[A-Za-z0-9_-]+$/) },
      { label: { key: "plugin_contacts.panel.channels" }, channels: ["EMAIL"] },
    ]);
    expect(products.items).toEqual([{ label: { text: "Inverter Aircon 1.5HP (AC-15-INV)" }, href: `/product/${product.id}` }]);
  });

  it("names every channel the person reached us on, the latest first, on each of their conversations", async () => {
    const later = await t.handle.transaction((tx) =>
      insertTicket(
        tx,
        {
          title: "Still leaking",
          channel: "WHATSAPP",
          departmentId: agent.departmentId,
          contactName: "Siti",
          contactEmail: "siti@example.com",
          contactPhone: "+60123456789",
        },
        "Still leaking",
        Date.now() + 60_000,
      ),
    );
    await linkContact(
      { id: later.id, channel: "WHATSAPP", contactName: "Siti", contactEmail: "siti@example.com", contactPhone: "+60123456789", customerId: "" },
      t.handle,
    );
    const [, contact] = await panels(agent);
    expect(contact.items[1]).toEqual({ label: { key: "plugin_contacts.panel.channels" }, channels: ["WHATSAPP", "EMAIL"] });
  });

  it("says nothing where the menu rules keep the person out, or the edition leaves the plugin out", async () => {
    expect((await panels(agent, ALL, ["hide_case", "hide_contacts"])).map((s) => s.plugin)).toEqual(["product"]);
    expect((await panels(agent, ["product"])).map((s) => s.plugin)).toEqual(["product"]);
    // a trial workspace has none of these plugins
    expect(await conversationPanels({ ticket, reader: agent, viewer: viewer(agent) }, ALL, true)).toEqual([]);
    // workspace chats have no customer, case or products
    const chat = { ...ticket, kind: "chat", channel: "chat" };
    expect(await conversationPanels({ ticket: chat, reader: agent, viewer: viewer(agent) }, ALL)).toEqual([]);
  });
});
