// The knowledge base: articles (kb or manual, in one of the five UI languages, public or for agents
// only) written in Markdown by admins. Every save keeps the article as it was in
// kb_article_versions (one transaction), and any earlier version can be restored (itself a save,
// so the restore can be undone too). Search: search.server.ts.
import { and, asc, count, desc, eq, inArray, type SQL } from "drizzle-orm";
import { z } from "zod";
import { getDb, type Tx } from "@db/client";
import type { Reader } from "~/conversation/access.server";
import { formError, formResult, type FormResult } from "~/forms";
import { fileStorage } from "~/storage.server";
import { audit } from "~/accounts/audit.server";
import {
  BODY_MAX,
  CATEGORY_MAX,
  IMAGE_MAX_BYTES,
  IMAGE_TYPES,
  KB_LANGS,
  KB_TYPES,
  KB_VISIBILITIES,
  PAGE_SIZE,
  SUMMARY_MAX,
  TITLE_MAX,
  type KbLang,
  type KbType,
} from "./limits";
import { searchIds } from "./search.server";

export type Outcome<T> = ({ ok: true } & T) | { ok: false; result: FormResult; status: number };
export type Article = typeof import("@db/schema/sqlite").kbArticles.$inferSelect;
export type ArticleValues = Record<"type" | "lang" | "category" | "title" | "summary" | "body" | "visibility", string>;

export const articleSchema = z.object({
  type: z.enum(KB_TYPES, { errorMap: () => ({ message: "plugin_kb.errors.type" }) }),
  lang: z.enum(KB_LANGS, { errorMap: () => ({ message: "plugin_kb.errors.lang" }) }),
  category: z.string().trim().max(CATEGORY_MAX, "plugin_kb.errors.categoryTooLong"),
  title: z.string().trim().min(1, "plugin_kb.errors.titleRequired").max(TITLE_MAX, "plugin_kb.errors.titleTooLong"),
  summary: z.string().trim().max(SUMMARY_MAX, "plugin_kb.errors.summaryTooLong"),
  body: z.string().trim().min(1, "plugin_kb.errors.bodyRequired").max(BODY_MAX, "plugin_kb.errors.bodyTooLong"),
  visibility: z.enum(KB_VISIBILITIES, { errorMap: () => ({ message: "plugin_kb.errors.visibility" }) }),
});

/** An image posted with an article (already read, at most a little over the limit). */
export interface ImageInput {
  name: string;
  type: string;
  size: number;
  bytes?: Uint8Array;
}

const adminOnly = (values: Record<string, string>): Outcome<never> => ({
  ok: false,
  result: formResult({ message: "plugin_kb.errors.adminOnly", values }),
  status: 403,
});

/** Checks an image before anything is stored: too large or not an image is refused with its reason. */
export function checkImage(image: ImageInput | undefined, values: Record<string, string>): Outcome<never> | null {
  if (!image) return null;
  if (image.size > IMAGE_MAX_BYTES)
    return {
      ok: false,
      result: formResult({ errors: { image: "plugin_kb.errors.imageTooLarge" }, values, messageValues: { size: String(IMAGE_MAX_BYTES / 1024 / 1024) } }),
      status: 413,
    };
  if (!IMAGE_TYPES.includes(image.type) || !image.bytes)
    return { ok: false, result: formResult({ errors: { image: "plugin_kb.errors.imageType" }, values }), status: 400 };
  return null;
}

/** Stores the image in the product's file storage; its Markdown goes at the end of the body. */
async function storeImage(tx: Tx, actor: Reader, image: ImageInput, at: number) {
  const { schema } = getDb();
  const key = await fileStorage().put(image.bytes!);
  const name = image.name.replace(/[\[\]()\n\r]/g, " ").slice(0, 120) || "image";
  const [row] = await tx
    .insert(schema.kbImages)
    .values({ fileKey: key, name, contentType: image.type, size: image.size, createdBy: actor.id, createdAt: at })
    .returning({ id: schema.kbImages.id });
  return `\n\n![${name}](/support/image/${row!.id})`;
}

/** Who writes: the audit log names them. */
type Writer = Reader & { name: string };

/** The audit entries of a save: the save itself, and publishing or withdrawing when the visibility changed. */
async function auditSave(
  tx: Tx,
  actor: Writer,
  action: "kb.article_created" | "kb.article_updated",
  article: { id: number; title: string; version: number },
  before: string | null,
  after: string,
  restored?: number,
) {
  const target = { type: "kb_article", id: article.id };
  await audit({ action, actor, target, detail: { title: article.title, version: article.version, visibility: after, ...(restored ? { restored } : {}) } }, tx);
  if (after !== before && (after === "public" || before === "public"))
    await audit({ action: after === "public" ? "kb.article_published" : "kb.article_unpublished", actor, target, detail: { title: article.title } }, tx);
}

