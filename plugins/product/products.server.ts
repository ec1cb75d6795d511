// The product catalogue: admins add, edit and deactivate products (name, SKU unique whatever its
// case, category, price, description, image); anyone with the menu finds them and links one to a
// ticket they may read. Linked tickets are shown only to those who may read them (access.server).
import { and, asc, count, desc, eq, isNotNull, sql, type SQL } from "drizzle-orm";
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { getDb, type Tx } from "@db/client";
import { audit } from "~/accounts/audit.server";
import { imageTypeOf } from "~/accounts/profile.server";
import type { UserRow } from "~/accounts/users.server";
import { readableBy, canRead, type Reader } from "~/conversation/access.server";
import { formResult, type FormResult } from "~/forms";
import { rememberRequest } from "~/request-keys.server";
import { fileStorage } from "~/storage.server";
import { DEFAULT_CURRENCY, isCurrency, parsePrice } from "./money";

export const PAGE_SIZE = 20;
export const IMAGE_MAX_BYTES = 2 * 1024 * 1024;
export const FIELDS = ["name", "sku", "category", "price", "currency", "description"] as const;
export const LIMITS = { name: 200, sku: 64, category: 80, description: 5000 } as const;
const KEY = /^[a-f0-9]{32}$/;

export type ProductRow = typeof import("@db/schema/sqlite").products.$inferSelect;
export type By = { actor: Pick<UserRow, "id" | "username">; ip?: string };
export type Refused = { ok: false; result: FormResult; status: number };

const fieldsSchema = z.object({
  name: z.string().trim().min(1, "plugin_product.error.nameRequired").max(LIMITS.name, "plugin_product.error.tooLong"),
  sku: z
    .string()
    .trim()
    .min(1, "plugin_product.error.skuRequired")
    .max(LIMITS.sku, "plugin_product.error.tooLong")
    .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, "plugin_product.error.skuFormat"),
  category: z.string().trim().max(LIMITS.category, "plugin_product.error.tooLong"),
  currency: z.string().refine(isCurrency, "plugin_product.error.currency"),
  price: z.string(),
  description: z.string().trim().max(LIMITS.description, "plugin_product.error.tooLong"),
});

/** Why bytes cannot be a product image (a translation key), or null. */
export function imageProblem(bytes: Uint8Array): string | null {
  if (bytes.length > IMAGE_MAX_BYTES) return "plugin_product.error.imageTooLarge";
  if (!imageTypeOf(bytes)) return "plugin_product.error.imageType";
  return null;
}

/** The form's values checked: the row's fields, or every field's first error (all at once, the typed values kept). */
export function checkFields(values: Record<(typeof FIELDS)[number], string>, image: { bytes: Uint8Array | null; tooLarge?: boolean }) {
  const errors: Record<string, string> = {};
  const parsed = fieldsSchema.safeParse({ ...values, currency: values.currency || DEFAULT_CURRENCY });
  if (!parsed.success) for (const issue of parsed.error.issues) errors[String(issue.path[0])] ??= issue.message;
  const currency = isCurrency(values.currency) ? values.currency : DEFAULT_CURRENCY;
  const price = parsePrice(values.price, currency);
  if ("error" in price) errors.price = price.error;
  if (image.tooLarge) errors.image = "plugin_product.error.imageTooLarge";
  else if (image.bytes) {
    const problem = imageProblem(image.bytes);
    if (problem) errors.image = problem;
  }
  if (Object.keys(errors).length || !parsed.success || "error" in price) return { ok: false as const, errors };
  const { name, sku, category, description } = parsed.data;
  return { ok: true as const, row: { name, sku, category, description, currency, priceMinor: price.minor } };
}

const skuTaken = async (sku: string, except?: number) => {
  const { db, schema } = getDb();
  const p = schema.products;
  const [row] = await db
    .select({ id: p.id })
    .from(p)
    .where(and(sql`lower(${p.sku}) = ${sku.toLowerCase()}`, except ? sql`${p.id} <> ${except}` : undefined))
    .limit(1);
  return !!row;
};

/** A unique violation on either database (two saves of one SKU at once: the index decides). */
const isUniqueViolation = (error: unknown) =>
  /UNIQUE constraint failed|duplicate key value|23505/.test(
    `${String(error)} ${(error as { code?: string })?.code ?? ""} ${String((error as { cause?: unknown })?.cause ?? "")}`,
  );

