// The conversation's "End-to-end encryption" panel (app/conversation/panels.server.ts): off with a
// way to turn it on (a real form on /e2ee/enable), or on with its method and key version. The
// safety numbers to compare are drawn into it by the browser's script only (browser-client.ts).
import type { PanelInput, PanelSection } from "~/conversation/panels.server";
import { getDb } from "@db/client";
import { eq } from "drizzle-orm";
import { ENCRYPTABLE_KINDS, safetyNumbers } from "./e2ee.server";

export async function e2eePanel({ ticket, reader }: PanelInput): Promise<PanelSection | null> {
  if (!(ENCRYPTABLE_KINDS as readonly string[]).includes(ticket.kind)) return null;
  const { db, schema } = getDb();
  const [row] = await db
    .select({
      encryption: schema.tickets.encryption,
      method: schema.tickets.encryptionMethod,
      version: schema.tickets.encryptionVersion,
      rekey: schema.tickets.encryptionRekey,
    })
    .from(schema.tickets)
    .where(eq(schema.tickets.id, ticket.id));
  if (!row) return null;
  const people = await safetyNumbers(reader.id, ticket.id);
  const me = people.find((p) => p.userId === reader.id);
  const keys = { label: { key: "plugin_e2ee.panel.keys" }, href: "/e2ee/keys" };
  if (!row.encryption)
    return {
      title: "plugin_e2ee.panel.title",
      items: [],
      empty: "plugin_e2ee.panel.off",
      actions: me
        ? [{ label: { key: "plugin_e2ee.panel.enable" }, href: `/e2ee/enable/${ticket.ticketNumber}${ticket.kind === "livechat" ? "?kind=livechat" : ""}` }]
        : [],
    };
  // a shared passphrase: no keys per person to compare, and a removed participant who knows it still could read
  if (row.method === "aes") return { title: "plugin_e2ee.panel.title", items: [{ label: { key: "plugin_e2ee.panel.onShared" } }], actions: [] };
  const items: PanelSection["items"] = [{ label: { key: "plugin_e2ee.panel.on", values: { version: String(row.version) } } }];
  if (row.rekey) items.push({ label: { key: "plugin_e2ee.panel.rekey" } });
  if (me && !me.fingerprint) items.push({ label: { key: "plugin_e2ee.panel.myNoKey" }, href: "/e2ee/keys" });
  for (const p of people) if (p.userId !== reader.id && !p.fingerprint) items.push({ label: { key: "plugin_e2ee.panel.noKey", values: { name: p.name } } });
  // the numbers to compare are the browser's own, from the keys it encrypts for (a server that
  // swapped a key would show matching numbers of its own): the script draws them here
  if (people.some((p) => p.userId !== reader.id && p.fingerprint)) items.push({ label: { key: "plugin_e2ee.panel.safetyInBrowser" } });
  return { title: "plugin_e2ee.panel.title", items, actions: [keys] };
}
