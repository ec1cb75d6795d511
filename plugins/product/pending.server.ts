// Images kept for refused product forms (products.server.ts: keepPending) that no form came back
// for: after PENDING_MAX_AGE_MS their files are removed, by a job queued each hour (one per hour
// for the whole cluster: its key is the hour). Idempotent: a file already gone is fine, a row
// removed by another run is skipped, and an image a product uses is never removed.
import { and, eq, inArray, lt } from "drizzle-orm";
import { getDb } from "@db/client";
import { fileStorage } from "~/storage.server";

/** How long a refused form's image waits for the form to be sent again. */
export const PENDING_MAX_AGE_MS = 24 * 60 * 60_000;
export const PENDING_CLEANUP_JOB = "product.pending-images";
const BATCH = 500;

/** Removes the abandoned pending images older than `maxAgeMs`; returns how many files went. */
export async function removeAbandonedImages(now = Date.now(), maxAgeMs = PENDING_MAX_AGE_MS): Promise<number> {
  const { db, schema } = getDb();
  const p = schema.productPendingImages;
  let removed = 0;
  for (;;) {
    const old = await db
      .select({ fileKey: p.fileKey })
      .from(p)
      .where(lt(p.createdAt, now - maxAgeMs))
      .limit(BATCH);
    if (!old.length) return removed;
    const keys = old.map((r) => r.fileKey);
    const used = new Set(
      (await db.select({ key: schema.products.imageKey }).from(schema.products).where(inArray(schema.products.imageKey, keys))).map((r) => r.key),
    );
    for (const key of keys) {
      // the row first: a form sent again from now on finds no row and the product keeps its file
      const [mine] = await db
        .delete(p)
        .where(and(eq(p.fileKey, key), lt(p.createdAt, now - maxAgeMs)))
        .returning({ fileKey: p.fileKey });
      if (!mine || used.has(key)) continue;
      await fileStorage().remove(key);
      removed++;
    }
  }
}