export interface ProductInput {
  values: Record<(typeof FIELDS)[number], string>;
  image: { bytes: Uint8Array | null; tooLarge?: boolean };
  /** Edit only: drop the current image (a new one wins). */
  removeImage?: boolean;
  /** The image of a refused form, sent again without its bytes (pendingImageToken's answer). */
  pendingImage?: string;
  /** Edit only: the product's updated_at as the form read it; a save over a later change is refused (409). */
  version?: number;
}

// ---- an image kept across a refused form ----
// The refusal stores the chosen image and gives the form a token for it (the file's key, signed for
// this admin), so sending the form again without choosing the image again keeps it. Only a token
// this server signed names a file: no other stored file (a ticket's attachment) can become an image.
const pendingSecret = () => process.env.SESSION_SECRET || "dev-only-secret";
const pendingSignature = (key: string, userId: number) => createHmac("sha256", pendingSecret()).update(`product-image:${userId}:${key}`).digest("base64url");

export function pendingImageToken(key: string, userId: number) {
  return `${key}.${pendingSignature(key, userId)}`;
}

/** The stored key a pending-image token names, when this server signed it for this user. */
export function pendingImageKey(token: string | undefined, userId: number): string | null {
  const [key, signature, extra] = (token ?? "").split(".");
  if (extra !== undefined || !key || !signature || !KEY.test(key)) return null;
  const expected = Buffer.from(pendingSignature(key, userId));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given) ? key : null;
}

/** Notes a refused form's stored image, so that it is removed if the form is never sent again (pending.server.ts). */
async function keepPending(key: string, userId: number) {
  const { db, schema } = getDb();
  await db.insert(schema.productPendingImages).values({ fileKey: key, userId, createdAt: Date.now() }).onConflictDoNothing();
  return key;
}

async function storedBytes(key: string): Promise<Uint8Array | null> {
  const stream = await fileStorage().get(key);
  return stream ? new Uint8Array(await new Response(stream).arrayBuffer()) : null;
}

/**
 * Adds (no id) or edits a product. A refusal carries every field's error and what was typed; the
 * image is stored before the row and removed again when the row is not written.
 */
export async function saveProduct(input: ProductInput, by: By, id?: number): Promise<{ ok: true; id: number } | Refused> {
  const storage = fileStorage();
  // an image sent with an earlier, refused form: the token's file, checked again like a new one
  const pendingKey = input.image.bytes || input.image.tooLarge ? null : pendingImageKey(input.pendingImage, by.actor.id);
  const pendingBytes = pendingKey ? await storedBytes(pendingKey) : null;
  const image = pendingBytes ? { bytes: pendingBytes } : input.image;
  const values = { ...input.values, version: input.version === undefined ? "" : String(input.version) };
  /** A refusal; a good image chosen with it is kept (stored, its token in the form) so that it need not be chosen again. */
  const refused = async (parts: { errors?: Record<string, string>; message?: string }, status = 400): Promise<Refused> => {
    let pending = "";
    if (!parts.errors?.image && image.bytes && !imageProblem(image.bytes))
      pending = pendingImageToken(pendingBytes ? pendingKey! : await keepPending(await storage.put(image.bytes), by.actor.id), by.actor.id);
    return { ok: false, result: formResult({ intent: "save", ...parts, values: { ...values, pending_image: pending } }), status };
  };
  const before = id ? await getProduct(id) : null;
  if (id && !before) return { ok: false, result: formResult({ intent: "save", message: "plugin_product.error.notFound", values: input.values }), status: 404 };
  // the form then carries the version now stored: saving it again (after a look) is a deliberate overwrite
  const changedMeanwhile = async () => {
    const [now] = await getDb()
      .db.select({ updatedAt: getDb().schema.products.updatedAt })
      .from(getDb().schema.products)
      .where(eq(getDb().schema.products.id, id!));
    values.version = now ? String(Number(now.updatedAt)) : values.version;
    return refused({ message: "plugin_product.error.changedMeanwhile" }, 409);
  };
  // the form carries the product as it was read: saving over someone's later change (its image above all) would undo it unseen
  if (before && input.version !== undefined && input.version !== Number(before.updatedAt)) return changedMeanwhile();
  const checked = checkFields(input.values, image);
  // every problem at once: a taken SKU too, beside the other fields' errors
  const errors = checked.ok ? {} : { ...checked.errors };
  if (!errors.sku && (await skuTaken(input.values.sku.trim(), id))) errors.sku = "plugin_product.error.skuTaken";
  if (!checked.ok || errors.sku) return refused({ errors }, Object.keys(errors).length === 1 && errors.sku ? 409 : 400);
  const newKey = pendingBytes ? pendingKey : image.bytes ? await storage.put(image.bytes) : null;
  const imageKey = newKey ?? (input.removeImage ? null : (before?.imageKey ?? null));
  const { schema } = getDb();
  const now = Date.now();
  let savedId: number | null;
  try {
    savedId = await getDb().transaction(async (tx: Tx) => {
      let rowId: number;
      if (id && before) {
        // written only over the row that was read: of two saves at once the later is refused, so
        // nobody's image is removed while the row still points at it; the version moves on even within one millisecond
        const claimed = await tx
          .update(schema.products)
          .set({ ...checked.row, imageKey, updatedAt: Math.max(now, Number(before.updatedAt) + 1) })
          .where(and(eq(schema.products.id, id), eq(schema.products.updatedAt, before.updatedAt)))
          .returning({ id: schema.products.id });
        if (!claimed.length) return null;
        rowId = id;
      } else {
        const [row] = await tx
          .insert(schema.products)
          .values({ ...checked.row, imageKey, active: true, createdAt: now, updatedAt: now })
          .returning({ id: schema.products.id });
        rowId = row.id;
        await rememberRequest(tx, { id: rowId });
      }
      // the pending image is the product's now: the clean-up leaves it alone
      if (newKey) await tx.delete(schema.productPendingImages).where(eq(schema.productPendingImages.fileKey, newKey));
      await audit(
        {
          action: id ? "product.updated" : "product.created",
          actor: { id: by.actor.id, name: by.actor.username },
          ip: by.ip,
          target: { type: "product", id: rowId },
          detail: { sku: checked.row.sku, name: checked.row.name },
        },
        tx,
      );
      return rowId;
    });
  } catch (error) {
    // the refusal keeps the image pending (a pending file is kept as it is, a new one stored again by refused)
    if (newKey && newKey !== pendingKey) await storage.remove(newKey);
    if (isUniqueViolation(error)) return refused({ errors: { sku: "plugin_product.error.skuTaken" } }, 409);
    throw error;
  }
  // another save came first: the row stays as the other left it, the chosen image pending with the refusal
  if (savedId === null) {
    if (newKey && newKey !== pendingKey) await storage.remove(newKey);
    return changedMeanwhile();
  }
  // the replaced image is no longer anyone's: its file goes
  if (before?.imageKey && before.imageKey !== imageKey) await storage.remove(before.imageKey);
  return { ok: true, id: savedId };
}

