// The demo workspace's catalogue: spec section 9's keypress product list (TV, Aircon, Refrigerator,
// Washing Machine, Commercial Display, Other Enquiries) as categories with a few products each.
// Added once, when the catalogue is empty and the workspace is the demo (it has the demo's public
// token, which a real workspace never gets): the demo seed needs no change for it.
import { and, eq, isNull } from "drizzle-orm";
import { getDb } from "@db/client";
import { DEMO_TOKEN } from "~/seed/seed";
import { DEFAULT_CURRENCY } from "./money";

/** [category, [name, SKU, price in sen, description]] */
export const DEMO_CATALOGUE: [string, [string, string, number, string][]][] = [
  [
    "TV",
    [
      ['Smart TV 43" Full HD', "TV-43-FHD", 129900, "Full HD LED smart TV with built-in streaming apps."],
      ['Smart TV 55" 4K UHD', "TV-55-4K", 259900, "4K UHD smart TV with HDR and voice remote."],
      ['OLED TV 65"', "TV-65-OLED", 799900, "65-inch OLED panel, Dolby Vision and Atmos."],
    ],
  ],
  [
    "Aircon",
    [
      ["Inverter Air Conditioner 1.0 HP", "AC-INV-10", 189900, "Energy-saving inverter split unit for rooms up to 150 sq ft."],
      ["Inverter Air Conditioner 1.5 HP", "AC-INV-15", 229900, "Inverter split unit for rooms up to 250 sq ft."],
      ["Portable Air Conditioner", "AC-PORT-10", 119900, "1.0 HP portable unit with window kit."],
    ],
  ],
  [
    "Refrigerator",
    [
      ["Mini Fridge 90 L", "RF-MINI-90", 49900, "Compact single-door fridge."],
      ["2-Door Refrigerator 450 L", "RF-2D-450", 219900, "Top-freezer fridge with inverter compressor."],
      ["Side-by-Side Refrigerator 600 L", "RF-SBS-600", 459900, "Side-by-side fridge with water dispenser."],
    ],
  ],
  [
    "Washing Machine",
    [
      ["Top Load Washer 11 kg", "WM-TL-11", 139900, "Top-load washing machine with quick wash."],
      ["Front Load Washer 9 kg", "WM-FL-9", 209900, "Front-load inverter washer with steam care."],
      ["Washer Dryer 10/7 kg", "WM-WD-107", 289900, "Washes 10 kg and dries 7 kg in one machine."],
    ],
  ],
  [
    "Commercial Display",
    [
      ['Digital Signage 55"', "CD-SIG-55", 499900, "24/7 commercial display for shops and lobbies."],
      ['Video Wall Panel 49"', "CD-VW-49", 699900, "Narrow-bezel panel for video walls."],
      ['Interactive Whiteboard 75"', "CD-IWB-75", 1299900, "4K touch display for meeting rooms and classrooms."],
    ],
  ],
  [
    "Other Enquiries",
    [
      ["Extended Warranty (2 years)", "OT-WARR-2Y", 19900, "Two more years of parts and labour."],
      ["Installation Service", "OT-INSTALL", 15000, "Delivery and installation by a technician."],
      ["Spare Remote Control", "OT-REMOTE", 4900, "Replacement remote for TVs and aircons."],
    ],
  ],
];

/** Adds the demo catalogue when the catalogue is empty and this is the demo workspace; answers how many were added. */
export async function seedDemoCatalogue(now = Date.now()): Promise<number> {
  const { db, schema } = getDb();
  const [any] = await db.select({ id: schema.products.id }).from(schema.products).limit(1);
  if (any) return 0;
  const pt = schema.publicTokens;
  const [demo] = await db
    .select({ kind: pt.kind })
    .from(pt)
    .where(and(eq(pt.token, DEMO_TOKEN), isNull(pt.revokedAt)))
    .limit(1);
  if (!demo) return 0;
  const rows = DEMO_CATALOGUE.flatMap(([category, items]) =>
    items.map(([name, sku, priceMinor, description]) => ({
      name,
      sku,
      category,
      priceMinor,
      currency: DEFAULT_CURRENCY,
      description,
      active: true,
      createdAt: now,
      updatedAt: now,
    })),
  );
  // two servers starting at once: the SKU index lets one set in
  const added = await db.insert(schema.products).values(rows).onConflictDoNothing().returning({ id: schema.products.id });
  return added.length;
}