export async function createArticle(actor: Writer, values: ArticleValues, image?: ImageInput): Promise<Outcome<{ id: number }>> {
  if (actor.type !== "admin") return adminOnly(values);
  const parsed = articleSchema.safeParse(values);
  if (!parsed.success) return { ok: false, result: formError(parsed.error, values), status: 400 };
  const refused = checkImage(image, values);
  if (refused) return refused;
  const handle = getDb();
  const { schema } = handle;
  const at = Date.now();
  const id = await handle.transaction(async (tx) => {
    const body = parsed.data.body + (image ? await storeImage(tx, actor, image, at) : "");
    const [row] = await tx
      .insert(schema.kbArticles)
      .values({ ...parsed.data, body, createdBy: actor.id, updatedBy: actor.id, createdAt: at, updatedAt: at })
      .returning({ id: schema.kbArticles.id, version: schema.kbArticles.version });
    await auditSave(tx, actor, "kb.article_created", { id: row!.id, title: parsed.data.title, version: row!.version }, null, parsed.data.visibility);
    return row!.id;
  });
  return { ok: true, id };
}

/** Keeps the article as it is now as a version, then writes the new text (in the caller's transaction). */
async function saveOver(tx: Tx, actor: Reader, current: Article, next: z.output<typeof articleSchema>, at: number) {
  const { schema } = getDb();
  const t = schema.kbArticles;
  await tx.insert(schema.kbArticleVersions).values({
    articleId: current.id,
    version: current.version,
    type: current.type,
    lang: current.lang,
    category: current.category,
    title: current.title,
    summary: current.summary,
    body: current.body,
    visibility: current.visibility,
    editedBy: current.updatedBy,
    createdAt: current.updatedAt,
  });
  await tx
    .update(t)
    .set({ ...next, version: current.version + 1, updatedBy: actor.id, updatedAt: at })
    .where(and(eq(t.id, current.id), eq(t.version, current.version)));
}

async function current(tx: Tx, id: number) {
  const { schema } = getDb();
  const [row] = await tx.select().from(schema.kbArticles).where(eq(schema.kbArticles.id, id));
  return row;
}

const gone = (values: Record<string, string>): Outcome<never> => ({ ok: false, result: formResult({ message: "plugin_kb.errors.gone", values }), status: 404 });

/**
 * Saves an edit. `version` is the one the editor started from: when someone saved meanwhile, the
 * edit is refused (the other save is not overwritten unseen) and the typed text is kept.
 */
export async function updateArticle(
  actor: Writer,
  id: number,
  values: ArticleValues & { version?: string },
  image?: ImageInput,
): Promise<Outcome<{ id: number }>> {
  if (actor.type !== "admin") return adminOnly(values);
  const parsed = articleSchema.safeParse(values);
  if (!parsed.success) return { ok: false, result: formError(parsed.error, values), status: 400 };
  const refused = checkImage(image, values);
  if (refused) return refused;
  const at = Date.now();
  return getDb().transaction(async (tx): Promise<Outcome<{ id: number }>> => {
    const row = await current(tx, id);
    if (!row) return gone(values);
    if (values.version && Number(values.version) !== row.version)
      return { ok: false, result: formResult({ message: "plugin_kb.errors.changed", values }), status: 409 };
    const body = parsed.data.body + (image ? await storeImage(tx, actor, image, at) : "");
    await saveOver(tx, actor, row, { ...parsed.data, body }, at);
    await auditSave(tx, actor, "kb.article_updated", { id, title: parsed.data.title, version: row.version + 1 }, row.visibility, parsed.data.visibility);
    return { ok: true, id };
  });
}

/** Makes an earlier version the article's text again (the text it replaces becomes a version too). */
export async function restoreVersion(actor: Writer, id: number, version: number): Promise<Outcome<{ id: number }>> {
  if (actor.type !== "admin") return adminOnly({});
  const handle = getDb();
  const v = handle.schema.kbArticleVersions;
  return handle.transaction(async (tx): Promise<Outcome<{ id: number }>> => {
    const row = await current(tx, id);
    if (!row) return gone({});
    const [old] = await tx
      .select()
      .from(v)
      .where(and(eq(v.articleId, id), eq(v.version, version)));
    if (!old) return { ok: false, result: formResult({ message: "plugin_kb.errors.noVersion" }), status: 404 };
    const { type, lang, category, title, summary, body, visibility } = old;
    await saveOver(
      tx,
      actor,
      row,
      { type: type as KbType, lang: lang as KbLang, category, title, summary, body, visibility: visibility as "public" | "internal" },
      Date.now(),
    );
    await auditSave(tx, actor, "kb.article_updated", { id, title, version: row.version + 1 }, row.visibility, visibility, version);
    return { ok: true, id };
  });
}

