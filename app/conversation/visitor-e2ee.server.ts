// A live chat visitor's end-to-end encryption key (decision 048): the visitor has no account, so
// its browser's public key belongs to the chat. Shared by the live chat plugin (the visitor's page
// publishes the key and fetches its wrapped conversation keys with the visit token) and the e2ee
// plugin (an agent's browser wraps each key version for it).
import { and, asc, eq } from "drizzle-orm";
import { getDb } from "@db/client";
import { fingerprintOf, importPublicKey } from "~/conversation/e2ee-crypto";

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export class BadVisitorKey extends Error {}

export async function visitorKeyOf(ticketId: number) {
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.e2eeVisitorKeys).where(eq(schema.e2eeVisitorKeys.ticketId, ticketId));
  return row ?? null;
}

/**
 * The visitor's browser publishes its public key (SPKI, base64; RSA-OAEP). Another key than the
 * chat's (another browser, cleared storage) replaces it, and an encrypted chat then needs a new
 * key version wrapped for the new one: messages sealed before stay closed to the new browser.
 */
export async function publishVisitorKey(ticketId: number, publicKey: unknown) {
  if (typeof publicKey !== "string" || publicKey.length > 2000 || !BASE64.test(publicKey)) throw new BadVisitorKey();
  try {
    await importPublicKey(publicKey);
  } catch {
    throw new BadVisitorKey();
  }
  const fingerprint = await fingerprintOf(publicKey);
  const handle = getDb();
  const { schema } = handle;
  const k = schema.e2eeVisitorKeys;
  return handle.transaction(async (tx) => {
    const [current] = await tx.select().from(k).where(eq(k.ticketId, ticketId));
    if (current?.fingerprint === fingerprint) return { fingerprint, changed: false };
    const values = { publicKey, fingerprint, createdAt: Date.now() };
    await tx
      .insert(k)
      .values({ ticketId, ...values })
      .onConflictDoUpdate({ target: k.ticketId, set: values });
    if (current)
      await tx
        .update(schema.tickets)
        .set({ encryptionRekey: true })
        .where(and(eq(schema.tickets.id, ticketId), eq(schema.tickets.encryption, true)));
    return { fingerprint, changed: true };
  });
}

/** What the visitor's browser needs: the chat's encryption state and the key versions wrapped for the visitor. */
export async function visitorKeys(ticketId: number) {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const w = schema.e2eeVisitorWrappedKeys;
  const [[ticket], key, keys] = await Promise.all([
    db.select({ encryption: t.encryption, version: t.encryptionVersion, rekey: t.encryptionRekey }).from(t).where(eq(t.id, ticketId)),
    visitorKeyOf(ticketId),
    db.select({ version: w.version, wrappedKey: w.wrappedKey, fingerprint: w.fingerprint }).from(w).where(eq(w.ticketId, ticketId)).orderBy(asc(w.version)),
  ]);
  return {
    ticketId,
    encryption: !!ticket?.encryption,
    version: ticket?.version ?? 0,
    rekey: !!ticket?.rekey,
    fingerprint: key?.fingerprint ?? null,
    keys,
  };
}
export type VisitorKeys = Awaited<ReturnType<typeof visitorKeys>>;
