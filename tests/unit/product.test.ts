// The product catalogue on both dialects, through its models and its routes as Remix calls them
// with a signed-in user's session: adding a product (with an image kept in the file storage and
// served back), SKU uniqueness whatever the case, refusals that keep what was typed (SKU taken, a
// price that is not a number, a file that is not an image or too large), editing, deactivating,
// search by name and SKU with the category filter and paging, linking and unlinking tickets by
// number with the conversation access rules, the JSON twins and the demo catalogue.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppLoadContext } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { setSetting } from "~/models/settings.server";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { fileStorage } from "~/storage.server";
import { REQUEST_KEY_FIELD_NAME } from "~/request-key-field";
import { formatPrice, parsePrice, priceInput } from "@plugins/product/money";
import {
  getProduct,
  IMAGE_MAX_BYTES,
  linkedTickets,
  linkTicket,
  listProducts,
  PAGE_SIZE,
  pendingImageToken,
  saveProduct,
  setActive,
  unlinkTicket,
  categories,
} from "@plugins/product/products.server";
import { DEMO_CATALOGUE, seedDemoCatalogue } from "@plugins/product/demo.server";
import { PENDING_MAX_AGE_MS, removeAbandonedImages } from "@plugins/product/pending.server";
import * as formRoute from "@plugins/product/routes/product.form";
import * as pageRoute from "@plugins/product/routes/product.$id";
import * as listRoute from "@plugins/product/routes/product";
import * as imageRoute from "@plugins/product/routes/image";
import * as apiList from "@plugins/product/routes/api.list";
import * as apiProduct from "@plugins/product/routes/api.product";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-product-data-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** A real 1x1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