/** Deactivates (hidden from agents' lists, no new links) or reactivates a product. */
export async function setActive(id: number, active: boolean, by: By): Promise<boolean> {
  const { schema } = getDb();
  return getDb().transaction(async (tx: Tx) => {
    const done = await tx
      .update(schema.products)
      .set({ active, updatedAt: Date.now() })
      .where(eq(schema.products.id, id))
      .returning({ id: schema.products.id, sku: schema.products.sku });
    if (!done.length) return false;
    await audit(
      {
        action: active ? "product.activated" : "product.deactivated",
        actor: { id: by.actor.id, name: by.actor.username },
        ip: by.ip,
        target: { type: "product", id },
        detail: { sku: done[0].sku },
      },
      tx,
    );
    return true;
  });
}

export async function getProduct(id: number): Promise<ProductRow | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.products).where(eq(schema.products.id, id));
  return row ?? null;
}

/** LIKE "contains", % _ and \ matched literally. */
const contains = (column: SQL | unknown, value: string) =>
  sql`lower(${column}) LIKE ${`%${value.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`} ESCAPE '\\'`;

export interface ListQuery {
  q?: string;
  category?: string;
  page?: number;
  /** Admins see inactive products too. */
  withInactive?: boolean;
}

/** One page of products by name: search in name and SKU, one category or all. */
export async function listProducts(query: ListQuery) {
  const { db, schema } = getDb();
  const p = schema.products;
  const q = query.q?.trim() ?? "";
  const where = and(
    query.withInactive ? undefined : eq(p.active, true),
    q ? sql`(${contains(p.name, q)} OR ${contains(p.sku, q)})` : undefined,
    query.category ? eq(p.category, query.category) : undefined,
  );
  const [{ total }] = await db.select({ total: count() }).from(p).where(where);
  const pages = Math.max(1, Math.ceil(Number(total) / PAGE_SIZE));
  const page = Math.min(Math.max(1, Math.floor(query.page ?? 1) || 1), pages);
  const rows = await db
    .select()
    .from(p)
    .where(where)
    .orderBy(asc(p.name), asc(p.id))
    .limit(PAGE_SIZE)
    .offset((page - 1) * PAGE_SIZE);
  return { rows, total: Number(total), page, pages };
}

/** Products whose name or SKU contains `text`, by name; `more` when others match too. Inactive ones only with `withInactive` (admins). */
export async function searchProducts(text: string, limit: number, withInactive = false) {
  const { db, schema } = getDb();
  const p = schema.products;
  const q = text.trim().slice(0, LIMITS.name);
  if (!q) return { rows: [], more: false };
  const rows = await db
    .select({ id: p.id, name: p.name, sku: p.sku })
    .from(p)
    .where(and(withInactive ? undefined : eq(p.active, true), sql`(${contains(p.name, q)} OR ${contains(p.sku, q)})`))
    .orderBy(asc(p.name), asc(p.id))
    .limit(limit + 1);
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}

/** The categories in use, by name (the list's filter). */
export async function categories(withInactive = false): Promise<string[]> {
  const { db, schema } = getDb();
  const p = schema.products;
  const rows = await db
    .selectDistinct({ category: p.category })
    .from(p)
    .where(and(sql`${p.category} <> ''`, withInactive ? undefined : eq(p.active, true)))
    .orderBy(asc(p.category));
  return rows.map((r) => r.category);
}

// ---- tickets ----

/**
 * Links a product to the ticket with this number, when the user may read that ticket (else it is
 * "not found": a number one may not read is not revealed). Linking twice is one link.
 */
export async function linkTicket(
  user: Reader,
  productId: number,
  ticketNumber: number,
): Promise<{ ok: true; ticketId: number } | { ok: false; error: string; status: number }> {
  const product = await getProduct(productId);
  if (!product) return { ok: false, error: "plugin_product.error.notFound", status: 404 };
  if (!product.active) return { ok: false, error: "plugin_product.error.inactive", status: 409 };
  const { db, schema } = getDb();
  const t = schema.tickets;
  const [ticket] = Number.isSafeInteger(ticketNumber)
    ? await db
        .select({ id: t.id })
        .from(t)
        .where(and(eq(t.ticketNumber, ticketNumber), readableBy(user)))
    : [];
  if (!ticket) return { ok: false, error: "plugin_product.error.ticketNotFound", status: 404 };
  await getDb().transaction(async (tx: Tx) => {
    await tx.insert(schema.productTickets).values({ productId, ticketId: ticket.id, linkedBy: user.id, linkedAt: Date.now() }).onConflictDoNothing();
    await rememberRequest(tx, { ticketId: ticket.id });
  });
  return { ok: true, ticketId: ticket.id };
}

/** Removes a link, by someone who may read the ticket. */
export async function unlinkTicket(user: Reader, productId: number, ticketId: number): Promise<boolean> {
  if (!(await canRead(user, ticketId))) return false;
  const { db, schema } = getDb();
  const pt = schema.productTickets;
  const gone = await db
    .delete(pt)
    .where(and(eq(pt.productId, productId), eq(pt.ticketId, ticketId)))
    .returning({ id: pt.ticketId });
  return gone.length > 0;
}

/** The product's linked tickets this reader may read, newest link first. */
export async function linkedTickets(reader: Reader, productId: number) {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const pt = schema.productTickets;
  const u = schema.users;
  return db
    .select({
      id: t.id,
      number: t.ticketNumber,
      kind: t.kind,
      title: t.title,
      status: t.status,
      linkedAt: pt.linkedAt,
      linkedBy: u.name,
    })
    .from(pt)
    .innerJoin(t, eq(t.id, pt.ticketId))
    .leftJoin(u, eq(u.id, pt.linkedBy))
    .where(and(eq(pt.productId, productId), readableBy(reader)))
    .orderBy(desc(pt.linkedAt), desc(t.id));
}

// ---- image ----

/** A product image's bytes and type, only for a key that is a product's image (the storage holds attachments too). */
export async function productImage(productId: number, key: string) {
  if (!KEY.test(key)) return undefined;
  const { db, schema } = getDb();
  const p = schema.products;
  const [row] = await db
    .select({ id: p.id })
    .from(p)
    .where(and(eq(p.id, productId), isNotNull(p.imageKey), eq(p.imageKey, key)));
  if (!row) return undefined;
  const stream = await fileStorage().get(key);
  if (!stream) return undefined;
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  const type = imageTypeOf(bytes);
  return type ? { bytes, type } : undefined;
}

/** What the JSON twin and the pages show of a product. */
export function productView(row: ProductRow) {
  return {
    id: row.id,
    name: row.name,
    sku: row.sku,
    category: row.category,
    priceMinor: row.priceMinor,
    currency: row.currency,
    description: row.description,
    image: row.imageKey ? `/product/${row.id}/image?k=${row.imageKey}` : null,
    active: row.active,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
