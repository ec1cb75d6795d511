// Idempotent client writes (ADR 045). A client names each write with a key of its own: the page
// forms' hidden `request_key` (made by the server for a page without JavaScript, by the browser for
// each send with it), a JSON client's `Idempotency-Key` header. The write's own transaction stores
// the key with what it made (rememberRequest), so either both are stored or neither; a retry with
// the key answers the first result and writes nothing. Twins sent at once: the (scope, key) primary
// key lets one transaction store it, the other finds it taken and rolls back whole.
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash, randomBytes } from "node:crypto";
import { and, eq, lt } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { REQUEST_KEY_FIELD_NAME as REQUEST_KEY_FIELD } from "~/request-key-field";
import { formResult, type FormResult } from "~/forms";

/** How long a key is remembered: a day, as the Idempotency-Key draft suggests at least. */
export const REQUEST_KEY_TTL_MS = 24 * 60 * 60_000;

export interface RequestKey {
  /** Whose key it is ("user:3"): one client's keys never answer another's. */
  scope: string;
  key: string;
  /** The write it names and a digest of what was sent: the same key for another write is refused (KeyReused). */
  action: string;
}

/** The JSON API's header (page forms send the request_key field). */
export const REQUEST_KEY_HEADER = "Idempotency-Key";

// a key is kept as sent when it is printable ASCII of at most 200 characters (a UUID, the draft's
// quoted string), else as its digest: any non-empty key a client sends is honoured
const KEPT_AS_SENT = /^[\x20-\x7e]{1,200}$/;

/**
 * The request's key, or null when it gave none. `sent`: what the request asked for (its fields,
 * its files' names and sizes); a key sent again with other content is refused, as the
 * Idempotency-Key draft says (a page without JavaScript opened again from the browser's history
 * still holds its used key).
 */
export function requestKeyOf(scope: string, action: string, raw: unknown, sent: unknown): RequestKey | null {
  if (typeof raw !== "string") return null;
  const given = raw.trim().replace(/^"(.*)"$/, "$1");
  if (!given) return null;
  const key = KEPT_AS_SENT.test(given) ? given : `sha256:${createHash("sha256").update(given).digest("base64url")}`;
  const digest = createHash("sha256")
    .update(JSON.stringify(sent ?? null))
    .digest("base64url")
    .slice(0, 22);
  return { scope, key, action: `${action}:${digest}` };
}

/** The key of a JSON API request (its Idempotency-Key header) or of a form post (its request_key field), for `fields` and `files`. */
export function requestKeyOfRequest(request: Request, scope: string, action: string, fields: Record<string, unknown>, files: File[] = []) {
  const { [REQUEST_KEY_FIELD]: raw, _token, ...sent } = fields;
  void _token; // the form token changes with the session, not with what was asked
  const key = request.headers.get(REQUEST_KEY_HEADER) ?? raw;
  return requestKeyOf(scope, action, key, { ...sent, files: files.map((f) => [f.name, f.size]) });
}

/** The key was used before for another write: the client has a bug; nothing is written. */
export class KeyReused extends Error {
  constructor(readonly first: string) {
    super(`request key already used for "${first}"`);
  }
}

/** Thrown inside a write's transaction when its twin stored the key first: the transaction rolls back. */
class AlreadyDone extends Error {}

interface Running {
  id: RequestKey;
  /** Set once a transaction stored the key: a later write of the same request does not store it again. */
  stored: boolean;
}
const running = new AsyncLocalStorage<Running>();

/**
 * Runs a client's write once per key. `run` does the write (its transaction calls rememberRequest);
 * for a key seen before, `replay` answers from what the first write stored, and run is not called.
 */
export async function once<T>(id: RequestKey | null, run: () => Promise<T>, replay: (result: unknown) => T | Promise<T>): Promise<T> {
  if (!id) return run();
  const done = await storedResult(id);
  if (done !== undefined) return replay(done);
  try {
    return await running.run({ id, stored: false }, run);
  } catch (error) {
    if (!(error instanceof AlreadyDone)) throw error;
    const first = await storedResult(id);
    if (first === undefined) throw error;
    return replay(first);
  }
}

/** What a page form's write answers: done (with what it made, replayed from the stored result), or refused. */
export type FormOutcome<T extends object = object> = ({ ok: true } & T) | { ok: false; result: FormResult; status: number };

/**
 * A page form's write, once per request key (scope the user, action `scope.intent`): a resend
 * answers what the first one did, and a key reused for another write is refused as sent before
 * (422) with the typed fields kept.
 */
export function formWriteOnce<T extends object>(
  request: Request,
  userId: number,
  scope: string,
  intent: string,
  fields: Record<string, string>,
  run: () => Promise<FormOutcome<T>>,
): Promise<FormOutcome<T>> {
  const key = requestKeyOfRequest(request, `user:${userId}`, `${scope}.${intent}`, fields);
  return once(key, run, (stored) => ({ ok: true as const, ...(stored as T) })).catch((error) => {
    if (error instanceof KeyReused)
      return { ok: false as const, result: formResult({ intent, message: "conversation.sentBefore", values: fields }), status: 422 };
    throw error;
  });
}

/**
 * Stores the running request's key with `result` (what the write made, as JSON), in the write's
 * transaction; nothing when the request has no key. Throws when a twin stored it first.
 */
export async function rememberRequest(tx: Tx, result: unknown = null) {
  const current = running.getStore();
  if (!current || current.stored) return;
  const { id } = current;
  const { schema } = getDb();
  const stored = await tx
    .insert(schema.requestKeys)
    .values({ scope: id.scope, key: id.key, action: id.action, result: JSON.stringify(result ?? null), createdAt: Date.now() })
    .onConflictDoNothing()
    .returning({ key: schema.requestKeys.key });
  if (!stored.length) throw new AlreadyDone();
  current.stored = true;
}

async function storedResult(id: RequestKey): Promise<unknown> {
  const { db, schema } = getDb();
  const k = schema.requestKeys;
  const [row] = await db
    .select({ action: k.action, result: k.result })
    .from(k)
    .where(and(eq(k.scope, id.scope), eq(k.key, id.key)));
  if (!row) return undefined;
  if (row.action !== id.action) throw new KeyReused(row.action);
  return JSON.parse(row.result);
}

/** A key for a page's forms (without JavaScript they send it as rendered). */
export const pageRequestKey = () => randomBytes(16).toString("hex");

/** Forgets keys older than a day (a periodic sweep). */
export async function sweepRequestKeys(now = Date.now()) {
  const { db, schema } = getDb();
  await db.delete(schema.requestKeys).where(lt(schema.requestKeys.createdAt, now - REQUEST_KEY_TTL_MS));
}