type Fn = (args: { request: Request; context: AppLoadContext; params: Record<string, string> }) => unknown;
async function call(fn: Fn, request: Request, params: Record<string, string> = {}) {
  try {
    return (await fn({ request, context: { clientIp: "192.0.2.10" } as unknown as AppLoadContext, params })) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}
const fields = (over: Record<string, string> = {}) => ({
  name: "Kettle",
  sku: "KT-1",
  category: "Kitchen",
  price: "59.90",
  currency: "MYR",
  description: "Boils water.",
  ...over,
});
/** The product form as the browser sends it: multipart, the file last. */
function multipart(url: string, cookie: string, values: Record<string, string>, image?: { bytes: Uint8Array; name: string; type: string }) {
  const form = new FormData();
  for (const [k, v] of Object.entries(values)) form.append(k, v);
  if (image) form.append("image", new File([Buffer.from(image.bytes)], image.name, { type: image.type }));
  return new Request(`http://localhost${url}`, { method: "POST", body: form, headers: { Cookie: cookie } });
}
const post = (url: string, cookie: string, values: Record<string, string>) =>
  new Request(`http://localhost${url}`, {
    method: "POST",
    body: new URLSearchParams(values),
    headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
  });
const get = (url: string, cookie = "") => new Request(`http://localhost${url}`, { headers: cookie ? { Cookie: cookie } : {} });

describe("prices", () => {
  it("are typed as plain decimals and shown in the reader's language and the product's currency", () => {
    expect(parsePrice("1,299.5", "MYR")).toEqual({ minor: 129950 });
    expect(parsePrice("", "MYR")).toEqual({ minor: null });
    expect(parsePrice("12abc", "MYR")).toEqual({ error: "plugin_product.error.priceNotNumber" });
    expect(parsePrice("-5", "MYR")).toEqual({ error: "plugin_product.error.priceNotNumber" });
    expect(parsePrice("1.234", "MYR")).toEqual({ error: "plugin_product.error.priceDecimals" });
    expect(parsePrice("1600", "JPY")).toEqual({ minor: 1600 });
    expect(parsePrice("1600.5", "JPY")).toEqual({ error: "plugin_product.error.priceWhole" });
    expect(priceInput(129950, "MYR")).toBe("1299.50");
    expect(priceInput(5, "MYR")).toBe("0.05");
    expect(formatPrice(129950, "MYR", "en")).toMatch(/^MYR\s1,299\.50$/);
    expect(formatPrice(129950, "MYR", "ms")).toMatch(/^RM\s?1,299\.50$/);
    expect(formatPrice(1600, "JPY", "ja")).toMatch(/1,600/);
    expect(formatPrice(1600, "JPY", "ja")).not.toMatch(/\./);
  });
});

describe.each(DIALECTS)("the product catalogue (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  let adminCookie: string;
  let agentCookie: string;
  let agentToken: string;
  let supportTicket: { id: number; number: number };
  let salesTicket: { id: number; number: number };
  const by = () => ({ actor: admin, ip: "192.0.2.10" });

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!; // Support (department 2)
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    agentToken = (await createSession(agent.id)).token;
    agentCookie = await sessionCookie().serialize(agentToken);
    const { db, schema } = t.handle;
    const now = Date.now();
    const ticket = async (number: number, departmentId: number, title: string) => {
      const [row] = await db
        .insert(schema.tickets)
        .values({ ticketNumber: number, title, channel: "EMAIL", kind: "ticket", departmentId, createdAt: now, updatedAt: now })
        .returning({ id: schema.tickets.id });
      return { id: row.id, number };
    };
    supportTicket = await ticket(7001, 2, "My TV has no sound");
    salesTicket = await ticket(7002, 1, "Quote for 40 aircons");
  }, 60_000);
  afterAll(async () => {
    await t?.cleanup();
  });

  it("adds the demo catalogue once, in the demo workspace only", async () => {
    expect(await seedDemoCatalogue()).toBe(DEMO_CATALOGUE.flatMap(([, items]) => items).length);
    expect(await seedDemoCatalogue()).toBe(0);
    expect(await categories()).toEqual([...DEMO_CATALOGUE.map(([c]) => c)].sort());
    const tv = await listProducts({ category: "TV" });
    expect(tv.rows.map((r) => r.sku)).toContain("TV-55-4K");
    const { db, schema } = t.handle;
    await db.delete(schema.productTickets);
    await db.delete(schema.products);
    // a real workspace (no demo token) stays empty
    await db.update(schema.publicTokens).set({ revokedAt: Date.now() });
    expect(await seedDemoCatalogue()).toBe(0);
    await db.update(schema.publicTokens).set({ revokedAt: null });
  });

  it("creates a product with its image, and refuses a second SKU that differs only in case", async () => {
    const made = await saveProduct({ values: fields({ sku: "Uniq-1" }), image: { bytes: new Uint8Array(PNG) } }, by());
    expect(made.ok).toBe(true);
    const id = (made as { id: number }).id;
    const row = (await getProduct(id))!;
    expect(row).toMatchObject({ name: "Kettle", sku: "Uniq-1", category: "Kitchen", priceMinor: 5990, currency: "MYR", active: true });
    expect(row.imageKey).toMatch(/^[a-f0-9]{32}$/);
    // the image comes back through its route, to a signed-in agent, and only under its key
    const image = await call(imageRoute.loader as Fn, get(`/product/${id}/image?k=${row.imageKey}`, agentCookie), { id: String(id) });
    expect(image.status).toBe(200);
    expect(image.headers.get("Content-Type")).toBe("image/png");
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);
    const other = await fileStorage().put(new Uint8Array(PNG));
    expect((await call(imageRoute.loader as Fn, get(`/product/${id}/image?k=${other}`, agentCookie), { id: String(id) })).status).toBe(404);

    for (const sku of ["UNIQ-1", "uniq-1"]) {
      const again = await saveProduct({ values: fields({ sku, name: "Other" }), image: { bytes: null } }, by());
      expect(again).toMatchObject({ ok: false, status: 409, result: { errors: { sku: "plugin_product.error.skuTaken" }, values: { sku, name: "Other" } } });
    }
    // another product cannot take it by an edit; the product itself may change its case
    const second = (await saveProduct({ values: fields({ sku: "Uniq-2" }), image: { bytes: null } }, by())) as { id: number };
    expect(await saveProduct({ values: fields({ sku: "uNIQ-1" }), image: { bytes: null } }, by(), second.id)).toMatchObject({
      ok: false,
      result: { errors: { sku: "plugin_product.error.skuTaken" } },
    });
    expect(await saveProduct({ values: fields({ sku: "UNIQ-1" }), image: { bytes: null } }, by(), id)).toEqual({ ok: true, id });
    expect((await getProduct(id))!.sku).toBe("UNIQ-1");
  });

  it("edits a product: fields, a new image replacing the old file, the image removed", async () => {
    const made = (await saveProduct({ values: fields({ sku: "EDIT-1" }), image: { bytes: new Uint8Array(PNG) } }, by())) as { id: number };
    const firstKey = (await getProduct(made.id))!.imageKey!;
    const edited = await saveProduct(
      { values: fields({ sku: "EDIT-1", name: "Kettle 2", price: "", category: "" }), image: { bytes: new Uint8Array(PNG) } },
      by(),
      made.id,
    );
    expect(edited).toEqual({ ok: true, id: made.id });
    const row = (await getProduct(made.id))!;
    expect(row).toMatchObject({ name: "Kettle 2", priceMinor: null, category: "" });
    expect(row.imageKey).not.toBe(firstKey);
    expect(await fileStorage().get(firstKey)).toBeUndefined();
    await saveProduct({ values: fields({ sku: "EDIT-1" }), image: { bytes: null }, removeImage: true }, by(), made.id);
    expect((await getProduct(made.id))!.imageKey).toBeNull();
    expect(await fileStorage().get(row.imageKey!)).toBeUndefined();
  });

  it("the admin's form: a refusal keeps what was typed and says why per field; agents are refused the page", async () => {
    const typed = fields({ sku: "UNIQ-1", price: "twelve", name: "Blender" });
    const refused = await call(
      formRoute.action as Fn,
      multipart("/product/new", adminCookie, typed, { bytes: new TextEncoder().encode("%PDF-1.4 not an image"), name: "x.png", type: "image/png" }),
    );
    expect(refused.status).toBe(400);
    const body = await refused.json();
    expect(body.values).toMatchObject({ name: "Blender", sku: "UNIQ-1", price: "twelve", category: "Kitchen", description: "Boils water." });
    expect(body.errors).toEqual({
      sku: "plugin_product.error.skuTaken",
      price: "plugin_product.error.priceNotNumber",
      image: "plugin_product.error.imageType",
    });

    const big = new Uint8Array(IMAGE_MAX_BYTES + 1);
    big.set(PNG);
    const tooLarge = await call(
      formRoute.action as Fn,
      multipart("/product/new", adminCookie, fields({ sku: "BIG-1" }), { bytes: big, name: "big.png", type: "image/png" }),
    );
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ errors: { image: "plugin_product.error.imageTooLarge" }, values: { sku: "BIG-1", name: "Kettle" } });
    expect((await listProducts({ q: "BIG-1", withInactive: true })).total).toBe(0);

    // the same form sent twice (its request key) adds one product
    const values = { ...fields({ sku: "ONCE-1" }), [REQUEST_KEY_FIELD_NAME]: "key-once-1" };
    const first = await call(formRoute.action as Fn, multipart("/product/new", adminCookie, values, { bytes: PNG, name: "p.png", type: "image/png" }));
    const second = await call(formRoute.action as Fn, multipart("/product/new", adminCookie, values, { bytes: PNG, name: "p.png", type: "image/png" }));
    expect(first.status).toBe(302);
    expect(second.headers.get("Location")).toBe(first.headers.get("Location"));
    expect((await listProducts({ q: "ONCE-1" })).total).toBe(1);

    expect((await call(formRoute.loader as Fn, get("/product/new", agentCookie))).status).toBe(403);
    expect((await call(formRoute.action as Fn, multipart("/product/new", agentCookie, fields({ sku: "AGENT-1" })))).status).toBe(403);
  });

  it("removes the image of a refused form nobody sent again once a day has passed, once; a kept image that a product took stays", async () => {
    const refuse = async (sku: string) => {
      const r = await call(
        formRoute.action as Fn,
        multipart("/product/new", adminCookie, fields({ sku, price: "lots" }), { bytes: PNG, name: "a.png", type: "image/png" }),
      );
      expect(r.status).toBe(400);
      const token: string = (await r.json()).values.pending_image;
      return { token, key: token.split(".")[0]! };
    };
    const exists = async (key: string) => (await fileStorage().get(key)) !== undefined;
    const abandoned = await refuse("GONE-1");
    const taken = await refuse("TAKEN-1");
    const saved = await call(formRoute.action as Fn, multipart("/product/new", adminCookie, { ...fields({ sku: "TAKEN-1" }), pending_image: taken.token }));
    expect(saved.status).toBe(302);
    // within the day: nothing goes
    expect(await removeAbandonedImages(Date.now() + PENDING_MAX_AGE_MS / 2)).toBe(0);
    expect(await exists(abandoned.key)).toBe(true);
    const later = Date.now() + PENDING_MAX_AGE_MS + 60_000;
    expect(await removeAbandonedImages(later)).toBe(1);
    expect(await exists(abandoned.key)).toBe(false);
    expect(await exists(taken.key)).toBe(true);
    // run again (another node's job, a retry): nothing more
    expect(await removeAbandonedImages(later)).toBe(0);
    // the form sent after the clean-up: saved without the image, not with another file
    const late = await call(formRoute.action as Fn, multipart("/product/new", adminCookie, { ...fields({ sku: "GONE-1" }), pending_image: abandoned.token }));
    expect(late.status).toBe(302);
    const id = Number(late.headers.get("Location")!.match(/\/product\/(\d+)/)![1]);
    expect((await getProduct(id))!.imageKey).toBeNull();
  });

  it("keeps the chosen image after a refused form: sent again without choosing it, the product has it; a forged token names no file", async () => {
    const refused = await call(
      formRoute.action as Fn,
      multipart("/product/new", adminCookie, fields({ sku: "KEEP-1", price: "lots" }), { bytes: PNG, name: "k.png", type: "image/png" }),
    );
    expect(refused.status).toBe(400);
    const body = await refused.json();
    expect(body.errors).toEqual({ price: "plugin_product.error.priceNotNumber" });
    expect(body.values.pending_image).toMatch(/^[a-f0-9]{32}\.[\w-]+$/);
    // the form again, the price mended, no file chosen: the kept image is the product's
    const saved = await call(
      formRoute.action as Fn,
      multipart("/product/new", adminCookie, { ...fields({ sku: "KEEP-1" }), pending_image: body.values.pending_image }),
    );
    expect(saved.status).toBe(302);
    const id = Number(saved.headers.get("Location")!.match(/\/product\/(\d+)/)![1]);
    const row = (await getProduct(id))!;
    expect(row.imageKey).toBe(body.values.pending_image.split(".")[0]);
    const image = await call(imageRoute.loader as Fn, get(`/product/${id}/image?k=${row.imageKey}`, agentCookie), { id: String(id) });
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);

    // another stored file (an attachment) cannot be named: a made-up signature, or another admin's token
    const attachment = await fileStorage().put(new Uint8Array(PNG));
    for (const token of [`${attachment}.forged`, `${attachment}`, pendingImageToken(attachment, admin.id + 999)]) {
      const sku = `FORGE-${token.length}`;
      const r = await call(formRoute.action as Fn, multipart("/product/new", adminCookie, { ...fields({ sku }), pending_image: token }));
      expect(r.status).toBe(302);
      expect((await listProducts({ q: sku, withInactive: true })).rows[0].imageKey).toBeNull();
    }
  });

  it("refuses a save over another admin's later change (the image above all), keeping what was typed; saved again it goes through", async () => {
    const made = (await saveProduct({ values: fields({ sku: "LOCK-1" }), image: { bytes: new Uint8Array(PNG) } }, by())) as { id: number };
    const read = await call(formRoute.loader as Fn, get(`/product/${made.id}/edit`, adminCookie), { id: String(made.id) });
    const version = String((await read.json()).product.version);
    const firstKey = (await getProduct(made.id))!.imageKey!;
    // admin A removes the image; admin B, who opened the form before, saves a new name without touching the image
    const a = await call(
      formRoute.action as Fn,
      multipart(`/product/${made.id}/edit`, adminCookie, { ...fields({ sku: "LOCK-1" }), remove_image: "1", version }),
      { id: String(made.id) },
    );
    expect(a.status).toBe(302);
    expect(await fileStorage().get(firstKey)).toBeUndefined();
    const b = await call(
      formRoute.action as Fn,
      multipart(`/product/${made.id}/edit`, adminCookie, { ...fields({ sku: "LOCK-1", name: "Kettle B" }), version }),
      { id: String(made.id) },
    );
    expect(b.status).toBe(409);
    const refusedB = await b.json();
    expect(refusedB).toMatchObject({ message: "plugin_product.error.changedMeanwhile", values: { name: "Kettle B" } });
    // the product does not point at the deleted file, and B's name did not land
    expect(await getProduct(made.id)).toMatchObject({ imageKey: null, name: "Kettle" });
    // B chose a new image at the same time as a stale save: refused too, the image kept pending
    const withImage = await call(
      formRoute.action as Fn,
      multipart(
        `/product/${made.id}/edit`,
        adminCookie,
        { ...fields({ sku: "LOCK-1", name: "Kettle B" }), version },
        { bytes: PNG, name: "b.png", type: "image/png" },
      ),
      { id: String(made.id) },
    );
    expect(withImage.status).toBe(409);
    const pending = (await withImage.json()).values.pending_image;
    expect(pending).toMatch(/^[a-f0-9]{32}\./);
    // saved again from the refused form (its version is now the stored one): B's name and image land
    const again = await call(
      formRoute.action as Fn,
      multipart(`/product/${made.id}/edit`, adminCookie, {
        ...fields({ sku: "LOCK-1", name: "Kettle B" }),
        version: refusedB.values.version,
        pending_image: pending,
      }),
      { id: String(made.id) },
    );
    expect(again.status).toBe(302);
    expect(await getProduct(made.id)).toMatchObject({ name: "Kettle B", imageKey: pending.split(".")[0] });
  });

  it("searches by name or SKU whatever the case, filters by category, pages, and hides inactive products from agents", async () => {
    const mk = (sku: string, name: string, category: string) => saveProduct({ values: fields({ sku, name, category }), image: { bytes: null } }, by());
    await mk("FAN-100", "Desk Fan", "Cooling");
    await mk("FAN-200", "Tower fan 100%", "Cooling");
    const heater = (await mk("HT-1", "Heater", "Heating")) as { id: number };
    expect((await listProducts({ q: "fan" })).rows.map((r) => r.sku)).toEqual(["FAN-100", "FAN-200"]);
    expect((await listProducts({ q: "fan-2" })).rows.map((r) => r.sku)).toEqual(["FAN-200"]);
    expect((await listProducts({ q: "100%" })).rows.map((r) => r.sku)).toEqual(["FAN-200"]); // % is a character, not a wildcard
    expect((await listProducts({ q: "fan", category: "Heating" })).total).toBe(0);
    expect((await listProducts({ category: "Heating" })).rows.map((r) => r.name)).toEqual(["Heater"]);

    expect(await setActive(heater.id, false, by())).toBe(true);
    expect((await listProducts({ q: "heater" })).total).toBe(0);
    expect((await listProducts({ q: "heater", withInactive: true })).total).toBe(1);
    const asAgent = await (await call(listRoute.loader as Fn, get("/product?q=heater", agentCookie))).json();
    expect(asAgent).toMatchObject({ isAdmin: false, total: 0 });
    const asAdmin = await (await call(listRoute.loader as Fn, get("/product?q=heater", adminCookie))).json();
    expect(asAdmin).toMatchObject({ isAdmin: true, total: 1, rows: [{ name: "Heater", active: false }] });
    await setActive(heater.id, true, by());

    for (let i = 0; i < PAGE_SIZE + 3; i++) await mk(`PG-${String(i).padStart(2, "0")}`, `Paged ${String(i).padStart(2, "0")}`, "Paging");
    const page2 = await listProducts({ category: "Paging", page: 2 });
    expect(page2).toMatchObject({ page: 2, pages: 2, total: PAGE_SIZE + 3 });
    expect(page2.rows.map((r) => r.sku)).toEqual(["PG-20", "PG-21", "PG-22"]);
    expect((await listProducts({ category: "Paging", page: 99 })).page).toBe(2);

    // the JSON twin, with the agent's token
    const api = await call(apiList.loader as Fn, get(`/api/product/list?q=FAN&_token=${agentToken}`));
    expect(api.status).toBe(200);
    expect(await api.json()).toMatchObject({
      result: "success",
      data: { total: 2, products: [{ sku: "FAN-100", priceMinor: 5990, currency: "MYR" }, { sku: "FAN-200" }] },
    });
    expect((await call(apiList.loader as Fn, get("/api/product/list?q=FAN&_token=nope"))).status).toBe(403);
    // a trial workspace has no catalogue: its tokens get 403 too
    await setSetting("account_type", "0");
    try {
      expect((await call(apiList.loader as Fn, get(`/api/product/list?q=FAN&_token=${agentToken}`))).status).toBe(403);
    } finally {
      await setSetting("account_type", "1");
    }
    expect(await (await call(apiList.loader as Fn, get(`/api/product/list?page=0&_token=${agentToken}`))).json()).toEqual({
      result: "failed",
      description: "Please check the page.",
    });
  });

  it("links a product to tickets by number, shows each reader only the tickets they may read, and unlinks", async () => {
    const p = (await saveProduct({ values: fields({ sku: "LINK-1", name: "Soundbar" }), image: { bytes: null } }, by())) as { id: number };
    // the Support agent links a Support ticket, twice (one link), through the page's form
    for (let i = 0; i < 2; i++) {
      const linked = await call(pageRoute.action as Fn, post(`/product/${p.id}`, agentCookie, { intent: "link", ticket: `#${supportTicket.number}` }), {
        id: String(p.id),
      });
      expect(linked.status).toBe(302);
    }
    // a Sales ticket the agent may not read is "not found", and nothing is linked
    const refused = await call(pageRoute.action as Fn, post(`/product/${p.id}`, agentCookie, { intent: "link", ticket: String(salesTicket.number) }), {
      id: String(p.id),
    });
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ errors: { ticket: "plugin_product.error.ticketNotFound" }, values: { ticket: String(salesTicket.number) } });
    const bad = await call(pageRoute.action as Fn, post(`/product/${p.id}`, agentCookie, { intent: "link", ticket: "abc" }), { id: String(p.id) });
    expect(await bad.json()).toMatchObject({ errors: { ticket: "plugin_product.error.ticketNumber" }, values: { ticket: "abc" } });
    // the admin may link the Sales ticket
    expect(await linkTicket(admin, p.id, salesTicket.number)).toEqual({ ok: true, ticketId: salesTicket.id });

    expect((await linkedTickets(admin, p.id)).map((r) => r.number).sort()).toEqual([supportTicket.number, salesTicket.number]);
    const seen = await linkedTickets(agent, p.id);
    expect(seen).toMatchObject([{ number: supportTicket.number, title: "My TV has no sound", linkedBy: agent.name }]);
    const page = await (await call(pageRoute.loader as Fn, get(`/product/${p.id}`, agentCookie), { id: String(p.id) })).json();
    expect(page.tickets.map((r: { number: number }) => r.number)).toEqual([supportTicket.number]);
    const api = await (await call(apiProduct.loader as Fn, get(`/api/product/${p.id}?_token=${agentToken}`), { id: String(p.id) })).json();
    expect(api).toMatchObject({ result: "success", data: { product: { sku: "LINK-1" }, tickets: [{ number: supportTicket.number }] } });
    expect((await call(apiProduct.loader as Fn, get(`/api/product/999999?_token=${agentToken}`), { id: "999999" })).status).toBe(404);

    // the agent cannot unlink the ticket they may not read; they can unlink theirs
    expect(await unlinkTicket(agent, p.id, salesTicket.id)).toBe(false);
    const unlinked = await call(pageRoute.action as Fn, post(`/product/${p.id}`, agentCookie, { intent: "unlink", ticket_id: String(supportTicket.id) }), {
      id: String(p.id),
    });
    expect(unlinked.status).toBe(302);
    expect(await linkedTickets(agent, p.id)).toEqual([]);
    expect((await linkedTickets(admin, p.id)).map((r) => r.number)).toEqual([salesTicket.number]);

    // an inactive product takes no new links; only admins deactivate
    expect((await call(pageRoute.action as Fn, post(`/product/${p.id}`, agentCookie, { intent: "deactivate" }), { id: String(p.id) })).status).toBe(403);
    expect((await call(pageRoute.action as Fn, post(`/product/${p.id}`, adminCookie, { intent: "deactivate" }), { id: String(p.id) })).status).toBe(302);
    expect(await linkTicket(agent, p.id, supportTicket.number)).toMatchObject({ ok: false, error: "plugin_product.error.inactive" });
    // a ticket deleted takes its links with it
    const { db, schema } = t.handle;
    await db.delete(schema.tickets).where(eq(schema.tickets.id, salesTicket.id));
    expect(await linkedTickets(admin, p.id)).toEqual([]);
  });
});