/** Deletes an article and its versions (admins), audited in the same transaction; false when it is not there. */
export async function deleteArticle(actor: Writer, id: number): Promise<boolean> {
  if (actor.type !== "admin") return false;
  const handle = getDb();
  const { schema } = handle;
  return handle.transaction(async (tx) => {
    const done = await tx
      .delete(schema.kbArticles)
      .where(eq(schema.kbArticles.id, id))
      .returning({ id: schema.kbArticles.id, title: schema.kbArticles.title, visibility: schema.kbArticles.visibility });
    if (!done.length) return false;
    await audit(
      { action: "kb.article_deleted", actor, target: { type: "kb_article", id }, detail: { title: done[0].title, visibility: done[0].visibility } },
      tx,
    );
    return true;
  });
}

export async function getArticle(id: number): Promise<Article | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.kbArticles).where(eq(schema.kbArticles.id, id));
  return row;
}

/** A public article (never an internal one), of this type and language. */
export async function getPublicArticle(id: number, type: string, lang: string) {
  const a = await getArticle(id);
  return a && a.visibility === "public" && a.type === type && a.lang === lang ? a : undefined;
}

export async function listVersions(id: number) {
  const { db, schema } = getDb();
  const v = schema.kbArticleVersions;
  return db
    .select({ version: v.version, title: v.title, body: v.body, visibility: v.visibility, createdAt: v.createdAt, editor: schema.users.name })
    .from(v)
    .leftJoin(schema.users, eq(schema.users.id, v.editedBy))
    .where(eq(v.articleId, id))
    .orderBy(desc(v.version));
}

export interface ListQuery {
  q?: string;
  type?: KbType;
  lang?: KbLang;
  category?: string;
  /** Agents and admins see internal articles; the public pages never do. */
  includeInternal: boolean;
  page?: number;
  pageSize?: number;
}

export type ListedArticle = Pick<Article, "id" | "type" | "lang" | "category" | "title" | "summary" | "visibility" | "version" | "updatedAt">;

/** Articles matching the filters (and the search words, best match first; else the latest changed first). */
export async function listArticles(query: ListQuery): Promise<{ articles: ListedArticle[]; total: number; page: number; pages: number }> {
  const { db, schema } = getDb();
  const t = schema.kbArticles;
  const pageSize = query.pageSize ?? PAGE_SIZE;
  const page = Math.max(1, query.page ?? 1);
  const where: SQL[] = [];
  if (query.type) where.push(eq(t.type, query.type));
  if (query.lang) where.push(eq(t.lang, query.lang));
  if (query.category) where.push(eq(t.category, query.category));
  if (!query.includeInternal) where.push(eq(t.visibility, "public"));
  const columns = {
    id: t.id,
    type: t.type,
    lang: t.lang,
    category: t.category,
    title: t.title,
    summary: t.summary,
    visibility: t.visibility,
    version: t.version,
    updatedAt: t.updatedAt,
  };
  const q = query.q?.trim();
  if (q) {
    // the index answers the ids (ranked); the filters then keep those allowed here
    const ids = await searchIds(q, 500);
    if (!ids.length) return { articles: [], total: 0, page, pages: 0 };
    const rows = await db
      .select(columns)
      .from(t)
      .where(and(inArray(t.id, ids), ...where));
    const rank = new Map(ids.map((id, i) => [id, i]));
    rows.sort((a, b) => rank.get(a.id)! - rank.get(b.id)!);
    return { articles: rows.slice((page - 1) * pageSize, page * pageSize), total: rows.length, page, pages: Math.ceil(rows.length / pageSize) };
  }
  const [{ n }] = await db
    .select({ n: count() })
    .from(t)
    .where(and(...where));
  const articles = await db
    .select(columns)
    .from(t)
    .where(and(...where))
    .orderBy(desc(t.updatedAt), desc(t.id))
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  return { articles, total: Number(n), page, pages: Math.ceil(Number(n) / pageSize) };
}

/** The categories in use (for a type and language, public only unless includeInternal). */
export async function categories(opts: { type?: KbType; lang?: KbLang; includeInternal: boolean }) {
  const { db, schema } = getDb();
  const t = schema.kbArticles;
  const where: SQL[] = [];
  if (opts.type) where.push(eq(t.type, opts.type));
  if (opts.lang) where.push(eq(t.lang, opts.lang));
  if (!opts.includeInternal) where.push(eq(t.visibility, "public"));
  const rows = await db
    .selectDistinct({ category: t.category })
    .from(t)
    .where(and(...where))
    .orderBy(asc(t.category));
  return rows.map((r) => r.category).filter(Boolean);
}

export async function getImage(id: number) {
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.kbImages).where(eq(schema.kbImages.id, id));
  return row;
}
